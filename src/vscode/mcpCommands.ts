import * as vscode from 'vscode';
import { checkAgentServers } from '../core/mcp/check';
import type { Services } from './services';

/**
 * Check MCP Servers: starts every MCP server the agents of each folder
 * would get, once, as a run would (trusted workspace only, VS Code's own
 * servers through VS Code), records what each offered or why it failed,
 * stops them, and shows it in the Agents view under each agent. Resolves
 * with the warnings a run would have shown.
 */
export async function checkMcpServersCommand(services: Services): Promise<string[]> {
  if (!services.trusted) {
    void vscode.window.showWarningMessage('MCP servers start only in a trusted workspace.');
    return [];
  }
  const warnings = await vscode.window.withProgress({ location: { viewId: 'subagents.agentsView' }, title: 'Checking MCP servers…' }, async () =>
    (await Promise.all(services.scopes.all.map((scope) => checkAgentServers(scope.agents, scope.folder.uri.fsPath, scope.mcpOptions())))).flat(),
  );
  for (const scope of services.scopes.all) scope.refreshMcpServers();
  for (const warning of warnings) services.log.warn(warning);
  return warnings;
}
