/** The commands that run agents or read their history: one lazily loaded unit (its own bundle, dist/engine.cjs). */
export { resumeCommand } from './commands/resume';
// `subagents run`'s in-process half: the command itself is in dist/cli-agents.cjs, which asks the agent host first.
export { runInProcess } from './commands/runInProcess';
export { warmUpRequests } from '../core/engine/loop/client';
export { sendCommand } from './commands/send';
export { stopCommand } from './commands/stop';
export { worktreesCommand } from './commands/worktrees';
export { approvalsCommand } from './commands/approvals';
export { hostCommand } from './commands/host';
// `subagents agents --check-mcp` starts servers: the MCP host lives in this bundle, not the listing's.
export { checkAgentServers } from '../core/mcp/check';
// The agent host (dist/host.js) runs this bundle's runtime: one copy of the engine in the package.
export { openRuntime } from '../core/runtime/runtime';
