import { test } from 'node:test';
import assert from 'node:assert/strict';
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { formatWait, IdleTimeoutError, type NetworkPolicy } from '../../../../../src/core/engine/loop/network';
import { retryDecision, retryWait, requestedWait } from '../../../../../src/core/engine/loop/retryPolicy';

const policy: NetworkPolicy = { idleTimeoutMs: 60_000, turnTimeoutMs: 600_000, maxRetries: 4, maxRetryWaitMs: 60_000, baseDelayMs: 500 };

test('retry classification: the engine retries what the SDK would, and silent or broken streams', () => {
  const reason = (error: unknown, abort?: unknown) => retryDecision(error, abort, policy)?.reason ?? null;
  assert.equal(reason(new APIUserAbortError()), null, 'a stop by the user is not retried');
  assert.equal(reason(new APIUserAbortError(), new IdleTimeoutError('idle')), 'no data for 60 s', 'the idle watchdog aborted the attempt');
  assert.equal(reason(new APIConnectionError({ message: 'Connection error.' })), 'connection failed');
  assert.equal(reason(Object.assign(new APIError(undefined, { error: { type: 'overloaded_error' } }, 'x', undefined), { type: 'overloaded_error' })), 'overloaded (mid-stream)');
  assert.equal(reason(new APIError(529, {}, 'x', new Headers())), 'overloaded (529)');
  assert.equal(reason(new APIError(503, {}, 'x', new Headers())), 'server error (503)');
  assert.equal(reason(new APIError(400, {}, 'x', new Headers())), null);
  assert.equal(reason(new APIError(401, {}, 'x', new Headers())), null);
  assert.equal(reason(new APIError(400, {}, 'x', new Headers({ 'x-should-retry': 'true' }))), 'HTTP 400', 'the server may ask for a retry');
  assert.equal(reason(new APIError(500, {}, 'x', new Headers({ 'x-should-retry': 'false' }))), null, 'or forbid one');
  assert.equal(reason(new TypeError('terminated')), 'connection lost');
  assert.equal(reason(new Error('some bug')), null);
});

test('retry waits: the server\'s wait up to the cap, else exponential backoff with jitter', () => {
  assert.equal(requestedWait(new Headers({ 'retry-after-ms': '250' })), 250);
  assert.equal(requestedWait(new Headers({ 'retry-after': '3' })), 3000);
  assert.equal(requestedWait(new Headers({ 'retry-after': new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString() }), Date.UTC(2030, 0, 1)), 30_000);
  assert.equal(requestedWait(new Headers({ 'retry-after': 'soon' })), undefined);
  assert.equal(requestedWait(new Headers()), undefined);
  assert.deepEqual(retryWait({ reason: 'rate limited (429)', serverDelayMs: 3000 }, 1, policy), { delayMs: 3000, reason: 'rate limited (429)' });
  assert.deepEqual(retryWait({ reason: 'rate limited (429)', serverDelayMs: 3_600_000 }, 1, policy), {
    delayMs: 60_000,
    reason: 'rate limited (429); the API asked to wait 1 h, waiting 60 s (subagents.network.maxRetryWaitSeconds)',
  });
  assert.equal(retryWait({ reason: 'x' }, 1, policy, () => 0).delayMs, 500);
  assert.equal(retryWait({ reason: 'x' }, 3, policy, () => 0).delayMs, 2000);
  assert.equal(retryWait({ reason: 'x' }, 10, policy, () => 0).delayMs, 8000, 'backoff is capped');
  assert.equal(retryWait({ reason: 'x' }, 1, policy, () => 1).delayMs, 375, 'jitter takes up to a quarter off');
  assert.deepEqual([300, 1500, 60_000, 300_000, 3_600_000 * 24].map(formatWait), ['0.3 s', '1.5 s', '60 s', '5 min', '24 h']);
});
