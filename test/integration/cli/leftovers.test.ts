import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorktreeRecord } from '../../../src/core/isolation';
import { runCliProcess } from '../../support/cliProcess';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';
import { branchExists, makeSandbox, type Sandbox } from '../core/isolation/helpers';

// Worktrees left by a CLI process that died are found by whichever command
// comes next, not only by "worktrees list": diff/apply/discard settle them
// first, and so do run and resume.

const CHILD = path.join(import.meta.dirname, '../core/isolation/crashChild.ts');
const ROOT = path.join(import.meta.dirname, '../../..');

let server: ScriptedServer;
let sb: Sandbox;
let env: NodeJS.ProcessEnv;

before(async () => {
  server = await startScriptedServer(() => ({ text: 'done' }));
  sb = makeSandbox();
  env = { HOME: path.join(sb.root, 'home'), XDG_DATA_HOME: path.join(sb.root, 'data'), XDG_CONFIG_HOME: path.join(sb.root, 'config'), XDG_CACHE_HOME: path.join(sb.root, 'cache'), ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url };
  mkdirSync(env.HOME!, { recursive: true });
  mkdirSync(path.join(sb.repo, '.claude/agents'), { recursive: true });
  writeFileSync(path.join(sb.repo, '.claude/agents/helper.md'), '---\nname: helper\ndescription: Helps\ntools: Read\n---\nHelp.\n');
});

after(async () => {
  await server.close();
  sb.cleanup();
});

/** An isolated agent started where the CLI keeps its worktrees, by a process killed before it finished. */
function crash(agentId: string, work: 'none' | 'change'): Promise<WorktreeRecord> {
  const dir = path.join(env.XDG_DATA_HOME!, 'subagents', 'worktrees');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, path.join(dir, 'state'), path.join(dir, 'trees'), sb.repo, agentId, work], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (!out.includes('\n')) return;
      child.once('exit', () => resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as WorktreeRecord));
      child.kill('SIGKILL');
    });
    child.once('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`the child exited (${code}) before creating its worktree`));
    });
  });
}

test('worktrees diff on a crashed run: its changes are committed first and shown', async () => {
  const rec = await crash('crash-diff', 'change');
  const r = await runCliProcess(['worktrees', 'diff', 'crash-diff'], { env, cwd: sb.repo });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\+work of crash-diff/);
  assert.match(r.stderr, /kept the worktree of crashy \(crash-diff\), left by an interrupted run, with 1 changed file\(s\) on branch subagents\/crashy-/);
  const applied = await runCliProcess(['worktrees', 'apply', 'crash-diff'], { env, cwd: sb.repo });
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(sb.read('crash-work.txt'), 'work of crash-diff\n');
  assert.doesNotMatch(applied.stderr, /kept the worktree/, 'said once, not on every command');
  assert.ok(branchExists(sb, rec.branch));
});

test('run finds the leftovers of a crashed run: unchanged ones removed, changed ones kept and named', async () => {
  const unchanged = await crash('crash-none', 'none');
  await crash('crash-kept', 'change');
  const r = await runCliProcess(['run', 'helper', 'go', '--json', '--cwd', sb.repo], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /removed 1 unchanged worktree\(s\) left by interrupted runs/);
  assert.match(r.stderr, /kept the worktree of crashy \(crash-kept\)/);
  assert.equal(branchExists(sb, unchanged.branch), false);
  const list = await runCliProcess(['worktrees', 'list', '--json'], { env });
  const listed = JSON.parse(list.stdout) as { worktrees: WorktreeRecord[]; pool: Array<{ worktrees: Array<{ path: string }> }> };
  assert.deepEqual(listed.worktrees.filter((x) => x.agentId === 'crash-kept').map((x) => x.state), ['finished']);
  assert.deepEqual(listed.worktrees.filter((x) => x.agentId === 'crash-none'), []);
  // The unchanged folder is deleted, or handed to the pool for the next isolated agent.
  const pooled = listed.pool.flatMap((p) => p.worktrees.map((w) => realpathSync(w.path)));
  assert.ok(!existsSync(unchanged.path) || pooled.includes(realpathSync(unchanged.path)), `${unchanged.path} is neither deleted nor pooled`);
});
