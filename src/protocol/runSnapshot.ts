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
 * The agent of a run with this id, or undefined. Ids come from outside (a
 * terminal's `subagents send __proto__`, a mailbox file's name, a webview
 * message), and `run.agents` is a plain object: `run.agents['constructor']`
 * would be Object's own function. Every lookup by id goes through here (a
 * lint rule holds the code to it).
 */
export function agentOf(run: Pick<RunSnapshot, 'agents'>, agentId: string): AgentNode | undefined {
  // eslint-disable-next-line no-restricted-syntax -- the one own-property lookup
  return Object.hasOwn(run.agents, agentId) ? run.agents[agentId] : undefined;
}

/**
 * Every text a snapshot keeps is capped, so one long message, prompt or
 * answer cannot grow the run file, the editor's memory or a surface without
 * bound (docs/security.md, "Bounded memory"). What is cut says how much was
 * left out; the agent itself always gets the whole text (its conversation
 * is in its transcript).
 */
export const SNAPSHOT_TEXT_CAPS = {
  /** The task or continuation an agent started with. */
  prompt: 10_000,
  description: 500,
  /** An agent's final answer and its error. */
  output: 100_000,
  error: 10_000,
  /** A notice, a tool row's summaries, a message in the tree, an approval's one-line summary and reason. */
  line: 2_000,
  /** An approval's whole command, arguments or diff (surfaces open the rest in an editor). */
  detail: 100_000,
} as const;

/** `text` cut at `max` characters (never inside a surrogate pair), saying how much more there was. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return `${text.slice(0, end)}… [${(text.length - end).toLocaleString('en-US')} more characters]`;
}

/**
 * A run as its summary: every agent with its status, result and usage, without its tool rows or its last turn's
 * text (most of a run's size). What the Runs view and `subagents runs` list; the whole run is on disk.
 */
export function runSummary(run: RunSnapshot): RunSnapshot {
  // Own properties whatever the id (an assignment to agents['__proto__'] would set the prototype).
  const agents: RunSnapshot['agents'] = Object.fromEntries(Object.entries(run.agents).map(([id, node]) => [id, { ...node, tools: [], text: '' }]));
  return { ...run, agents };
}
