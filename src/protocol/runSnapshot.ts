import * as z from 'zod/mini';
import { agentColorField } from './agentColor';
import { agentStatusSchema, approvalKindSchema, messageSenderSchema, usageSchema, worktreeInfoSchema } from './runEvents';
import { runTeamSchema, teamTaskSchema } from './team';
import { toolRowSchema } from './toolRow';

/**
 * The snapshot model of run trees: what the RunStore holds and what every
 * surface renders (sidebar, chat, CLI tree, LM tool result). Folded from
 * RunEvents; bounded (tool rows and text per agent are capped; see docs/security.md, "Bounded memory").
 */

export { toolRowSchema, type ToolRow } from './toolRow';

/** What a `waiting` agent asks the user to approve. */
export const pendingApprovalSchema = z.object({
  approvalId: z.string(),
  toolUseId: z.string(),
  toolName: z.string(),
  kind: approvalKindSchema,
  summary: z.string(),
  requestedAt: z.number(),
  protectedReason: z.optional(z.nullable(z.string())),
  /** The whole command, or the diff of the file change (see the approval_requested event). */
  detail: z.optional(z.nullable(z.string())),
});

/** A message to an agent, as its tree shows it: who sent it, and whether the agent has read it yet. */
export const agentMessageSchema = z.object({
  messageId: z.string(),
  kind: z.enum(['message', 'result']),
  from: messageSenderSchema,
  via: z.string(),
  /** The text, capped. */
  text: z.string(),
  sentAt: z.number(),
  /** When it went into the conversation; null while it waits for the agent's next turn (or its next continuation). */
  deliveredAt: z.nullable(z.number()),
});
export type AgentMessage = z.infer<typeof agentMessageSchema>;

export const agentNodeSchema = z.object({
  agentId: z.string(),
  runId: z.string(),
  parentId: z.nullable(z.string()),
  parentToolUseId: z.nullable(z.string()),
  agentName: z.string(),
  description: z.string(),
  prompt: z.string(),
  model: z.string(),
  depth: z.int(),
  cwd: z.string(),
  background: z.boolean(),
  filePath: z.nullable(z.string()),
  /** The definition's UI accent (optional: runs saved before colours lack it). */
  color: agentColorField,
  status: agentStatusSchema,
  startedAt: z.number(),
  endedAt: z.nullable(z.number()),
  /** The text of the agent's current (or last) turn, capped. */
  text: z.string(),
  output: z.nullable(z.string()),
  structuredOutput: z.optional(z.unknown()),
  error: z.nullable(z.string()),
  usage: usageSchema,
  turns: z.int(),
  retries: z.int(),
  /**
   * Set while the agent waits to send a failed model request again (a rate
   * limit, an overload, a silent endpoint): what failed and when the retry
   * is due. Optional: older history files lack it.
   */
  retryWait: z.optional(z.nullable(z.object({ attempt: z.int(), reason: z.string(), until: z.number() }))),
  tools: z.array(toolRowSchema),
  /** Tool rows dropped from the front to respect the cap. */
  foldedTools: z.int(),
  children: z.array(z.string()),
  worktree: z.nullable(worktreeInfoSchema),
  /** Set while an isolated agent runs (before its WorktreeInfo exists). */
  worktreePath: z.nullable(z.string()),
  /** The approval a `waiting` agent asks for (optional: runs saved before approvals were events lack it). */
  approval: z.optional(z.nullable(pendingApprovalSchema)),
  /** Warnings about the agent (an MCP server that could not start …), oldest first, capped. */
  notices: z.optional(z.array(z.string())),
  /** Messages sent to the agent, the newest kept (optional: runs saved before messages lack it). */
  messages: z.optional(z.array(agentMessageSchema)),
  /** A teammate's name in its team (absent for an agent that is not a teammate). */
  member: z.optional(z.string()),
  /** What an idle teammate said when its last turn ended (null while it works). */
  idleOutput: z.optional(z.nullable(z.string())),
  /** How many times the teammate has gone idle, and what it said the last time (kept after it woke): a rest between two looks is still told. */
  rests: z.optional(z.number()),
  restedSaying: z.optional(z.nullable(z.string())),
});
export type AgentNode = z.infer<typeof agentNodeSchema>;

export const runSnapshotSchema = z.object({
  runId: z.string(),
  rootAgentId: z.string(),
  status: agentStatusSchema,
  startedAt: z.number(),
  endedAt: z.nullable(z.number()),
  /** Usage rolled up over every agent of the tree. */
  usage: usageSchema,
  agents: z.record(z.string(), agentNodeSchema),
  /** The run's shared task list, in creation order (absent until a task is created). */
  tasks: z.optional(z.array(teamTaskSchema)),
  /** The team file the run was started from. */
  team: z.optional(runTeamSchema),
  /** Bumped on every change; lets surfaces skip unchanged trees. */
  version: z.int(),
});
export type RunSnapshot = z.infer<typeof runSnapshotSchema>;

/**
 * A run as its summary: every agent with its status, result and usage, without its tool rows or its last turn's
 * text (most of a run's size). What the Runs view and `subagents runs` list; the whole run is on disk.
 */
export function runSummary(run: RunSnapshot): RunSnapshot {
  const agents: RunSnapshot['agents'] = {};
  for (const [id, node] of Object.entries(run.agents)) agents[id] = { ...node, tools: [], text: '' };
  return { ...run, agents };
}
