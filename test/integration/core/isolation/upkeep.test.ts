import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { BackgroundUpkeep, WorktreeManager, type WorktreeManagerOptions } from '../../../../src/core/isolation';
import { MOVE_AT_IDLE_PATHS } from '../../../../src/core/isolation/upkeep';
import { countGitCalls, makeSandbox, type Sandbox } from './helpers';

const sandboxes: Sandbox[] = [];
after(() => sandboxes.forEach((sb) => sb.cleanup()));

function sandbox(): Sandbox {
  const files: Record<string, string> = { '.gitignore': 'build/\n' };
  for (let i = 0; i < 40; i++) files[`src/f${i}.ts`] = `export const v${i} = ${i};\n`;
  const sb = makeSandbox(files);
  sandboxes.push(sb);
  return sb;
}

function manager(sb: Sandbox, opts: Partial<WorktreeManagerOptions> = {}): WorktreeManager {
  const m = new WorktreeManager({ stateDir: sb.stateDir, worktreesRoot: sb.worktreesRoot, poolSize: () => 2, poolGrows: () => true, ...opts });
  after(() => m.dispose());
  return m;
}

/** A run tree `group` fans out `width` isolated agents, each leaving a change; returns their ids. */
async function fanOut(m: WorktreeManager, sb: Sandbox, group: string, width: number): Promise<string[]> {
  const ids = Array.from({ length: width }, (_, i) => `${group}-${i}`);
  const recs = await Promise.all(ids.map((agentId) => m.create({ cwd: sb.repo, agentName: 'editor', agentId, group })));
  for (const [i, rec] of recs.entries()) sb.write(`out/${group}-${i}.txt`, `work ${i}\n`, rec.path);
  await Promise.all(ids.map((id) => m.finish(id)));
  return ids;
}

const pooledCount = async (m: WorktreeManager) => (await m.poolStatus()).reduce((n, p) => n + p.worktrees.length, 0);
const trash = (sb: Sandbox) => (existsSync(path.join(sb.worktreesRoot, '.trash')) ? readdirSync(path.join(sb.worktreesRoot, '.trash')) : []);

test('the pool grows to the widest fan-out of a run tree, and the next process remembers it', async () => {
  const sb = sandbox();
  const m = manager(sb);
  const ids = await fanOut(m, sb, 'tree-1', 5);
  for (const id of ids) await m.discard(id);
  assert.equal(await pooledCount(m), 5, 'all five handed back: the pool keeps as many as one tree used, not poolSize 2');
  assert.deepEqual(trash(sb), [], 'nothing was deleted');

  const next = manager(sb);
  const [status] = await next.poolStatus();
  assert.equal(status?.size, 5);
  assert.equal(status?.widest, 5);
  const again = await Promise.all([0, 1, 2, 3, 4].map((i) => next.create({ cwd: sb.repo, agentName: 'editor', agentId: `tree-2-${i}`, group: 'tree-2' })));
  assert.deepEqual(again.map((r) => r.prepared), ['reused', 'reused', 'reused', 'reused', 'reused'], 'the next fan-out is warm');

  // A fixed size does not grow.
  const fixed = manager(sb, { poolGrows: () => false });
  for (const r of again) await fixed.finish(r.agentId);
  assert.equal(await pooledCount(fixed), 2);
});

test('a discard answers without cleaning: the folder goes back not ready, the upkeep cleans it and deletes the trash', async () => {
  const sb = sandbox();
  const m = manager(sb, { poolSize: () => 1, poolGrows: () => false });
  const [first, second] = await fanOut(m, sb, 'tree', 2);
  const keep = (await m.list()).find((r) => r.agentId === first)!;
  sb.write('build/output.log', 'ignored output\n', keep.path);
  const discards = await countGitCalls(sb.root, 'clean', async () => {
    await m.discard(first!);
    await m.discard(second!);
  });
  assert.equal(discards.calls, 0, 'no git clean on the way of a discard');
  const [status] = await m.poolStatus();
  assert.deepEqual(status?.worktrees.map((w) => [w.path, w.ready]), [[keep.path, false]]);
  assert.equal(trash(sb).length, 1, 'the worktree past the pool size waits in the trash');
  assert.equal(await m.upkeepPending(), true);

  const pass = await m.maintain();
  assert.equal(pass?.cleaned, 1);
  assert.equal(pass?.deleted, 1);
  assert.deepEqual(trash(sb), []);
  assert.equal(existsSync(path.join(keep.path, 'build')), false, 'ignored files are gone');
  assert.equal(sb.git(['status', '--porcelain', '--ignored'], keep.path), '');
  assert.deepEqual((await m.poolStatus())[0]?.worktrees.map((w) => w.ready), [true]);
  assert.equal(await m.upkeepPending(), false);
});

