import * as vscode from 'vscode';
import { AgentsViewProvider } from './agentsView';
import { readSettings } from './settings';
import type { ViewState, WebviewToHost } from '../protocol/webview';

const EMPTY_STATE: ViewState = { agents: [], warnings: [], notice: null };

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Subagents', { log: true });
  context.subscriptions.push(log);
  const { problems } = readSettings();
  for (const p of problems) log.warn(p);

  const onViewMessage = (message: WebviewToHost) => {
    switch (message.type) {
      case 'openDefinition':
        void vscode.window.showTextDocument(vscode.Uri.file(message.filePath));
        break;
      case 'command':
        void vscode.commands.executeCommand(`subagents.${message.command}`, message.agentName);
        break;
      case 'ready':
        break;
    }
  };
  const view = new AgentsViewProvider(context.extensionUri, EMPTY_STATE, onViewMessage, log);
  context.subscriptions.push(view, vscode.window.registerWebviewViewProvider(AgentsViewProvider.viewType, view));

  context.subscriptions.push(
    vscode.commands.registerCommand('subagents.refreshAgents', () => {
      view.update(EMPTY_STATE);
      log.info('Agents refreshed');
    }),
  );
  log.info('Subagents activated');
}

export function deactivate(): void {}
