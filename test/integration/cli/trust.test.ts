import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CLI, runCliProcess } from '../../support/cliProcess';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';

/**
 * Project trust in the CLI (src/cli/trust.ts), through the built CLI: a
 * fresh clone's hooks do not run unasked; --trust-project, the user file's
 * trustedProjects and a yes on a terminal trust it; a project file cannot.
 */

let server: ScriptedServer;
const roots: string[] = [];

before(async () => {
  server = await startScriptedServer(() => ({ text: 'done' }));
});

after(async () => {
  await server.close();
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

/** A cloned project whose .claude/settings.json has a SubagentStart hook that leaves a mark. */
async function clone() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'subagents-trust-'));
  roots.push(root);
  const project = path.join(root, 'clone');
  const mark = path.join(root, 'hook-ran');
  await mkdir(path.join(project, '.claude', 'agents'), { recursive: true });
  await mkdir(path.join(root, 'home'));
  await writeFile(path.join(project, '.claude', 'agents', 'worker.md'), '---\nname: worker\ndescription: Works\n---\nYou work.\n');
  await writeFile(path.join(project, '.claude', 'settings.json'), JSON.stringify({ hooks: { SubagentStart: [{ hooks: [{ type: 'command', command: `touch '${mark}'` }] }] } }));
  const userFile = path.join(root, 'config', 'subagents', 'settings.json');
  return {
    root,
    project,
    userFile,
    user: async (text: string) => {
      await mkdir(path.dirname(userFile), { recursive: true });
      await writeFile(userFile, text);
    },
    hookRan: () => access(mark).then(() => true, () => false),
    forget: () => rm(mark, { force: true }),
    env: (): NodeJS.ProcessEnv => ({
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: server.url,
      HOME: path.join(root, 'home'),
      XDG_CONFIG_HOME: path.join(root, 'config'),
      XDG_DATA_HOME: path.join(root, 'data'),
      XDG_CACHE_HOME: path.join(root, 'cache'),
    }),
  };
}

test('with nobody to ask, a fresh clone runs with its hooks skipped and one warning saying how to trust it', async () => {
  const c = await clone();
  const r = await runCliProcess(['run', 'worker', 'go', '--json', '--cwd', c.project], { env: c.env() });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(await c.hookRan(), false, 'the project hook did not run');
  const warnings = r.stderr.split('\n').filter((l) => l.includes('warning'));
  assert.equal(warnings.length, 1, r.stderr);
  assert.match(warnings[0]!, new RegExp(`${c.project} is not a trusted folder, so what its files define is skipped: 1 hook command \\(${c.project}/\\.claude/settings\\.json\\)`));
  assert.match(warnings[0]!, /pass --trust-project for one command, or add ".*clone" to "trustedProjects" in .*config\/subagents\/settings\.json/);

  const flagged = await runCliProcess(['run', 'worker', 'go', '--json', '--trust-project', '--cwd', c.project], { env: c.env() });
  assert.equal(flagged.code, 0, flagged.stderr);
  assert.equal(await c.hookRan(), true, '--trust-project trusts it for the command');
  assert.doesNotMatch(flagged.stderr, /warning/);
  await assert.rejects(readFile(c.userFile, 'utf8'), { code: 'ENOENT' }, 'the flag is not remembered');
});

test('trustedProjects in the user file trusts the folder it lists (the project itself); the project cannot trust itself', async () => {
  const c = await clone();
  await mkdir(path.join(c.project, '.subagents'));
  await writeFile(path.join(c.project, '.subagents', 'settings.json'), JSON.stringify({ trustedProjects: [c.project] }));
  const self = await runCliProcess(['run', 'worker', 'go', '--json', '--cwd', c.project], { env: c.env() });
  assert.equal(self.code, 0, self.stderr);
  assert.equal(await c.hookRan(), false, "a project file's trustedProjects is ignored");
  assert.match(self.stderr, /"trustedProjects" is ignored: only the user settings file .* can trust a project/);
  assert.match(self.stderr, /is not a trusted folder/);

  await c.user(JSON.stringify({ trustedProjects: [c.project] }));
  const r = await runCliProcess(['run', 'worker', 'go', '--json', '--cwd', c.project], { env: c.env() });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(await c.hookRan(), true);
  assert.doesNotMatch(r.stderr, /is not a trusted folder/);
});