test('the disk budget bounds every pool together; lowering it evicts the least recently pooled at the next pass', async () => {
  const sb = sandbox();
  let budget = Number.POSITIVE_INFINITY;
  const m = manager(sb, { poolSize: () => 8, poolBudgetBytes: () => budget });
  const ids = await fanOut(m, sb, 'tree', 4);
  await m.discard(ids[0]!);
  await m.maintain();
  const one = (await m.poolStatus())[0]!.diskBytes;
  assert.ok(one > 0);
  budget = Math.floor(2.5 * one);
  for (const id of ids.slice(1)) await m.discard(id);
  assert.equal(await pooledCount(m), 2, 'two fit in the budget; the others went to the trash');
  await m.maintain();
  const [kept] = await m.poolStatus();
  assert.ok(kept!.diskBytes <= budget);

  budget = Math.floor(1.5 * one);
  const newest = kept!.worktrees.reduce((a, b) => (a.pooledAt >= b.pooledAt ? a : b));
  assert.equal(await m.upkeepPending(), true);
  const pass = await m.maintain();
  assert.equal(pass?.evicted, 1);
  assert.deepEqual((await m.poolStatus())[0]?.worktrees.map((w) => w.path), [newest.path], 'the least recently pooled went');
  assert.deepEqual(trash(sb), []);

  budget = 0;
  await m.maintain();
  assert.deepEqual(await m.poolStatus(), [], 'a budget of 0 keeps nothing');
});

test('the upkeep refills a pool its worktrees were lost from, up to the widest fan-out, at the current commit; it stops for an agent', async () => {
  const sb = sandbox();
  const m = manager(sb);
  const ids = await fanOut(m, sb, 'tree', 3);
  for (const id of ids) await m.discard(id);
  await m.maintain();
  assert.equal(await pooledCount(m), 3);

  // New checkout settings: no pooled worktree may be reused; the upkeep replaces them.
  sb.git(['config', 'filter.upkeep-test.clean', 'cat']);
  sb.write('src/new.ts', 'export const added = true;\n');
  sb.git(['add', '-A']);
  sb.git(['commit', '-q', '-m', 'the user moves on']);
  const head = sb.git(['rev-parse', 'HEAD']).trim();
  const pass = await m.maintain();
  assert.equal(pass?.evicted, 3, 'the worktrees of the old settings went');
  assert.equal(pass?.filled, 3);
  const [status] = await m.poolStatus();
  assert.deepEqual(status?.worktrees.map((w) => [w.head, w.ready]), [[head, true], [head, true], [head, true]]);
  for (const w of status!.worktrees) {
    assert.equal(sb.read('src/new.ts', w.path), 'export const added = true;\n');
    assert.equal(sb.git(['status', '--porcelain', '--ignored'], w.path), '');
  }
  assert.equal(await m.upkeepPending(), false, 'nothing is left to do');

  // Worktrees agents hold count: a fan-out that keeps all three needs no refill.
  const held = await fanOut(m, sb, 'tree-2', 3);
  assert.equal(await m.upkeepPending(), false, 'the three held worktrees come back when discarded');
  for (const id of held) await m.discard(id);
  await m.emptyPool();
  await m.maintain();
  assert.equal(await pooledCount(m), 0, 'after Clean Up, nothing is refilled until an isolated agent runs again');

  // One isolated agent runs again: the pool is refilled to the remembered width, and a pass stops when an agent starts.
  const one = await m.create({ cwd: sb.repo, agentName: 'editor', agentId: 'tree-3-0', group: 'tree-3' });
  await m.finish(one.agentId);
  assert.equal(await pooledCount(m), 1);
  const poolDir = path.join(sb.stateDir, 'pool');
  const entries = () => readdirSync(poolDir).filter((n) => n.endsWith('.json')).length;
  const first = await m.maintain({ shouldStop: () => entries() >= 2 });
  assert.deepEqual([first?.stopped, first?.filled], [true, 1], 'the pass stopped after the worktree it was making');
  const rest = await m.maintain();
  assert.equal(rest?.filled, 1);
  assert.equal(await pooledCount(m), 3);
});

