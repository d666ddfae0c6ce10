import * as z from 'zod/mini';
import { agentColorField } from './agentColor';
import { runTeamSchema, teamTaskSchema } from './team';
import { AGENT_STATUSES, APPROVAL_KINDS, FINISH_STATUSES } from './vocabulary';

/**
 * The typed event stream of a run tree. The engine emits these; the RunStore
 * folds them into snapshots; every surface (sidebar, chat, CLI, LM tool)
 * renders from those snapshots; `subagents run --json` prints them as NDJSON.
 * One schema, validated where events cross a process boundary. Written with
 * `zod/mini` (tree-shakable) because the webview bundle includes it.
 */

const count = z.int().check(z.nonnegative());

export const usageSchema = z.object({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  /** Estimated from the model's list price; 0 when the model's price is unknown. */
  costUsd: z.number().check(z.nonnegative()),
});
export type Usage = z.infer<typeof usageSchema>;

// The status words are the vocabulary's (vocabulary.ts); here they become schemas.
export { FINISH_STATUSES, isActiveStatus, type AgentStatus, type ApprovalKind, type FinishStatus } from './vocabulary';
export const finishStatusSchema = z.enum(FINISH_STATUSES);
export const agentStatusSchema = z.enum(AGENT_STATUSES);
export const approvalKindSchema = z.enum(APPROVAL_KINDS);

/** How far an "allow" reaches: this call only, every call of that kind by this agent, or by any agent of the run tree. */
export const APPROVAL_SCOPES = ['once', 'agent', 'run'] as const;
export const approvalScopeSchema = z.enum(APPROVAL_SCOPES);
export type ApprovalScope = z.infer<typeof approvalScopeSchema>;

export const worktreeInfoSchema = z.object({
  path: z.string(),
  branch: z.string(),
  baseCommit: z.string(),
  filesChanged: count,
  insertions: count,
  deletions: count,
});
export type WorktreeInfo = z.infer<typeof worktreeInfoSchema>;

const base = {
  /** Milliseconds since the epoch. */
  ts: z.number(),
  /** Id of the run tree: the root agent's id. */
  runId: z.string(),
  agentId: z.string(),
};

export const agentStartedEvent = z.object({
  type: z.literal('agent_started'),
  ...base,
  parentId: z.nullable(z.string()),
  /** The parent's spawn tool call that started this agent. */
  parentToolUseId: z.nullable(z.string()),
  agentName: z.string(),
  description: z.string(),
  prompt: z.string(),
  model: z.string(),
  depth: count,
  cwd: z.string(),
  background: z.boolean(),
  /** The definition file the agent came from (null for synthetic agents). */
  filePath: z.nullable(z.string()),
  /** Set when this start continues an earlier, ended agent. */
  resumed: z.boolean(),
  /** The definition's UI accent (its `color` field), when it names one. */
  color: agentColorField,
  /** A teammate's name in its team (the spawn tool's `name`): other agents and every surface address it by it. */
  member: z.optional(z.string()),
  /** On a run's first agent when the run was started from a team file: that team. */
  team: z.optional(runTeamSchema),
});

export const textEvent = z.object({ type: z.literal('text'), ...base, text: z.string() });

export const toolStartedEvent = z.object({
  type: z.literal('tool_started'),
  ...base,
  toolUseId: z.string(),
  name: z.string(),
  /** One line, for display: `src/app.ts`, `grep "TODO" in src`, `npm test`. */
  inputSummary: z.string(),
  /** For a tool of an MCP server (or of the editor): the server the call goes to, as the agent file names it. */
  server: z.optional(z.string()),
});

export const toolFinishedEvent = z.object({
  type: z.literal('tool_finished'),
  ...base,
  toolUseId: z.string(),
  name: z.string(),
  ok: z.boolean(),
  resultSummary: z.string(),
  durationMs: z.number().check(z.nonnegative()),
});

/**
 * Something the user should know about an agent that is not a failure of
 * it: an MCP server it declares could not be started, a name it uses
 * reaches nothing here. The agent runs on.
 */
export const noticeEvent = z.object({
  type: z.literal('notice'),
  ...base,
  level: z.enum(['info', 'warning']),
  message: z.string(),
});

/** Cumulative usage of one agent so far (not a delta). */
export const usageEvent = z.object({ type: z.literal('usage'), ...base, usage: usageSchema, turns: z.int() });

/**
 * A model request failed (an HTTP error worth retrying, a silent or broken
 * stream) and is sent again after `delayMs`; text streamed since the turn
 * began is void. `attempt` is the number of the attempt that failed.
 */
export const retryEvent = z.object({
  type: z.literal('retry'),
  ...base,
  attempt: z.int(),
  delayMs: z.number(),
  reason: z.string(),
});

