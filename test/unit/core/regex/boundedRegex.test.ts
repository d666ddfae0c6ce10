import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePatterns, schemaPatterns, textsOf } from '../../../../src/core/engine/schemaPatterns';
import { testPatterns } from '../../../../src/core/regex/boundedRegex';

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
