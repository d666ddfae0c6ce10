import type { Settings } from '../config';

export interface McpLimits {
  callTimeoutMs: number;
  startupTimeoutMs: number;
  /** Claude Code files without a `tools` list also get the Claude Code session's servers. */
  inheritClaudeSession: boolean;
}

/** The `subagents.mcp.*` settings in the runtime's units. */
export function mcpLimits(settings: Pick<Settings, 'mcp.callTimeoutSeconds' | 'mcp.startupTimeoutSeconds' | 'mcp.inheritClaudeCodeServers'>): McpLimits {
  return {
    callTimeoutMs: settings['mcp.callTimeoutSeconds'] * 1000,
    startupTimeoutMs: settings['mcp.startupTimeoutSeconds'] * 1000,
    inheritClaudeSession: settings['mcp.inheritClaudeCodeServers'],
  };
}
