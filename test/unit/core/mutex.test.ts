import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyedMutex } from '../../../src/core/mutex';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

test('runs one task at a time per key, in arrival order', async () => {
  const mutex = new KeyedMutex();
  const events: string[] = [];
  let inside = 0;
  const task = (name: string) =>
    mutex.run('repo', async () => {
      inside++;
      assert.equal(inside, 1, 'never two at once');
      events.push(`start ${name}`);
      await tick();
      events.push(`end ${name}`);
      inside--;
      return name;
    });
  assert.deepEqual(await Promise.all([task('a'), task('b'), task('c')]), ['a', 'b', 'c']);
  assert.deepEqual(events, ['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  assert.equal(mutex.isBusy('repo'), false, 'the key is forgotten when idle');
});

test('different keys do not wait for each other', async () => {
  const mutex = new KeyedMutex();
  let release!: () => void;
  const blocker = mutex.run('one', () => new Promise<void>((r) => (release = r)));
  assert.equal(await mutex.run('two', async () => 'done'), 'done');
  release();
  await blocker;
});

test('a failing task releases the lock', async () => {
  const mutex = new KeyedMutex();
  await assert.rejects(mutex.run('k', async () => Promise.reject(new Error('boom'))), /boom/);
  assert.equal(await mutex.run('k', async () => 'next'), 'next');
});
