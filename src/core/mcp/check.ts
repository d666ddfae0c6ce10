import type { AgentDefinition } from '../agents/definition';
import { McpHost, type McpHostOptions } from './host';

/**
 * Starts the MCP servers of the given agents once, as a run would (same
 * plan, trust and launch rules, every server at once), records whether each
 * started and what it offered (the status store the listings read), and
 * stops them: `subagents agents --check-mcp` and VS Code's "Check MCP
 * Servers". Returns the warnings a run would have shown.
 */
export async function checkAgentServers(agents: readonly AgentDefinition[], cwd: string, options: McpHostOptions): Promise<string[]> {
  const host = new McpHost(options);
  const tree = host.tree();
  try {
    const results = await Promise.all(agents.map((definition) => tree.toolsFor({ agentName: definition.name, definition, cwd, planMode: false })));
    return [...new Set(results.flatMap((r) => r.warnings))];
  } finally {
    await tree.close();
    // A check keeps nothing running.
    await host.close();
  }
}
