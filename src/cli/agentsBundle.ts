/**
 * The `agents` command and the agent-discovery core, as one lazily loaded
 * unit (its own bundle, dist/cli-agents.cjs). The engine commands' bundle
 * takes the catalog and model names from here instead of a second copy
 * (scripts/build.mjs), which keeps the .vsix within its size budget.
 */
export { agentsCommand } from './commands/agents';
export { AgentCatalog } from '../core/agents/catalog';
// Whole: whatever the engine commands import from modelNames must be here.
export * from '../core/agents/modelNames';
