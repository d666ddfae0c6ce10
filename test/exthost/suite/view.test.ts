import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const VIEW_TYPE = 'subagents.agentsView';

describe('the Agents view', () => {
  it('has a webview view provider registered', () => {
    // The extension host allows one provider per view type: a second
    // registration fails exactly when the extension registered its own.
    const provider: vscode.WebviewViewProvider = { resolveWebviewView: () => undefined };
    let registration: vscode.Disposable | undefined;
    assert.throws(
      () => {
        registration = vscode.window.registerWebviewViewProvider(VIEW_TYPE, provider);
      },
      /already registered/,
    );
    registration?.dispose();
  });

  it('can be focused through its view command', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes(`${VIEW_TYPE}.focus`), `${VIEW_TYPE}.focus is not a command`);
    await vscode.commands.executeCommand(`${VIEW_TYPE}.focus`);
  });
});
