import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, test } from 'node:test';
import { branchExists, countGitCalls, gitOverlapProbe, makeSandbox, maxConcurrentGit, type Sandbox } from './helpers';

const CHURN_CHILD = path.join(import.meta.dirname, 'churnChild.ts');
const ROOT = path.join(import.meta.dirname, '../../../..');

const sandboxes: Sandbox[] = [];
after(() => sandboxes.forEach((sb) => sb.cleanup()));

test('eight isolated spawns in one repository all get a worktree, and all finish in parallel', async () => {
  const sb = makeSandbox();
  sandboxes.push(sb);
  sb.write('src/app.ts', 'export const a = "uncommitted";\n'); // makes every create take a snapshot
  const before = sb.userState();
  const m = sb.manager();
  const ids = Array.from({ length: 8 }, (_, i) => `parallel-${i}`);

  // The checkouts run outside the repository lock: they must really overlap.
  const created = await maxConcurrentGit(sb.root, 'reset --hard', () => Promise.all(ids.map((agentId, i) => m.create({ cwd: sb.repo, agentName: `worker ${i % 3}`, agentId }))));
  assert.ok(created.maxConcurrent >= 2, `worktree checkouts ran one at a time (at most ${created.maxConcurrent} at once)`);
  const records = created.result;
  assert.equal(new Set(records.map((r) => r.branch)).size, 8);
  assert.equal(new Set(records.map((r) => r.path)).size, 8);
  for (const r of records) {
    assert.equal(sb.read('src/app.ts', r.path), 'export const a = "uncommitted";\n');
    assert.equal(r.state, 'active');
  }
  assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 9);

  // Even-numbered agents change something, odd ones do not.
  records.forEach((r, i) => {
    if (i % 2 === 0) sb.write(`out/result-${i}.txt`, `agent ${i}\n`, r.path);
  });
  // Each agent's changes are staged in its own worktree's index: that work overlaps too.
  const finished = await maxConcurrentGit(sb.root, 'add -A --ignore-errors', () => Promise.all(ids.map((id) => m.finish(id))));
  assert.ok(finished.maxConcurrent >= 2, `finishing ran one worktree at a time (at most ${finished.maxConcurrent} at once)`);
  const infos = finished.result;
  infos.forEach((info, i) => {
    if (i % 2 === 0) assert.equal(info?.filesChanged, 1, `agent ${i} kept its change`);
    else assert.equal(info, null, `agent ${i} had nothing`);
  });
  records.forEach((r, i) => {
    assert.equal(existsSync(r.path), i % 2 === 0);
    assert.equal(branchExists(sb, r.branch), i % 2 === 0);
  });
  assert.deepEqual({ ...sb.userState(), refs: '' }, { ...before, refs: '' });

  await Promise.all(ids.filter((_, i) => i % 2 === 0).map((id) => m.discard(id)));
  assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 1);
  assert.equal(sb.git(['branch', '--list', 'subagents/*']), '');
});

test('two managers (two windows) creating at once in one repository do not collide', async () => {
  const sb = makeSandbox();
  sandboxes.push(sb);
  const [m1, m2] = [sb.manager(), sb.manager()];
  const recs = await Promise.all([
    ...[0, 1, 2].map((i) => m1.create({ cwd: sb.repo, agentName: 'same', agentId: `w1-${i}` })),
    ...[0, 1, 2].map((i) => m2.create({ cwd: sb.repo, agentName: 'same', agentId: `w2-${i}` })),
  ]);
  assert.equal(new Set(recs.map((r) => r.branch)).size, 6);
  await Promise.all([...[0, 1, 2].map((i) => m1.finish(`w1-${i}`)), ...[0, 1, 2].map((i) => m2.finish(`w2-${i}`))]);
  assert.equal(sb.git(['branch', '--list', 'subagents/*']), '');
});

test('a lock held by another git process is waited for, not failed on', async () => {
  const sb = makeSandbox();
  sandboxes.push(sb);
  const m = sb.manager();
  const rec = await m.create({ cwd: sb.repo, agentName: 'locked', agentId: 'lock-1' });
  // Another process (say, the user's `git gc` or VS Code's git) holds packed-refs
  // while our finish wants to delete the branch; longer than the second git
  // itself waits (core.packedRefsTimeout), so our retry has to carry it.
  const lock = path.join(sb.repo, '.git', 'packed-refs.lock');
  writeFileSync(lock, '');
  const release = setTimeout(() => void rm(lock, { force: true }), 2500);
  const started = Date.now();
  try {
    assert.equal(await m.finish('lock-1'), null);
    assert.ok(Date.now() - started >= 2400, 'finish waited for the lock');
  } finally {
    clearTimeout(release);
    await rm(lock, { force: true });
  }
  assert.equal(branchExists(sb, rec.branch), false);
});

test('processes making worktrees in one repository take turns at git\'s worktree bookkeeping, and all succeed', async () => {
  const sb = makeSandbox();
  sandboxes.push(sb);
  // Each `git worktree …` is held a moment: any two processes in it at once would show.
  const probe = gitOverlapProbe(sb.root, 'worktree', 150);
  const processes = 4;
  const results = await Promise.all(
    Array.from({ length: processes }, (_, p) =>
      new Promise<{ code: number | null; stderr: string; branches: string[] }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', CHURN_CHILD, sb.stateDir, sb.worktreesRoot, sb.repo, `proc${p}`, '2'], {
          cwd: ROOT,
          env: probe.env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
        child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
        child.on('exit', (code) => resolve({ code, stderr, branches: stdout.trim().split('\n').filter(Boolean) }));
      }),
    ),
  );
  assert.deepEqual(results.map((r) => [r.code, r.stderr]), results.map(() => [0, '']));
  assert.equal(new Set(results.flatMap((r) => r.branches)).size, processes * 2, 'every worktree got a branch of its own');
  assert.equal(probe.maxConcurrent(), 1, 'two processes ran git worktree commands at the same time');
  assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 1);
  assert.equal(sb.git(['branch', '--list', 'subagents/*']), '');
});

test('spawns that start together share one snapshot of the user\'s tree; a later one takes its own', async () => {
  const sb = makeSandbox();
  sandboxes.push(sb);
  sb.write('src/app.ts', 'export const a = "uncommitted";\n');
  const m = sb.manager();
  const together = await countGitCalls(sb.root, 'add -A --ignore-errors', () => Promise.all([0, 1, 2, 3, 4, 5].map((i) => m.create({ cwd: sb.repo, agentName: 'w', agentId: `snap-${i}` }))));
  // One walk for all six (two at worst, should one spawn be slower to find the repository than the walk takes).
  assert.ok(together.calls <= 2, `${together.calls} walks of the tree for six agents started together`);
  for (const r of together.result) assert.equal(sb.read('src/app.ts', r.path), 'export const a = "uncommitted";\n');
  sb.write('src/app.ts', 'export const a = "edited since";\n');
  const later = await countGitCalls(sb.root, 'add -A --ignore-errors', () => m.create({ cwd: sb.repo, agentName: 'w', agentId: 'snap-later' }));
  assert.equal(later.calls, 1);
  assert.equal(sb.read('src/app.ts', later.result.path), 'export const a = "edited since";\n', 'a snapshot is not kept once taken');
});
