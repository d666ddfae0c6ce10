import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConcurrencySlot } from '../../../../../src/core/engine/tree/concurrencySlot';
import { Semaphore } from '../../../../../src/core/engine/tree/limiter';
import { BackgroundAgents } from '../../../../../src/core/engine/tree/backgroundAgents';

/** Whether the limiter has a free place now (a take that does not have to wait). */
async function free(limiter: Semaphore): Promise<boolean> {
  const probe = new AbortController();
  const taken = limiter.acquire(probe.signal).then(
    () => true,
    () => false,
  );
  await new Promise((resolve) => setImmediate(resolve));
  probe.abort();
  const got = await taken;
  if (got) limiter.release();
  return got;
}

test('a slot lends its place while it waits for children and takes it back after', async () => {
  const limiter = new Semaphore(1);
  const slot = new ConcurrencySlot(limiter, new AbortController().signal);
  await slot.take();
  assert.equal(slot.held, true);
  assert.equal(await free(limiter), false);
  const during = await slot.whileWaiting(async () => ({ held: slot.held, free: await free(limiter) }));
  assert.deepEqual(during, { held: false, free: true });
  assert.equal(slot.held, true, 'taken back once the wait is over');
  assert.equal(await free(limiter), false);
});

test('nested waits lend the place once and take it back once', async () => {
  const limiter = new Semaphore(1);
  const slot = new ConcurrencySlot(limiter, new AbortController().signal);
  await slot.take();
  let release!: () => void;
  const first = slot.whileWaiting(() => new Promise<void>((resolve) => (release = resolve)));
  await slot.whileWaiting(async () => undefined);
  assert.equal(slot.held, false, 'still lent: the first wait goes on');
  release();
  await first;
  assert.equal(slot.held, true);
  slot.close();
  assert.equal(await free(limiter), true);
});

test('closing releases once, however often it is called; a place granted after closing goes straight back', async () => {
  const limiter = new Semaphore(1);
  const slot = new ConcurrencySlot(limiter, new AbortController().signal);
  await slot.take();
  slot.close();
  slot.close();
  assert.equal(await free(limiter), true);
  // Only one place: a double release would have let two holders in.
  await limiter.acquire();
  assert.equal(await free(limiter), false);
  limiter.release();

  const waiting = new ConcurrencySlot(limiter, new AbortController().signal);
  await limiter.acquire();
  const take = waiting.take();
  waiting.close();
  limiter.release();
  await take;
  assert.equal(waiting.held, false);
  assert.equal(await free(limiter), true);
});

test('a slot whose agent is stopped while it waits does not take the place back', async () => {
  const limiter = new Semaphore(1);
  const controller = new AbortController();
  const slot = new ConcurrencySlot(limiter, controller.signal);
  await slot.take();
  await slot.whileWaiting(async () => controller.abort());
  assert.equal(slot.held, false);
  assert.equal(await free(limiter), true);
});

test('a root agent has an empty slot: nothing to take, lend or close', async () => {
  const slot = new ConcurrencySlot(null, new AbortController().signal);
  await slot.take();
  assert.equal(slot.held, false);
  assert.equal(await slot.whileWaiting(async () => 7), 7);
  slot.close();
});

test('background places: a reservation counts at once, is given back on failure or when the agent ends, and only once', async () => {
  const agents = new BackgroundAgents();
  const first = agents.reserve(2);
  const second = agents.reserve(2);
  assert.ok(typeof first !== 'string' && typeof second !== 'string');
  assert.match(agents.reserve(2) as string, /2 are running, the limit is 2 \(subagents\.maxBackgroundAgents\)/);
  first.release();
  first.release();
  assert.equal(agents.count, 1);
  let end!: () => void;
  second.holdUntil(new Promise<void>((resolve) => (end = resolve)));
  assert.equal(agents.count, 1, 'held while the agent runs');
  end();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(agents.count, 0);
});
