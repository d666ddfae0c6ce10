/**
 * The engine's lifecycle hook points (S4.5), Claude Code-compatible in
 * meaning: `SubagentStart` before an agent's first request (it may add
 * context), `SubagentStop` when an agent is about to end (it may send it
 * back to work with one more instruction, a bounded number of times). The
 * command-hook runner implements them from `.claude/settings.json`; a
 * failing hook is logged by it and never fails the agent.
 */
export interface SubagentInfo {
  runId: string;
  agentId: string;
  agentName: string;
  parentId: string | null;
  cwd: string;
  permissionMode: string;
  transcriptPath: string | null;
}

export interface LifecycleHooks {
  subagentStart(info: SubagentInfo & { prompt: string }): Promise<{ additionalContext?: string }>;
  subagentStop(info: SubagentInfo & { lastAssistantMessage: string; stopHookActive: boolean }): Promise<{ continueWith?: string }>;
}

/** How many times SubagentStop hooks may send one agent back to work. */
export const MAX_STOP_HOOK_ROUNDS = 3;
