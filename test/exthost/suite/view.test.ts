import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { subagents, waitFor } from '../api';

// The Subagents container's two views: Runs (a webview) and Agents (a native tree with a filter).

describe('the Runs and Agents views', () => {
  it('has a webview view provider registered for Runs', () => {
    // The extension host allows one provider per view type: a second
    // registration fails exactly when the extension registered its own.
    const provider: vscode.WebviewViewProvider = { resolveWebviewView: () => undefined };
    let registration: vscode.Disposable | undefined;
    assert.throws(
      () => {
        registration = vscode.window.registerWebviewViewProvider('subagents.runsView', provider);
      },
      /already registered/,
    );
    registration?.dispose();
  });

  it('can focus both views through their view commands', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const view of ['subagents.runsView', 'subagents.agentsView']) {
      assert.ok(commands.includes(`${view}.focus`), `${view}.focus is not a command`);
      await vscode.commands.executeCommand(`${view}.focus`);
    }
  });

  it('lists the agents by source with problems first', async () => {
    const api = await subagents();
    const view = api.agentsView();
    const titles = view.groups.map((g) => g.title);
    assert.equal(titles[0], 'Project');
    assert.equal(titles.at(-1), 'Built-in');
    assert.ok(view.groups[0]!.agents.includes('tech-lead'));
    assert.equal(view.shown, view.total);
    assert.equal(view.message, undefined);
  });

  it('filters by name, description and source, says so, and clears', async () => {
    const api = await subagents();
    await vscode.commands.executeCommand('subagents.filterAgents', 'explainer');
    let view = api.agentsView();
    assert.deepEqual(view.groups, [{ title: 'Project', agents: ['explainer'] }]);
    assert.match(view.message ?? '', /^1 of \d+ agents match "explainer"\.$/);
    await vscode.commands.executeCommand('subagents.filterAgents', 'read-only @builtin');
    view = api.agentsView();
    assert.deepEqual(view.groups.map((g) => g.title), ['Built-in'], 'the description match, limited to built-in agents');
    assert.ok(view.groups[0]!.agents.includes('explore'));
    await vscode.commands.executeCommand('subagents.clearAgentsFilter');
    view = api.agentsView();
    assert.equal(view.shown, view.total);
    assert.equal(view.message, undefined);
  });

  it("opens an agent's definition file in an editor when its row is clicked", async () => {
    const api = await subagents();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const item = api.agentsViewItem('tech-lead');
    assert.ok(item?.command, 'the tech-lead row has a click command');
    const file = api.agents().find((a) => a.name === 'tech-lead' && !a.shadowed)!.filePath;
    await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
    const editor = await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath === file && vscode.window.activeTextEditor, `${file} did not open in an editor`);
    assert.match(editor.document.getText(), /^---\nname: tech-lead\n/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
