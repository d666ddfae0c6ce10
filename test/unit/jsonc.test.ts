import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJsonc } from '../../src/core/jsonc';

test('JSONC: comments and trailing commas go, strings keep what looks like them', () => {
  const text = `{
    // a line comment
    "servers": {
      "a": { "command": "node", "args": ["x.js", "http://h/p", "/* not a comment */", "a,}"], }, /* block
      comment */
      "b": { "url": "https://x/y//z", "env": { "Q": "\\"quoted\\", // still text" } },
    },
  }`;
  assert.deepEqual(parseJsonc(text), {
    servers: {
      a: { command: 'node', args: ['x.js', 'http://h/p', '/* not a comment */', 'a,}'] },
      b: { url: 'https://x/y//z', env: { Q: '"quoted", // still text' } },
    },
  });
  assert.deepEqual(parseJsonc('[1, 2, /* c */ ]'), [1, 2]);
  assert.throws(() => parseJsonc('{ "a": 1 /* open'));
  assert.throws(() => parseJsonc('{ a: 1 }'));
  assert.throws(() => parseJsonc('[1,,]'));
});
