import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { StateStore, type WorktreeRecord } from '../../../../src/core/isolation/stateStore';

const dir = mkdtempSync(path.join(os.tmpdir(), 'subagents-state-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function record(agentId: string, patch: Partial<WorktreeRecord> = {}): WorktreeRecord {
  return {
    kind: 'subagents-worktree',
    version: 1,
    agentId,
    agentName: 'a',
    repoRoot: '/r',
    commonDir: '/r/.git',
    path: `/w/${agentId}`,
    cwd: `/w/${agentId}`,
    branch: `subagents/${agentId}`,
    baseCommit: 'b'.repeat(40),
    userHead: 'b'.repeat(40),
    headCommit: 'b'.repeat(40),
    createdAt: 1,
    updatedAt: 1,
    state: 'active',
    owner: { pid: 1, host: 'h', instance: 'i' },
    ...patch,
  };
}

test('saves, reads back and removes records; no temp files left', async () => {
  const store = new StateStore(path.join(dir, 'a'));
  await store.save(record('one'));
  await store.save(record('two', { createdAt: 0 }));
  const { records, corrupt } = await store.loadAll();
  assert.deepEqual(records.map((r) => r.agentId), ['two', 'one'], 'oldest first');
  assert.deepEqual(corrupt, []);
  assert.equal(store.readSync('one')?.branch, 'subagents/one');
  assert.deepEqual(readdirSync(store.dir).sort(), ['one.json', 'two.json']);
  await store.remove('one');
  assert.equal(store.readSync('one'), undefined);
});

test('writes of one record land in call order', async () => {
  const store = new StateStore(path.join(dir, 'b'));
  await Promise.all(Array.from({ length: 20 }, (_, i) => store.save(record('x', { updatedAt: i }))));
  assert.equal(store.readSync('x')?.updatedAt, 19);
});

test('an unreadable record is moved aside; foreign and newer-version files are left alone', async () => {
  const store = new StateStore(path.join(dir, 'c'));
  await store.save(record('good'));
  writeFileSync(path.join(store.dir, 'truncated.json'), '{"kind":"subagents-worktree","ver');
  writeFileSync(path.join(store.dir, 'invalid.json'), JSON.stringify({ kind: 'subagents-worktree', version: 1, agentId: 3 }));
  writeFileSync(path.join(store.dir, 'future.json'), JSON.stringify({ kind: 'subagents-worktree', version: 2 }));
  writeFileSync(path.join(store.dir, 'other.json'), '{"something":"else"}');
  const { records, corrupt } = await store.loadAll();
  assert.deepEqual(records.map((r) => r.agentId), ['good']);
  assert.equal(corrupt.length, 2);
  const names = readdirSync(store.dir);
  assert.ok(names.includes('future.json') && names.includes('other.json'));
  assert.equal(names.filter((n) => /^(truncated|invalid)\.json\.corrupt-\d+$/.test(n)).length, 2);
  assert.equal(JSON.parse(readFileSync(path.join(store.dir, 'good.json'), 'utf8')).agentId, 'good');
});

test('a missing state folder is an empty store', async () => {
  const { records } = await new StateStore(path.join(dir, 'missing')).loadAll();
  assert.deepEqual(records, []);
});
