import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCliProcess } from '../../support/cliProcess';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';

/**
 * The API key never lands anywhere the product shows or writes, even
 * when the server, the model or a tool hands it back.
 */

const KEY = 'sk-ant-api03-TEST-0123456789abcdefghijklmnopqrstuvwxyz-ZYXWVU';
let server: ScriptedServer;
let project: string;
let home: string;
let data: string;

before(async () => {
  server = await startScriptedServer();
  project = await mkdtemp(path.join(os.tmpdir(), 'subagents-secrets-'));
  home = await mkdtemp(path.join(os.tmpdir(), 'subagents-secrets-home-'));
  data = path.join(home, 'data');
  await mkdir(path.join(project, '.claude/agents'), { recursive: true });
  await writeFile(path.join(project, '.claude/agents/leaky.md'), '---\nname: leaky\ndescription: Leaks\ntools: Read\n---\nYou leak. [agent:leaky]\n');
  await writeFile(path.join(project, '.env'), `ANTHROPIC_API_KEY=${KEY}\n`);
});

after(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

function env(): NodeJS.ProcessEnv {
  return { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, HOME: home, XDG_DATA_HOME: data };
}

async function filesUnder(dir: string): Promise<Array<{ file: string; text: string }>> {
  const out: Array<{ file: string; text: string }> = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.push({ file, text: await readFile(file, 'utf8') });
  }
  return out;
}

async function assertNoKeyAnywhere(r: { stdout: string; stderr: string }): Promise<void> {
  assert.equal(r.stdout.includes(KEY), false, `stdout holds the key: ${r.stdout}`);
  assert.equal(r.stderr.includes(KEY), false, `stderr holds the key: ${r.stderr}`);
  const saved = await filesUnder(data);
  assert.ok(saved.some((f) => f.file.endsWith('.json')), 'the run was saved');
  for (const { file, text } of saved) assert.equal(text.includes(KEY), false, `${file} holds the key`);
}

test('a 401 whose message echoes the key: redacted in the NDJSON result, on stderr and in the saved run', async () => {
  server.setScript(() => ({ error: { status: 401, type: 'authentication_error', message: `invalid x-api-key: ${KEY}` } }));
  for (const json of [true, false]) {
    const r = await runCliProcess(['run', 'leaky', 'hi', '--cwd', project, ...(json ? ['--json'] : [])], { env: env() });
    assert.equal(r.code, 1);
    await assertNoKeyAnywhere(r);
    assert.match(json ? r.stdout : r.stderr, /The API key was rejected \(401\): invalid x-api-key: \[redacted\]/);
  }
});

test('the key read from a file by a tool and repeated by the model across stream chunks: redacted in events, answer, transcript and history', async () => {
  server.setScript((req) => {
    if (req.turn === 0) return { toolUses: [{ name: 'Read', input: { file_path: '.env' } }] };
    // The tool result reaches the model redacted; a model that knows the key anyway repeats it,
    // streamed in 24-character chunks, so the key is split across several text events.
    assert.match([...req.toolResults.values()][0]!.content, /ANTHROPIC_API_KEY=\[redacted\]/);
    return { text: `The key is ${KEY} — keep it safe.` };
  });
  for (const json of [true, false]) {
    const r = await runCliProcess(['run', 'leaky', 'read .env', '--cwd', project, ...(json ? ['--json'] : [])], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    await assertNoKeyAnywhere(r);
    if (json) {
      const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; text?: string; output?: string });
      const streamed = events.filter((e) => e.type === 'text').map((e) => e.text).join('');
      assert.equal(streamed, 'The key is [redacted] — keep it safe.', 'the text events put together');
      assert.equal(events.at(-1)!.output, 'The key is [redacted] — keep it safe.');
    } else {
      assert.equal(r.stdout, 'The key is [redacted] — keep it safe.\n');
    }
  }
  const transcripts = (await filesUnder(data)).filter((f) => f.file.endsWith('.ndjson'));
  assert.ok(transcripts.some((f) => f.text.includes('ANTHROPIC_API_KEY=[redacted]')), 'the tool result is in the transcript, redacted');
});