export const worktreeCreatedEvent = z.object({
  type: z.literal('worktree_created'),
  ...base,
  path: z.string(),
  branch: z.string(),
  baseCommit: z.string(),
});

/**
 * A tool call waits for the user's approval (the permission inbox): the agent
 * is `waiting` until an `approval_settled` with the same id. Every surface
 * shows it and may answer; the first answer settles it everywhere.
 */
export const approvalRequestedEvent = z.object({
  type: z.literal('approval_requested'),
  ...base,
  approvalId: z.string(),
  toolUseId: z.string(),
  toolName: z.string(),
  kind: approvalKindSchema,
  /** The call's one-line summary (`npm test`, `src/app.ts`). */
  summary: z.string(),
  /** Why it asks even where edits are accepted: the file is protected (hook settings, .git, …). */
  protectedReason: z.optional(z.nullable(z.string())),
  /**
   * What is approved, whole: for a shell command the command itself (the
   * summary is one line and may be cut); for a file change a unified diff
   * (a new file is all additions), cut after a few hundred lines with a line
   * saying how many more. Null when it cannot be worked out.
   */
  detail: z.optional(z.nullable(z.string())),
});

export const approvalSettledEvent = z.object({
  type: z.literal('approval_settled'),
  ...base,
  approvalId: z.string(),
  allowed: z.boolean(),
  /** For an allow: how far it reaches. */
  scope: approvalScopeSchema,
  /** Which surface answered (`notification`, `sidebar`, `chat`, `terminal`, …), or why nobody did (`stopped`). */
  by: z.string(),
  reason: z.nullable(z.string()),
});

/** How an agent ended: its finished event carries it, and so does the agent host's answer to a wait. */
export const agentOutcomeShape = {
  status: finishStatusSchema,
  /** The agent's final text, or the JSON of its structured output. */
  output: z.nullable(z.string()),
  structuredOutput: z.optional(z.unknown()),
  error: z.nullable(z.string()),
  usage: usageSchema,
  turns: z.int(),
  durationMs: z.number().check(z.nonnegative()),
  worktree: z.nullable(worktreeInfoSchema),
};

export const agentFinishedEvent = z.object({
  type: z.literal('agent_finished'),
  ...base,
  ...agentOutcomeShape,
});

/** Who sent a message: another agent of the run tree, or (null) the user through a surface. */
export const messageSenderSchema = z.nullable(z.object({ agentId: z.string(), agentName: z.string() }));
export type MessageSender = z.infer<typeof messageSenderSchema>;

/**
 * Something arrived for the agent that it reads at its next turn boundary
 * (never in the middle of an answer): a message, or (`result`) a child's
 * result its parent could not take when the child ended. Followed by
 * `message_delivered` with the same id once it is in the conversation.
 */
export const messageQueuedEvent = z.object({
  type: z.literal('message_queued'),
  ...base,
  messageId: z.string(),
  kind: z.enum(['message', 'result']),
  from: messageSenderSchema,
  /** The surface it came through (runsView, chat, cli, lm) or `agent`. */
  via: z.string(),
  text: z.string(),
});

export const messageDeliveredEvent = z.object({ type: z.literal('message_delivered'), ...base, messageId: z.string() });

/**
 * A teammate's turn ended and it waits for a message (`idle: true`, with
 * what it said last), or a message woke it (`idle: false`). An idle
 * teammate has not ended: it ends when its lead ends it, when the run ends,
 * or when it is stopped.
 */
export const agentIdleEvent = z.object({ type: z.literal('agent_idle'), ...base, idle: z.boolean(), output: z.optional(z.nullable(z.string())) });

/**
 * A task of the run's shared task list was created, changed or deleted by
 * the agent of `agentId` (the run's first agent for a team file's initial
 * tasks): the task's whole state after the change.
 */
export const taskChangedEvent = z.object({
  type: z.literal('task_changed'),
  ...base,
  change: z.enum(['created', 'updated', 'deleted']),
  task: teamTaskSchema,
});

export const runEventSchema = z.discriminatedUnion('type', [
  agentStartedEvent,
  textEvent,
  toolStartedEvent,
  toolFinishedEvent,
  usageEvent,
  noticeEvent,
  retryEvent,
  worktreeCreatedEvent,
  approvalRequestedEvent,
  approvalSettledEvent,
  messageQueuedEvent,
  messageDeliveredEvent,
  agentIdleEvent,
  taskChangedEvent,
  agentFinishedEvent,
]);
export type RunEvent = z.infer<typeof runEventSchema>;
export type RunEventOf<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}

export function totalTokens(u: Usage): number {
  return u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
}
