import * as assert from 'node:assert/strict';
import path from 'node:path';
import * as vscode from 'vscode';
import { promptWithReferences } from '../../../src/vscode/chat/chatContext';
import { workspaceFolder } from '../api';

// Chat references (#file, a selection, plain values) as context in the
// agent's first message, read from the open documents so unsaved edits count.

describe('chat references', () => {
  it('files, selections (unsaved text included), folders and plain values reach the prompt, in the order written', async () => {
    const root = workspaceFolder();
    const count = vscode.Uri.file(path.join(root, 'src/count.js'));
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(root, 'README.md')));
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'UNSAVED LINE\n'));
    try {
      const references: vscode.ChatPromptReference[] = [
        // VS Code lists references last-in-prompt first.
        { id: 'note', value: 'be brief', range: [40, 45] },
        { id: 'vscode.folder', value: vscode.Uri.file(path.join(root, 'test')), range: [30, 35] },
        { id: 'vscode.selection', value: new vscode.Location(doc.uri, new vscode.Range(0, 0, 1, 3)), range: [20, 25] },
        { id: 'vscode.file', value: count, range: [10, 15] },
      ];
      const { prompt, attached } = await promptWithReferences('Explain the counting', references);
      assert.equal(attached, 4);
      assert.ok(prompt.startsWith('Explain the counting\n\nThe user attached this context:'));
      const order = ['<file path="src/count.js">', '<selection path="README.md" lines="1-2">', '<file path="test">', '<context name="note">'].map((tag) => prompt.indexOf(tag));
      assert.ok(order.every((i, k) => i > 0 && (k === 0 || i > order[k - 1]!)), `in the order written: ${order.join(', ')}`);
      assert.match(prompt, /export function words/);
      assert.match(prompt, /<selection path="README.md" lines="1-2">\nUNSAVED LINE\n# Tally\n<\/selection>/);
      assert.match(prompt, /count\.test\.js/);
      assert.match(prompt, /be brief/);
      assert.deepEqual(await promptWithReferences('Only the task', []), { prompt: 'Only the task', attached: 0 });
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });

  it('an untitled buffer reaches the prompt (it has no file)', async () => {
    const draft = await vscode.workspace.openTextDocument({ content: 'UNTITLED DRAFT\nsecond line', language: 'markdown' });
    await vscode.window.showTextDocument(draft);
    try {
      const { prompt, attached } = await promptWithReferences('Review the draft', [{ id: 'vscode.file', value: draft.uri, range: [7, 12] }]);
      assert.equal(attached, 1);
      assert.match(prompt, /<file path="Untitled-\d+">\nUNTITLED DRAFT\nsecond line\n<\/file>/);
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });
});
