import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Semaphore } from '../../../../../src/core/engine/tree/limiter';

test('semaphore: FIFO, bounded, abortable', async () => {
  const s = new Semaphore(1);
  await s.acquire();
  const order: number[] = [];
  const controller = new AbortController();
  const a = s.acquire().then(() => order.push(1));
  const b = s.acquire(controller.signal).then(() => order.push(2), () => order.push(-2));
  const c = s.acquire().then(() => order.push(3));
  controller.abort();
  s.release();
  await a;
  s.release();
  await Promise.all([b, c]);
  assert.deepEqual(order, [-2, 1, 3]);
});
