import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'subagents-dev.subagents';

interface Manifest {
  contributes: { commands: { command: string }[] };
}

function ourExtension(): vscode.Extension<unknown> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not installed in this extension host`);
  return extension;
}

describe('the extension', () => {
  it('is present and activates', async () => {
    const extension = ourExtension();
    await extension.activate();
    assert.equal(extension.isActive, true);
  });

  it('registers every command declared in package.json', async () => {
    const declared = (ourExtension().packageJSON as Manifest).contributes.commands.map((c) => c.command);
    assert.ok(declared.length > 0, 'package.json declares no commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = declared.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `declared in package.json but not registered: ${missing.join(', ')}`);
  });

  it('runs Refresh Agents without an error', async () => {
    await vscode.commands.executeCommand('subagents.refreshAgents');
  });
});
