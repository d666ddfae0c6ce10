import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PoolStore, type PooledWorktree } from '../../../../src/core/isolation/pool';

test('pool entries: versioned; a newer version is left for the build that wrote it, a broken one costs only its reuse', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-poolstore-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const store = new PoolStore(dir);
  const entry: PooledWorktree = { kind: 'subagents-pooled-worktree', version: 1, path: '/t/wt-1', commonDir: '/r/.git', repoRoot: '/r', head: 'abc', shape: 's', createdAt: 1, pooledAt: 2 };
  await store.add(entry);
  const [written] = await readdir(dir);
  assert.equal(JSON.parse(await readFile(path.join(dir, written!), 'utf8')).version, 1);
  await writeFile(path.join(dir, 'newer.json'), JSON.stringify({ ...entry, version: 2, path: '/t/wt-2' }));
  await writeFile(path.join(dir, 'broken.json'), '{"kind":"subagents-pooled-worktree","vers');
  assert.deepEqual((await store.list()).map((e) => e.path), ['/t/wt-1']);
  assert.deepEqual((await readdir(dir)).sort(), [written!, 'newer.json'].sort(), 'the newer entry stays; the broken one is removed');
});