/** Whether `text` holds 16 or more characters of the key in a row: a key cut anywhere still leaks that much. */
function leaksPartOfKey(text: string): boolean {
  for (let i = 0; i + 16 <= KEY.length; i++) if (text.includes(KEY.slice(i, i + 16))) return true;
  return false;
}

test('the key escapes nowhere: not cut before redaction, not as an object key, not in a hook\'s input or stderr, not in a worktree commit', async (t) => {
  const repo = await mkdtemp(path.join(os.tmpdir(), 'subagents-secrets-repo-'));
  const userHome = await mkdtemp(path.join(os.tmpdir(), 'subagents-secrets-home-'));
  t.after(() => Promise.all([rm(repo, { recursive: true, force: true }), rm(userHome, { recursive: true, force: true })]));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  git('init', '-q');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'start');
  await mkdir(path.join(repo, '.claude/agents'), { recursive: true });
  await writeFile(path.join(repo, '.claude/agents/spill.md'), '---\nname: spill\ndescription: Spills\ntools: Read, Write, Task\n---\nYou spill. [agent:spill]\n');
  await writeFile(path.join(repo, '.claude/agents/helper.md'), '---\nname: helper\ndescription: Helps\ntools: Write\n---\nYou help. [agent:helper]\n');
  // A user hook (it runs unasked) that keeps its input and prints the key on stderr.
  const hookInput = path.join(userHome, 'stop-input.json');
  await mkdir(path.join(userHome, '.claude'));
  await writeFile(path.join(userHome, '.env'), `ANTHROPIC_API_KEY=${KEY}\n`);
  await writeFile(
    path.join(userHome, '.claude/settings.json'),
    JSON.stringify({ hooks: { SubagentStop: [{ hooks: [{ type: 'command', command: `cat > '${hookInput}'; cat '${userHome}/.env' >&2; exit 1` }] }] } }),
  );
  // A prompt whose first line is cut to make the description: the cut falls inside the key.
  const padded = `${'p'.repeat(40)} ${KEY}`;
  server.setScript((req) => {
    if (req.system.includes('[agent:helper]')) {
      return req.turn === 0 ? { toolUses: [{ name: 'Write', input: { file_path: 'out.txt', content: 'done\n' } }] } : { text: 'helped' };
    }
    if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'helper', description: `deploy with ${KEY}`, prompt: 'help', isolation: 'worktree' } }] };
    if (req.turn === 1) return { toolUses: [{ name: 'Read', input: { file_path: 'README.md', [KEY]: true } }] };
    return { text: `final answer with ${KEY}` };
  });
  const r = await runCliProcess(['run', 'spill', padded, '--json', '--permission-mode', 'acceptEdits', '--cwd', repo], { env: { ...env(), HOME: userHome } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /SubagentStop hook .* exited with code 1: ANTHROPIC_API_KEY=\[redacted\]/, 'the hook ran and its stderr was shown');
  assert.equal(leaksPartOfKey(r.stdout), false, `stdout: ${r.stdout}`);
  assert.equal(leaksPartOfKey(r.stderr), false, `stderr: ${r.stderr}`);
  const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; description?: string });
  assert.ok(events.some((e) => e.type === 'agent_started' && e.description?.startsWith('pppp') && e.description.includes('[redacted]')), 'the cut description shows the cut key redacted');
  for (const { file, text } of await filesUnder(data)) assert.equal(leaksPartOfKey(text), false, `${file} holds part of the key`);
  const input = await readFile(hookInput, 'utf8');
  assert.match(input, /"last_assistant_message":"final answer with \[redacted\]"/);
  assert.equal(leaksPartOfKey(input), false);
  const messages = git('log', '--all', '--format=%B');
  assert.match(messages, /subagents: helper: deploy with \[redacted\]/, 'the worktree was committed');
  assert.equal(leaksPartOfKey(messages), false, messages);
});
