import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { FanoutStore } from '../../../../src/core/isolation/fanout';
import { POOL_MAX_AGE_MS } from '../../../../src/core/isolation/pool';

const dir = mkdtempSync(path.join(os.tmpdir(), 'subagents-fanout-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the widest fan-out is remembered, seen by every process sharing the folder, and forgotten after a week unseen', async () => {
  const one = new FanoutStore(dir);
  const other = new FanoutStore(dir);
  assert.equal(await other.get('/repo/.git'), undefined);
  await one.note('/repo/.git', '/repo', 3);
  await one.note('/repo/.git', '/repo', 8);
  await one.note('/repo/.git', '/repo', 2);
  assert.equal((await one.get('/repo/.git'))?.widest, 8, 'a narrower fan-out does not shrink it');
  assert.equal((await other.get('/repo/.git'))?.widest, 8, 'another window sees what this one wrote');
  const later = Date.now() + POOL_MAX_AGE_MS + 1000;
  assert.equal(await other.get('/repo/.git', later), undefined);
  await other.note('/repo/.git', '/repo', 2, later);
  assert.equal((await one.get('/repo/.git', later))?.widest, 2, 'a week on, the width is what is run now');
});

test('emptying the pool pauses refills until the repository is used again', async () => {
  const store = new FanoutStore(dir);
  await store.note('/other/.git', '/other', 4);
  await store.pause('/other/.git');
  assert.equal((await store.get('/other/.git'))?.paused, true);
  await store.note('/other/.git', '/other', 1);
  const entry = await store.get('/other/.git');
  assert.deepEqual([entry?.paused, entry?.widest], [undefined, 4]);
});
