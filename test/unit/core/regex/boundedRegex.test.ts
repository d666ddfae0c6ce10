import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePatterns, schemaPatterns, textsOf } from '../../../../src/core/engine/loop/schemaPatterns';
import { REGEX_DEADLINE_MS, testPatterns, type DeadlineTimers } from '../../../../src/core/regex/boundedRegex';
import { until } from '../../../support/until';

test('patterns run off the main thread: a runaway one is stopped at its deadline, the others answer as RegExp would', async () => {
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 20);
  try {
    const texts = [`${'a'.repeat(40)}!`, 'abc', 'a\nb'];
    const results = await testPatterns(['b', '^(a+)+$', '(', '^a$'], texts, 300);
    assert.deepEqual(results[0], { matches: [false, true, true] });
    assert.deepEqual(results[1], { timedOut: true });
    assert.ok('error' in results[2]!, 'a syntax error is an answer of its own');
    assert.deepEqual(results[3], { matches: [false, false, false] }, 'no multiline flag, as new RegExp(pattern)');
    assert.ok(ticks >= 10, `the main thread kept running (${ticks} ticks)`);
  } finally {
    clearInterval(ticker);
  }
});

test("a schema's patterns: pattern keywords and patternProperties keys, not data that happens to hold a pattern field", () => {
  const schema = {
    type: 'object',
    properties: { pattern: { type: 'string', pattern: 'p1' }, list: { type: 'array', items: { anyOf: [{ pattern: 'p2' }] } } },
    patternProperties: { '^k': { not: { pattern: 'p3' } } },
    $defs: { d: { pattern: 'p4' } },
    default: { pattern: 'data' },
    examples: [{ pattern: 'data' }],
    enum: [{ pattern: 'data' }],
  };
  assert.deepEqual(schemaPatterns(schema).sort(), ['^k', 'p1', 'p2', 'p3', 'p4']);
  assert.deepEqual(textsOf({ a: ['x', { 'k y': 'z' }], b: 1 }).sort(), ['a', 'b', 'k y', 'x', 'z']);
  const resolved = resolvePatterns({ pattern: 'a.c', default: { pattern: 'a.c' } }, ['a.c'], [{ matches: [true, false] }], ['a.c|x', 'abd']) as Record<string, unknown>;
  assert.equal(resolved.pattern, '^(?<p0>)(?:a\\.c\\|x)$', 'the texts it matched, escaped');
  assert.deepEqual(resolved.default, { pattern: 'a.c' });
});

test("each pattern's deadline is armed as it starts, at the deadline given (the default: REGEX_DEADLINE_MS), and is what stops a runaway one", async () => {
  for (const [given, expected] of [[undefined, REGEX_DEADLINE_MS], [250, 250]] as const) {
    const armed: Array<{ ms: number; fire: () => void; cleared: boolean }> = [];
    const timers: DeadlineTimers = {
      set: (ms, fire) => {
        const timer = { ms, fire, cleared: false };
        armed.push(timer);
        return timer;
      },
      clear: (handle) => void ((handle as { cleared: boolean }).cleared = true),
    };
    const answer = testPatterns(['^a', '^(a+)+$', 'b'], [`${'a'.repeat(40)}!`], given, timers);
    // The runaway pattern's own deadline: the third timer (the thread's start, then one per pattern as it starts).
    const deadline = await until('the runaway pattern to start', () => armed.length >= 3 && armed[2]);
    assert.deepEqual(armed.map((t) => t.ms), [15_000, expected, expected], 'the start timer, then each pattern its own deadline');
    assert.equal(armed[1]!.cleared && armed[0]!.cleared, true, 'earlier timers are replaced, not left to fire');
    deadline.fire();
    const results = await answer;
    assert.deepEqual(results[0], { matches: [true] });
    assert.deepEqual(results[1], { timedOut: true }, 'stopped by its own deadline');
    assert.deepEqual(results[2], { matches: [false] }, 'the patterns after it go on in a fresh thread');
    for (const timer of armed.slice(3)) if (!timer.cleared) timer.fire();
  }
});

test('a runaway pattern is never stopped before its deadline has passed since it started', async () => {
  let startedAt = 0;
  let stoppedAt = 0;
  const timers: DeadlineTimers = {
    set: (ms, fire) => {
      if (ms === 200) startedAt = performance.now();
      return setTimeout(() => {
        if (ms === 200) stoppedAt = performance.now();
        fire();
      }, ms);
    },
    clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
  };
  assert.deepEqual(await testPatterns(['^(a+)+$'], [`${'a'.repeat(40)}!`], 200, timers), [{ timedOut: true }]);
  assert.ok(stoppedAt - startedAt >= 199, `stopped ${stoppedAt - startedAt} ms after it started`);
});

test('the deadline is the one the security docs promise', async () => {
  const { readFile } = await import('node:fs/promises');
  const docs = await readFile(new URL('../../../../docs/security-trust.md', import.meta.url), 'utf8');
  assert.match(docs.replace(/\s+/g, ' '), new RegExp(`run on a worker thread and are stopped ${REGEX_DEADLINE_MS / 1000} s after they start`));
});
