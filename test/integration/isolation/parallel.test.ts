import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, test } from 'node:test';
import { branchExists, makeSandbox, maxConcurrentGit, type Sandbox } from './helpers';

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