test('the upkeep moves pooled worktrees to the user\'s new commit, so a spawn only lays the uncommitted changes on top', async () => {
  const sb = sandbox();
  const m = manager(sb);
  const ids = await fanOut(m, sb, 'tree', 2);
  for (const id of ids) await m.discard(id);
  await m.maintain();
  // A pull: more paths than a spawn would want to move itself.
  for (let i = 0; i < 30; i++) sb.write(`src/f${i}.ts`, `export const v${i} = ${i + 1000};\n`);
  for (let i = 0; i < MOVE_AT_IDLE_PATHS; i++) sb.write(`lib/new${i}.ts`, `export const n${i} = ${i};\n`);
  sb.git(['add', '-A']);
  sb.git(['commit', '-q', '-m', 'a big change']);
  const head = sb.git(['rev-parse', 'HEAD']).trim();
  const pass = await m.maintain();
  assert.equal(pass?.moved, 2);
  assert.deepEqual((await m.poolStatus())[0]?.worktrees.map((w) => w.head), [head, head]);
  sb.write('src/f0.ts', 'export const v0 = "uncommitted";\n');
  const spawn = await countGitCalls(sb.root, 'read-tree', () => m.create({ cwd: sb.repo, agentName: 'editor', agentId: 'after', group: 'next' }));
  assert.equal(spawn.calls, 0, 'no walk of the whole tree on the way');
  assert.equal(sb.read('src/f0.ts', spawn.result.path), 'export const v0 = "uncommitted";\n');
  assert.equal(sb.read('src/f29.ts', spawn.result.path), 'export const v29 = 1029;\n');
  assert.equal(sb.read('lib/new0.ts', spawn.result.path), 'export const n0 = 0;\n');

  // A small change (a commit of one file) is left to the next spawn: moving ahead would buy nothing.
  await m.finish('after');
  await m.maintain();
  sb.git(['commit', '-q', '-am', 'one file']);
  assert.equal((await m.maintain())?.moved, 0);
});

test('the background upkeep runs when no agent is at work, and waits while one is', async () => {
  const sb = sandbox();
  const m = manager(sb);
  const ids = await fanOut(m, sb, 'tree', 2);
  let busy = true;
  let askedWhileBusy!: () => void;
  const asked = new Promise<void>((resolve) => (askedWhileBusy = resolve));
  const passes: number[] = [];
  const upkeep = new BackgroundUpkeep(m, {
    busy: () => {
      if (busy) askedWhileBusy();
      return busy;
    },
    delayMs: 1,
    onPass: (report) => passes.push(report.cleaned),
  });
  after(() => upkeep.dispose());
  for (const id of ids) await m.discard(id);
  await asked;
  assert.deepEqual(passes, [], 'no pass while an agent works');
  assert.deepEqual((await m.poolStatus())[0]?.worktrees.map((w) => w.ready), [false, false]);
  busy = false;
  await upkeep.idle();
  assert.deepEqual((await m.poolStatus())[0]?.worktrees.map((w) => w.ready), [true, true]);
  assert.equal(passes.reduce((a, b) => a + b, 0), 2);
});

test('a trash folder a previous process left is deleted by the upkeep, not on the way of a start-up', async () => {
  const sb = sandbox();
  const left = path.join(sb.worktreesRoot, '.trash', 'wt-left-behind');
  mkdirSync(path.join(left, 'deep', 'er'), { recursive: true });
  writeFileSync(path.join(left, 'deep', 'er', 'file.txt'), 'x');
  const m = manager(sb);
  await m.recover();
  assert.ok(existsSync(left), 'start-up leaves it');
  assert.equal(await m.upkeepPending(), true);
  assert.equal((await m.maintain())?.deleted, 1);
  assert.equal(existsSync(left), false);
});

test('the process that keeps the pool (the agent host) cleans what another process hands back, told by the pool folders', async () => {
  const sb = sandbox();
  const keeper = manager(sb);
  let cleaned = 0;
  let allCleaned!: () => void;
  const done = new Promise<void>((resolve) => (allCleaned = resolve));
  const upkeep = new BackgroundUpkeep(keeper, {
    busy: () => false,
    delayMs: 1,
    watchOthers: true,
    onPass: (report) => {
      cleaned += report.cleaned;
      if (cleaned >= 2) allCleaned();
    },
  });
  after(() => upkeep.dispose());
  await upkeep.idle();
  // A window (or a terminal) with a manager of its own: nothing it does reaches the keeper in process.
  const window = manager(sb);
  const ids = await fanOut(window, sb, 'tree', 2);
  for (const id of ids) await window.discard(id);
  await done;
  await upkeep.idle();
  assert.deepEqual((await keeper.poolStatus())[0]?.worktrees.map((w) => w.ready), [true, true]);
});

test('a long-lived process refills a pool that new checkout settings made unusable, with nobody telling it', async () => {
  const sb = sandbox();
  const m = manager(sb);
  for (const id of await fanOut(m, sb, 'tree', 2)) await m.discard(id);
  await m.maintain();
  let refilled!: () => void;
  const done = new Promise<void>((resolve) => (refilled = resolve));
  const upkeep = new BackgroundUpkeep(m, { busy: () => false, delayMs: 1, recheckMs: 20, onPass: (report) => report.filled >= 2 && refilled() });
  after(() => upkeep.dispose());
  await upkeep.idle();
  // What `git lfs install` does: no process of ours sees it happen.
  sb.git(['config', 'filter.upkeep-test.clean', 'cat']);
  await done;
  await upkeep.idle();
  assert.equal(await m.upkeepPending(), false);
  assert.deepEqual((await m.poolStatus())[0]?.worktrees.map((w) => w.ready), [true, true]);
});
