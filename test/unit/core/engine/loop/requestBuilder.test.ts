import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withCacheBreakpoints } from '../../../../../src/core/engine/loop/requestBuilder';

test('cache breakpoints: the last two user messages, always in block form', () => {
  const out = withCacheBreakpoints([
    { role: 'user', content: 'first' },
    { role: 'assistant', content: [{ type: 'text', text: 'a' }] },
    { role: 'user', content: 'second' },
    { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
    { role: 'user', content: [{ type: 'text', text: 'third' }] },
  ]);
  const marks = out.map((m) => (Array.isArray(m.content) ? m.content.some((b) => 'cache_control' in b && b.cache_control) : 'string'));
  assert.deepEqual(marks, [false, false, true, false, true]);
});