/** Runs the CLI on a pseudo-terminal (util-linux `script`), typing `typed` into it. */
function onTerminal(args: string[], env: NodeJS.ProcessEnv, typed: string): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: { PATH: process.env.PATH, TERM: 'dumb', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let asked = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      if (!asked && output.includes('[y]es / [N]o: ')) {
        asked = true;
        child.stdin.write(typed);
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

test('on a terminal the CLI asks once per folder; a yes runs the hooks and is remembered in the user file', async () => {
  const c = await clone();
  await c.user('// my settings\n{ "maxTurns": 20 }\n');
  const first = await onTerminal(['run', 'worker', 'go', '--cwd', c.project], c.env(), 'y\r');
  assert.equal(first.code, 0, first.output);
  assert.match(first.output, /Do you trust the files in this folder\?/);
  assert.match(first.output, new RegExp(`1 hook command \\(${c.project}/\\.claude/settings\\.json\\)`));
  assert.equal(await c.hookRan(), true);
  const text = await readFile(c.userFile, 'utf8');
  assert.match(text, /^\/\/ my settings\n/, 'the file keeps its comments');
  assert.deepEqual(JSON.parse(text.replace(/^\/\/.*\n/, '')), { maxTurns: 20, trustedProjects: [c.project] });

  await c.forget();
  const again = await onTerminal(['run', 'worker', 'go', '--cwd', c.project], c.env(), 'n\r');
  assert.equal(again.code, 0, again.output);
  assert.doesNotMatch(again.output, /Do you trust/, 'asked once');
  assert.equal(await c.hookRan(), true);
});

test('on a terminal a no runs without the hooks, says what was skipped, and asks again next time', async () => {
  const c = await clone();
  const r = await onTerminal(['run', 'worker', 'go', '--cwd', c.project], c.env(), 'n\r');
  assert.equal(r.code, 0, r.output);
  assert.equal(await c.hookRan(), false);
  assert.match(r.output, /is not a trusted folder, so what its files define is skipped/);
  await assert.rejects(readFile(c.userFile, 'utf8'), { code: 'ENOENT' });
});

test("a yes on the terminal that lets the project file's plugin folder apply runs that folder's agents", async () => {
  // The run discovers its agents once, before trust is decided; settings that trust changes make the run discover again.
  const c = await clone();
  await mkdir(path.join(c.project, 'plugins', 'lint', 'agents'), { recursive: true });
  await writeFile(path.join(c.project, 'plugins', 'lint', 'agents', 'checker.md'), '---\nname: checker\ndescription: Checks\n---\nYou check.\n');
  await mkdir(path.join(c.project, '.subagents'));
  await writeFile(path.join(c.project, '.subagents', 'settings.json'), JSON.stringify({ pluginDirs: ['plugins/lint'] }));
  const r = await onTerminal(['run', 'lint:checker', 'go', '--cwd', c.project], c.env(), 'y\r');
  assert.match(r.output, /settings pluginDirs/, 'the plugin folder was asked about');
  assert.equal(r.code, 0, r.output);
  assert.equal(await c.hookRan(), true);
});

test("resuming an isolated agent decides trust for the repository its worktree came from", async () => {
  const c = await clone();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: c.project, encoding: 'utf8' });
  git('init', '-q');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'start');
  await c.user(JSON.stringify({ trustedProjects: [c.project] }));
  server.setScript((req) => (req.turn === 0 && !req.lastUserText.includes('again') ? { toolUses: [{ name: 'Write', input: { file_path: 'out.txt', content: 'x\n' } }] } : { text: 'done' }));
  const first = await runCliProcess(['run', 'worker', 'go', '--json', '--isolation', 'worktree', '--permission-mode', 'acceptEdits', '--cwd', c.project], { env: c.env() });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(await c.hookRan(), true);
  await c.forget();
  const agentId = (JSON.parse(first.stdout.trim().split('\n').at(-1)!) as { agentId: string }).agentId;
  const again = await runCliProcess(['resume', agentId, 'again', '--json'], { env: c.env(), cwd: c.root });
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /not a trusted folder/);
  assert.equal(await c.hookRan(), true, "the repository's hook ran for the agent in its worktree");
  server.setScript(() => ({ text: 'done' }));
});
