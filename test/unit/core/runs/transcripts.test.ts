import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TranscriptStore } from '../../../../src/core/runs/transcripts';

const message = (text: string) => ({ role: 'user' as const, content: text });

test('transcripts: appends keep their order, and no agent stays in the pending map once its appends settle, failed ones included', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-transcripts-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const store = new TranscriptStore(path.join(dir, 'transcripts'));
  const writes: Promise<void>[] = [];
  for (let agent = 0; agent < 50; agent++) {
    for (let n = 0; n < 3; n++) writes.push(store.append(`agent${agent}`, [message(`${agent}.${n}`)]));
  }
  assert.equal(store.pending, 50, 'one entry per agent while its appends are in flight');
  await Promise.all(writes);
  await store.flush();
  assert.equal(store.pending, 0);
  assert.deepEqual(await store.read('agent7'), [message('7.0'), message('7.1'), message('7.2')]);

  // A transcript folder that cannot be created: the append fails, and its entry still goes.
  const blocked = path.join(dir, 'a-file');
  await writeFile(blocked, '');
  const failing = new TranscriptStore(blocked);
  await assert.rejects(failing.append('agent', [message('lost')]));
  await failing.flush();
  assert.equal(failing.pending, 0);
});
