import assert from 'node:assert/strict';
import { test } from 'node:test';
import { previewDiff, previewText } from '../../../../src/core/tools/approvalPreview';

test('a diff preview keeps git’s shape: headers, hunks with three lines of context, no newline at the end marked', () => {
  const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  const after = before.replace('line 10\n', 'line ten\n').replace(/\n$/, '');
  const diff = previewDiff({ kind: 'file', path: 'src/a.txt', before, after }).split('\n');
  assert.deepEqual(diff.slice(0, 3), ['--- a/src/a.txt', '+++ b/src/a.txt', '@@ -7,7 +7,7 @@']);
  assert.ok(diff.includes('-line 10') && diff.includes('+line ten'));
  assert.ok(diff.includes('\\ No newline at end of file'), diff.join('\n'));
});

test('a long diff is cut after the limit with a line that counts the rest; a command is never cut', () => {
  const after = Array.from({ length: 1000 }, (_, i) => `row ${i}`).join('\n') + '\n';
  const diff = previewDiff({ kind: 'file', path: 'big.txt', before: null, after }, 50).split('\n');
  assert.equal(diff.length, 51);
  assert.equal(diff.at(-1), '… 953 more lines of the diff');
  const command = `printf '%s' ${'a'.repeat(5000)} | sh`;
  assert.equal(previewText({ kind: 'command', command }, 50), command);
});

test('a write that changes nothing says so', () => {
  assert.match(previewDiff({ kind: 'file', path: 'same.txt', before: 'x\n', after: 'x\n' }), /no change: the file would stay as it is/);
});
