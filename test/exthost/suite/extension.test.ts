import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { SubagentsApi } from '../../../src/vscode/extension';

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

  it('Refresh Agents re-reads the agent files: one deleted behind its back is gone, and it returns the count', async () => {
    const api = (await ourExtension().activate()) as SubagentsApi;
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const file = path.join(folder, '.claude', 'agents', 'short-lived.md');
    writeFileSync(file, '---\nname: short-lived\ndescription: Deleted again at once.\n---\nHi.\n');
    await vscode.commands.executeCommand('subagents.refreshAgents');
    assert.ok(api.agents().some((a) => a.name === 'short-lived'));
    rmSync(file);
    const count = await vscode.commands.executeCommand<number>('subagents.refreshAgents');
    assert.equal(api.agents().some((a) => a.name === 'short-lived'), false, 'a deleted agent is still listed after Refresh Agents');
    assert.equal(count, api.agents().filter((a) => !a.shadowed).length);
  });
});
