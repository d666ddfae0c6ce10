import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliProcess } from '../../support/cliProcess';
import { startScriptedServer } from '../../support/scriptedServer';
import { until } from '../../support/until';
import { makeSandbox, type Sandbox } from '../core/isolation/helpers';

// `subagents run --isolation worktree --base-ref`, and `subagents worktrees`
// showing kept and pooled worktrees with their disk use, `clean` emptying the pool.

/** A repository with an editor agent committed in it, removed after the test. */
function editorProject(t: { after(fn: () => void): void }): Sandbox {
  const sb = makeSandbox({ 'README.md': '# demo\n', 'app.txt': 'main\n' });
  t.after(() => sb.cleanup());
  mkdirSync(path.join(sb.repo, '.claude/agents'), { recursive: true });
  writeFileSync(path.join(sb.repo, '.claude/agents/editor.md'), '---\nname: editor\ndescription: Edits\ntools: Write\n---\nEdit. [agent:editor]\n');
  sb.git(['add', '-A']);
  sb.git(['commit', '-q', '-m', 'agents']);
  return sb;
}

test('CLI: run from a base ref, discard into the pool, list kept and pooled with disk use, clean', { timeout: 180_000 }, async (t) => {
  const sb = editorProject(t);
  sb.git(['checkout', '-q', '-b', 'release']);
  sb.write('app.txt', 'release\n');
  sb.git(['commit', '-qam', 'release']);
  sb.git(['checkout', '-q', 'main']);
  const server = await startScriptedServer((req) => (req.turn === 0 ? { toolUses: [{ name: 'Write', input: { file_path: 'made.txt', content: 'made\n' } }] } : { text: 'done' }));
  t.after(() => server.close());
  const config = path.join(sb.root, 'config');
  mkdirSync(path.join(config, 'subagents'), { recursive: true });
  writeFileSync(path.join(config, 'subagents', 'settings.json'), JSON.stringify({ 'worktrees.poolSize': 2 }));
  const env = { HOME: sb.root, XDG_DATA_HOME: path.join(sb.root, 'data'), XDG_CONFIG_HOME: config, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const cli = (...args: string[]) => runCliProcess(args, { env, cwd: sb.repo, timeoutMs: 60_000 });

  const run = await cli('run', 'editor', 'make it', '--isolation', 'worktree', '--base-ref', 'release', '--permission-mode', 'acceptEdits', '--json');
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { agentId: string };
  const kept = JSON.parse((await cli('worktrees', '--json')).stdout) as { worktrees: Array<{ agentId: string; branch: string; state: string; diskBytes: number }>; diskBytes: { kept: number; pooled: number } };
  const [wt] = kept.worktrees;
  assert.equal(wt?.state, 'finished');
  assert.equal(sb.git(['rev-parse', `${wt!.branch}~1`]).trim(), sb.git(['rev-parse', 'release']).trim(), 'it started from release');
  assert.ok(wt!.diskBytes > 0 && kept.diskBytes.kept === wt!.diskBytes);
  assert.match((await cli('worktrees')).stdout, new RegExp(`^Kept with changes \\(1\\), about [\\d.]+ KB:\\n${result.agentId}  finished`));

  const diff = JSON.parse((await cli('worktrees', 'diff', result.agentId, '--json')).stdout) as { agentId: string; diff: string };
  assert.equal(diff.agentId, result.agentId);
  assert.match(diff.diff, /\+\+\+ b\/made\.txt/);
  const discarded = await cli('worktrees', 'discard', result.agentId, '--json');
  assert.equal(discarded.code, 0);
  assert.deepEqual(JSON.parse(discarded.stdout), { discarded: result.agentId });
  const listed = await cli('worktrees');
  assert.match(listed.stdout, /^Pooled for reuse \(1\), about [\d.]+ KB of the 5\.0 GB budget \(delete with "subagents worktrees clean"\):\n {2}.+: 1 pooled \(keeps 2\), about/);
  assert.doesNotMatch(listed.stdout, /Kept with changes/);
  const pooled = JSON.parse((await cli('worktrees', '--json')).stdout) as { pool: Array<{ worktrees: unknown[] }>; diskBytes: { pooled: number } };
  assert.equal(pooled.pool[0]?.worktrees.length, 1);
  assert.ok(pooled.diskBytes.pooled > 0);

  assert.match((await cli('worktrees', 'clean')).stdout, /^Deleted 1 pooled worktree\(s\), about [\d.]+ KB\.\n$/);
  assert.equal((await cli('worktrees')).stdout, 'No worktrees.\n');
  assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 1);

  const bad = await cli('run', 'editor', 'make it', '--isolation', 'worktree', '--base-ref', 'no-such', '--permission-mode', 'acceptEdits');
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /Cannot start editor from "no-such": there is no branch, tag or commit of that name/);
});

