/**
 * The `agents` and `run` commands and the agent-discovery core, as one lazily loaded
 * unit (its own bundle, dist/cli-agents.cjs). The engine commands' bundle
 * takes the catalog, model names and the MCP configuration core (reading
 * server entries and configuration files, planning an agent's servers) from
 * here instead of a second copy (scripts/build.mjs, `SHARED_WITH_ENGINE`),
 * which keeps the .vsix within its size budget.
 */
export { agentsCommand } from './commands/agents';
// `subagents run`: where the agent host runs, a run is its client, and this
// bundle (with the protocol and the host client) is all it loads; it loads
// the engine bundle only to run in its own process.
export { runCommand } from './commands/run';
export { AgentCatalog } from '../core/agents/catalog/catalog';
// Whole: whatever the engine commands import from modelNames must be here.
export * from '../core/agents/interpretation/modelNames';
export * from '../core/agents/mcpServers/agentField';
export * from '../core/mcp/configFiles';
export * from '../core/mcp/launch';
export * from '../core/mcp/limits';
export * from '../core/mcp/plan';
export * from '../core/agents/mcpServers/serverEntries';
export * from '../core/agents/mcpServers/spec';
export * from '../core/mcp/status';
export * from '../core/agents/mcpServers/toolPatterns';
export * from '../core/mcp/variables';
