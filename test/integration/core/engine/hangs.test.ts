import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { Reply } from '../../../support/scriptedServer';
import type { RunEventOf } from '../../../../src/protocol/runEvents';

/**
 * Network faults for a network that does not fail but does not answer either: every
 * hang becomes a visible retry and then a clear failure, within bounds set
 * here in milliseconds (the defaults are a minute per silence and ten
 * minutes per turn).
 */

const FAST = { idleTimeoutMs: 300, turnTimeoutMs: 20_000, maxRetries: 4, maxRetryWaitMs: 200, baseDelayMs: 5 };
/** For tests of something else than silence: a loaded machine must never look silent to them. */
const PATIENT = { ...FAST, idleTimeoutMs: 10_000 };
const LIMIT = { timeout: 60_000 };

function retries(events: ReadonlyArray<{ type: string }>): Array<RunEventOf<'retry'>> {
  return events.filter((e): e is RunEventOf<'retry'> => e.type === 'retry');
}

test('a server that accepts and never answers: each silence is a visible retry, then a clear failure', LIMIT, async () => {
  const h = await harness({ agents: [agent('solo')], script: () => ({ hang: true }), engine: { network: FAST } });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'hi', cwd: h.dir });
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /^The model API at http:\/\/127\.0\.0\.1:\d+ sent no data for 0\.3 s, 3 times in a row; giving up/);
    assert.match(result.error ?? '', /subagents\.network\.idleTimeoutSeconds/);
    const seen = retries(h.events);
    assert.ok(seen.length >= 1, 'at least one retry was shown');
    for (const r of seen) assert.match(r.reason, /no data for 0\.3 s/);
    assert.equal(h.server.requests.length, seen.length + 1, 'every attempt but the last was announced as a retry');
  } finally {
    await h.close();
  }
});

test('silences broken up by other faults are not silences in a row: the turn goes on retrying within maxRetries', LIMIT, async () => {
  const overloaded: Reply = { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } };
  // Silent, 529, silent, 529, silent: three silences, never two in a row.
  const faults: Reply[] = [{ hang: true }, overloaded, { hang: true }, overloaded, { hang: true }];
  const h = await harness({ agents: [agent('solo')], script: (req) => faults[req.attempt] ?? { text: 'through at last' }, engine: { network: { ...FAST, maxRetries: 8 } } });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'hi', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.output, 'through at last');
    assert.deepEqual(retries(h.events).slice(0, 5).map((r) => (/no data/.test(r.reason) ? 'silent' : r.reason)), ['silent', 'overloaded (529)', 'silent', 'overloaded (529)', 'silent']);
  } finally {
    await h.close();
  }
});

test('a stream that stalls after its headers is abandoned and sent again; the answer of the next attempt counts', LIMIT, async () => {
  const h = await harness({
    agents: [agent('solo')],
    script: (req): Reply => (req.attempt === 0 ? { stall: { afterEvents: 3 } } : { text: 'second try' }),
    engine: { network: FAST },
  });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'hi', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.output, 'second try');
    const seen = retries(h.events);
    assert.ok(seen.length >= 1);
    for (const r of seen) assert.equal(r.reason, 'no data for 0.3 s');
  } finally {
    await h.close();
  }
});

test('an endless trickle of text is stopped by the bound on a whole turn, with a message naming the setting', LIMIT, async () => {
  const h = await harness({
    agents: [agent('solo')],
    script: (): Reply => ({ trickle: { everyMs: 50 } }),
    engine: { network: { ...PATIENT, turnTimeoutMs: 1500 } },
  });
  try {
    const started = Date.now();
    const result = await h.engine.run({ agent: 'solo', prompt: 'hi', cwd: h.dir });
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /did not finish its turn within 1\.5 s.*subagents\.network\.turnTimeoutSeconds/);
    assert.equal(h.server.requests.length, 1, 'a turn that ran out of time is not sent again');
    assert.ok(Date.now() - started < 30_000);
  } finally {
    await h.close();
  }
});

test('retry-after beyond the cap is shortened to the cap, and the wait is shown with what the server asked for', LIMIT, async () => {
  const h = await harness({
    agents: [agent('solo')],
    script: (req): Reply =>
      req.attempt === 0
        ? { error: { status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after': '3600', 'retry-after-ms': '' } } }
        : { text: 'after waiting' },
    engine: { network: PATIENT },
  });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'hi', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    const [retry, ...more] = retries(h.events);
    assert.equal(more.length, 0);
    assert.equal(retry!.delayMs, 200, 'the wait is capped');
    assert.match(retry!.reason, /rate limited \(429\).*asked to wait 1 h/);
  } finally {
    await h.close();
  }
});

test('every retry the HTTP client makes is a retry event: 429, 529 and 5xx included', LIMIT, async () => {
  const faults: Reply[] = [
    { error: { status: 429, type: 'rate_limit_error', message: 'slow down' } },
    { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
    { error: { status: 500, type: 'api_error', message: 'boom' } },
  ];
  const h = await harness({ agents: [agent('solo')], script: (req) => faults[req.attempt] ?? { text: 'done' }, engine: { network: PATIENT } });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'hi', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.deepEqual(
      retries(h.events).map((r) => r.reason),
      ['rate limited (429)', 'overloaded (529)', 'server error (500)'],
    );
    assert.equal(h.server.requests.length, 4);
  } finally {
    await h.close();
  }
});

test('a retry that is waiting shows in the RunStore node as a waiting state, cleared when the answer streams', LIMIT, async () => {
  const { RunStore } = await import('../../../../src/core/runs/runStore');
  const store = new RunStore({ coalesceMs: 0 });
  const h = await harness({
    agents: [agent('solo')],
    script: (req): Reply => (req.attempt === 0 ? { error: { status: 529, type: 'overloaded_error', message: 'Overloaded', headers: { 'retry-after-ms': '150' } } } : { text: 'ok' }),
    engine: { network: PATIENT },
  });
  const waiting: Array<{ reason: string; until: number } | null> = [];
  h.engine.onEvent((e) => {
    store.apply(e);
    const node = store.agent(e.agentId);
    if (e.type === 'retry' && node) waiting.push(node.retryWait ?? null);
  });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'hi', cwd: h.dir });
    assert.equal(result.status, 'completed');
    assert.equal(waiting.length, 1);
    assert.equal(waiting[0]!.reason, 'overloaded (529)');
    const retryEvent = retries(h.events)[0]!;
    assert.equal(waiting[0]!.until, retryEvent.ts + 150);
    assert.equal(store.agent(result.agentId)!.retryWait, null, 'cleared once the agent moved on');
  } finally {
    await h.close();
  }
});
