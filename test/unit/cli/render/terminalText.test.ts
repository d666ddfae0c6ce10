import { test } from 'node:test';
import assert from 'node:assert/strict';
import { terminalLine, terminalText } from '../../../../src/cli/render/terminalText';

test('terminal text: controls become visible pictures, CRLF becomes LF, bidi overrides go, ordinary text is untouched', () => {
  assert.equal(terminalText('plain ✓ ünïcödé 日本\n\tindented'), 'plain ✓ ünïcödé 日本\n\tindented');
  assert.equal(terminalText('a\u001b[2Jb\u0007c\u0000d\u007fe'), 'a␛[2Jb␇c␀d␡e');
  assert.equal(terminalText('csi\u009b2J'), 'csi\ufffd2J', 'C1 controls too');
  assert.equal(terminalText('one\r\ntwo\rthree'), 'one\ntwo␍three');
  assert.equal(terminalText('rm -rf /\u202e# safe'), 'rm -rf /# safe');
  assert.equal(terminalLine('two\nlines\tand tab'), 'two lines and tab');
});
