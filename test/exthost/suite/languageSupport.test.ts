import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { subagents, workspaceFolder } from '../api';

// VS Code completes `.claude/agents` files itself (Claude's tool names, model
// aliases) and so does our language server; the extension leaves out ours of
// a label VS Code already offers. The suggest widget in the e2e test shows
// only the rows that fit on screen; the completion command returns the whole
// merged list, as every provider answered it.

function labelOf(item: vscode.CompletionItem): string {
  return typeof item.label === 'string' ? item.label : item.label.label;
}

async function completionLabels(uri: vscode.Uri, position: vscode.Position): Promise<string[]> {
  const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, position);
  return list.items.map(labelOf);
}

/** Asks until both providers answer (ours once the language server runs): `ours` and `theirs` are labels only each one offers. */
async function mergedLabels(uri: vscode.Uri, position: vscode.Position, ours: string, theirs: string): Promise<string[]> {
  const deadline = Date.now() + 60_000;
  let labels: string[] = [];
  while (Date.now() < deadline) {
    labels = await completionLabels(uri, position);
    if (labels.includes(ours) && labels.includes(theirs)) return labels;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`the completion list at ${position.line}:${position.character} never held both "${ours}" (ours) and "${theirs}" (VS Code's): ${labels.join(', ')}`);
}

function repeated(labels: readonly string[]): string[] {
  return [...new Set(labels.filter((label, i) => labels.indexOf(label) !== i))];
}

describe('agent-file completion beside VS Code\'s own', function () {
  this.timeout(120_000);
  let file: string;
  const tools = new vscode.Position(3, 13);
  const model = new vscode.Position(4, 7);

  before(async () => {
    await subagents();
    file = path.join(workspaceFolder(), '.claude', 'agents', 'completion-probe.md');
    writeFileSync(file, '---\nname: completion-probe\ndescription: Probes completion.\ntools: Read, \nmodel: \n---\nProbe.\n');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file));
    // Both providers answer once: MultiEdit is this runtime's tool; VS Code's list for Claude files has AskUserQuestion, which this runtime lacks.
    await mergedLabels(vscode.Uri.file(file), tools, 'MultiEdit', 'AskUserQuestion');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    rmSync(file, { force: true });
  });

  it('lists each tool name once in the whole merged list', async () => {
    const labels = await completionLabels(vscode.Uri.file(file), tools);
    assert.ok(labels.includes('Bash') && labels.includes('Edit') && labels.includes('MultiEdit'), labels.join(', '));
    assert.deepEqual(repeated(labels), [], `listed twice: ${repeated(labels).join(', ')}`);
  });

  it('lists each model once in the whole merged list', async () => {
    // VS Code offers inherit and Claude Code's aliases here too; the ids of subagents.modelAliases are ours alone.
    const labels = await completionLabels(vscode.Uri.file(file), model);
    assert.ok(labels.includes('sonnet') && labels.includes('inherit') && labels.includes('claude-sonnet-5-5'), labels.join(', '));
    assert.deepEqual(repeated(labels), [], `listed twice: ${repeated(labels).join(', ')}`);
  });
});
