import '../../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { promptWithReferences } from '../../../../src/vscode/chat/chatContext';
import * as vscode from '../../../support/vscodeFake';

// Chat references under a fake of the vscode API; the real editor is
// covered by test/exthost/suite/chatContext.test.ts.

beforeEach(() => vscode.resetFake());

test('an untitled buffer attached to the chat reaches the prompt (it has no file to stat)', async () => {
  const draft = vscode.Uri.parse('untitled:Untitled-1');
  vscode.openBuffer(draft, 'function draft() { return 42; }');
  const { prompt, attached } = await promptWithReferences('Review this draft', [{ id: 'vscode.file', value: draft } as never]);
  assert.equal(attached, 1);
  assert.match(prompt, /<file path="Untitled-1">\nfunction draft\(\) \{ return 42; \}\n<\/file>/);
});
