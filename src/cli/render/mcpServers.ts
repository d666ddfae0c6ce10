import { describeServer, type AgentServers } from '../../core/mcp/listing';
import { terminalLine } from './terminalText';

/**
 * The MCP part of `subagents agents`: under each agent that has servers,
 * one line per server (where it is declared, and whether it was reachable
 * the last time a run started it), and what the agent names but cannot get.
 */
export function mcpServersText(servers: ReadonlyMap<string, AgentServers>, now = Date.now()): string[] {
  if (servers.size === 0) return [];
  const lines = ['', 'MCP servers (last seen; --check-mcp starts each to check):'];
  for (const [agent, { servers: list, problems }] of servers) {
    lines.push(`  ${terminalLine(agent)}:`);
    for (const server of list) lines.push(`    ${terminalLine(describeServer(server, now))}`);
    for (const problem of problems) lines.push(`    ⚠ ${terminalLine(problem)}`);
  }
  return lines;
}
