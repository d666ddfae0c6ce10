/**
 * The closed sets of words the protocol is made of, said once: what state an
 * agent (and its run tree) is in, how a tool call went, what an approval is
 * about. Plain constants, no schema library, so the webview bundle takes them
 * without the event schemas (runEvents.ts builds its schemas from these).
 */

/** How an agent ended. */
export const FINISH_STATUSES = ['completed', 'failed', 'cancelled', 'budget_exceeded'] as const;
export type FinishStatus = (typeof FINISH_STATUSES)[number];

/**
 * The statuses of an agent (or run tree) that has not ended yet. `idle`: a
 * teammate whose turn ended; it is not ended, and a message wakes it.
 */
const ACTIVE_STATUSES = ['queued', 'running', 'waiting', 'idle'] as const;

/**
 * Every status of an agent, and of a run tree (a run has its most urgent
 * agent's). `waiting`: the agent is running but waits for the user to answer
 * an approval (see `approval_requested`). `idle`: a teammate between turns,
 * waiting for a message (see `agent_idle`). `interrupted`: the process died
 * while the agent ran (found on restart).
 */
export const AGENT_STATUSES = [...ACTIVE_STATUSES, ...FINISH_STATUSES, 'interrupted'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

export function isActiveStatus(status: AgentStatus): boolean {
  return (ACTIVE_STATUSES as readonly AgentStatus[]).includes(status);
}

/** How one tool call stands. */
export const TOOL_CALL_STATUSES = ['running', 'ok', 'error'] as const;

/**
 * What an approval is about: a shell command, a file change, a call to a
 * tool of another program (an MCP server's tool that does not say it only
 * reads), or a call of a tool that needs no approval by itself but that the
 * agent's own file says to ask about (`tool`: opencode's `webfetch: ask`).
 * The tool registry maps kinds onto these.
 */
export const APPROVAL_KINDS = ['edit', 'bash', 'mcp', 'tool'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];