/** The pids of background `subagents worktrees maintain` processes working in `cwd` (Linux: from /proc). */
function backgroundUpkeeps(cwd: string): number[] {
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('worktrees\0maintain\0--background') && readlinkSync(`/proc/${pid}/cwd`) === cwd;
    } catch {
      return false;
    }
  }).map(Number);
}

test('CLI: a discard answers at once and a detached maintain cleans up after it; nothing left behind slows the next command', { timeout: 180_000 }, async (t) => {
  const sb = editorProject(t);
  const server = await startScriptedServer((req) => (req.turn === 0 ? { toolUses: [{ name: 'Write', input: { file_path: 'made.txt', content: 'made\n' } }] } : { text: 'done' }));
  t.after(() => server.close());
  const data = path.join(sb.root, 'data');
  const env = { HOME: sb.root, XDG_DATA_HOME: data, XDG_CONFIG_HOME: path.join(sb.root, 'config'), ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const background = { ...env, SUBAGENTS_NO_BACKGROUND: '' };
  const cli = (args: string[], e: NodeJS.ProcessEnv = env) => runCliProcess(args, { env: e, cwd: sb.repo, timeoutMs: 60_000 });
  const poolDir = path.join(data, 'subagents', 'worktrees', 'state', 'pool');
  const trash = path.join(data, 'subagents', 'worktrees', 'trees', '.trash');
  const entries = () => (existsSync(poolDir) ? readdirSync(poolDir).filter((n) => n.endsWith('.json')).map((n) => JSON.parse(readFileSync(path.join(poolDir, n), 'utf8')) as { ready?: boolean; worker?: unknown }) : []);

  const run = await cli(['run', 'editor', 'make it', '--isolation', 'worktree', '--permission-mode', 'acceptEdits', '--json']);
  assert.equal(run.code, 0, run.stderr);
  const { agentId } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { agentId: string };

  // Without background processes the discard leaves the cleaning to whoever comes next.
  assert.equal((await cli(['worktrees', 'discard', agentId])).code, 0);
  assert.deepEqual(entries().map((e) => e.ready), [false], 'handed back, not cleaned on the way');
  const listed = JSON.parse((await cli(['worktrees', '--json'])).stdout) as { pool: Array<{ worktrees: Array<{ ready: boolean }> }> };
  assert.deepEqual(listed.pool[0]?.worktrees.map((w) => w.ready), [false], 'listing does not clean either');

  // A command that may start one leaves the work to a detached maintain; the pool is ready once it is done.
  assert.equal((await cli(['worktrees'], background)).code, 0);
  await until('the background upkeep to end', () => backgroundUpkeeps(sb.repo).length === 0);
  assert.deepEqual(entries().map((e) => [e.ready, e.worker]), [[true, undefined]]);

  // A folder a killed upkeep left in the trash: the next command neither deletes it on its way nor waits for it.
  mkdirSync(path.join(trash, 'wt-left', 'a', 'b'), { recursive: true });
  writeFileSync(path.join(trash, 'wt-left', 'a', 'b', 'file.txt'), 'x');
  assert.equal((await cli(['worktrees'])).code, 0);
  assert.ok(existsSync(path.join(trash, 'wt-left')), 'not deleted at start-up');
  assert.equal((await cli(['worktrees'], background)).code, 0);
  await until('the background upkeep to end', () => backgroundUpkeeps(sb.repo).length === 0);
  assert.deepEqual(readdirSync(trash), []);

  const maintained = JSON.parse((await cli(['worktrees', 'maintain', '--json'])).stdout) as Record<string, number>;
  assert.deepEqual([maintained.cleaned, maintained.deleted, maintained.filled], [0, 0, 0], 'nothing was left to do');
});
