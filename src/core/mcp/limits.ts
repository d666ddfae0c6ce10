import type { Settings } from '../config';

export interface McpLimits {
  callTimeoutMs: number;
  startupTimeoutMs: number;
  /** Claude Code files without a `tools` list also get the Claude Code session's servers. */
  inheritClaudeSession: boolean;
  /** Servers start in a plan-mode run too (their read-only tools only); off: nothing there starts a process. */
  startInPlanMode: boolean;
}

/** The `subagents.mcp.*` settings in the runtime's units. */
export function mcpLimits(settings: Pick<Settings, 'mcp.callTimeoutSeconds' | 'mcp.startupTimeoutSeconds' | 'mcp.inheritClaudeCodeServers' | 'mcp.startInPlanMode'>): McpLimits {
  return {
    callTimeoutMs: settings['mcp.callTimeoutSeconds'] * 1000,
    startupTimeoutMs: settings['mcp.startupTimeoutSeconds'] * 1000,
    inheritClaudeSession: settings['mcp.inheritClaudeCodeServers'],
    startInPlanMode: settings['mcp.startInPlanMode'],
  };
}
