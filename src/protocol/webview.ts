import * as z from 'zod/mini';
import { agentColorField } from './agentColor';
import { TEAM_TASK_STATUSES, TEAMMATE_STATES } from './team';
import { toolRowSchema } from './toolRow';
import { AGENT_STATUSES, APPROVAL_KINDS } from './vocabulary';

/**
 * Messages between the extension host and the Runs view, the sidebar webview
 * (both sides validate what they receive against these schemas). The
 * host projects RunStore snapshots into the small view models below and sends
 * only the agents whose view changed; the webview renders them and reports
 * clicks, nothing more. Kept to zod/mini and plain constants so the webview
 * bundle stays small.
 */

export const RUNS_VIEW_COMMANDS = ['runAgent', 'runDemo', 'stopAll', 'clearFinished', 'showCleared', 'setApiKey', 'manageTrust', 'cleanUpWorktrees'] as const;

export const noticeSchema = z.object({
  id: z.string(),
  level: z.enum(['info', 'warning']),
  /** One line in the view. */
  text: z.string(),
  /** The whole story, as the line's tooltip. */
  tooltip: z.string(),
  /** Buttons that run the view's commands. */
  actions: z.array(z.object({ label: z.string(), command: z.enum(RUNS_VIEW_COMMANDS) })),
  /** The user may close it for good (`dismissNotice`). */
  dismissible: z.boolean(),
});
export type Notice = z.infer<typeof noticeSchema>;

/** A tool row as the Runs view shows it: the snapshot's row, summaries clipped; spawn rows hold their child agent under them. */
export const toolViewSchema = z.omit(toolRowSchema, { startedAt: true });
export type ToolView = z.infer<typeof toolViewSchema>;

/** What a `waiting` agent asks the user to approve (the permission inbox). */
export const approvalViewSchema = z.object({
  approvalId: z.string(),
  toolName: z.string(),
  kind: z.enum(APPROVAL_KINDS),
  summary: z.string(),
  /** Set when a protected file asks even under acceptEdits: why. */
  protectedReason: z.nullable(z.string()),
  /** What is approved, whole: the command, or the diff of the file change (a unified diff, cut after a few hundred lines). */
  detail: z.nullable(z.string()),
});
export type ApprovalView = z.infer<typeof approvalViewSchema>;

/** A message to an agent, as its row shows it: who wrote, what, and whether it has read it yet. */
export const messageViewSchema = z.object({
  id: z.string(),
  kind: z.enum(['message', 'result']),
  /** The sending agent's name; null: the user. */
  from: z.nullable(z.string()),
  text: z.string(),
  delivered: z.boolean(),
});
export type MessageView = z.infer<typeof messageViewSchema>;

/** The longest message the Runs view's box sends. */
export const MAX_MESSAGE_LENGTH = 20_000;

/** What an agent's row shows, besides its live text, its usage and what hangs below it. */
const agentHeadShape = {
  parentId: z.nullable(z.string()),
  name: z.string(),
  description: z.string(),
  status: z.enum(AGENT_STATUSES),
  model: z.string(),
  background: z.boolean(),
  startedAt: z.number(),
  endedAt: z.nullable(z.number()),
  error: z.nullable(z.string()),
  filePath: z.nullable(z.string()),
  /** The agent's accent (its file's `color`); the view maps it to a theme colour. */
  color: agentColorField,
  worktree: z.nullable(
    z.object({
      branch: z.string(),
      /** What can still be done with it: review/apply while finished, nothing once discarded. */
      state: z.enum(['active', 'finished', 'applied', 'discarded']),
      /** Null while the agent still works in it. */
      filesChanged: z.nullable(z.number()),
      insertions: z.number(),
      deletions: z.number(),
      /** Files applied one by one so far (the rest still to review). */
      applied: z.number(),
    }),
  ),
  approval: z.nullable(approvalViewSchema),
  /** Warnings about the agent (an MCP server that could not start), newest last (optional: older hosts send none). */
  notices: z.optional(z.array(z.string())),
  /** What an ended agent answered (its final text, or its structured output as JSON), cut to a few thousand characters. */
  result: z.nullable(z.string()),
  /**
   * The same result rendered from its Markdown by the host, the way the
   * transcript renders it (raw HTML shown as text, links only to http(s) and
   * mail, no images loaded), so the view shows it as formatted text.
   */
  resultHtml: z.optional(z.nullable(z.string())),
  /** The newest messages sent to it (its row lists them under its activity). */
  messages: z.array(messageViewSchema),
  /** A teammate's agent (its row is named by its team name; optional: older hosts send none). */
  agentName: z.optional(z.string()),
};
export const agentHeadSchema = z.object(agentHeadShape);
export type AgentHead = z.infer<typeof agentHeadSchema>;

export const agentViewSchema = z.object({
  id: z.string(),
  ...agentHeadShape,
  tokens: z.number(),
  costUsd: z.number(),
  /** The tail of what the agent is saying now, one line. */
  activity: z.string(),
  tools: z.array(toolViewSchema),
  /** Older tool rows not sent (the view shows the newest ones). */
  hiddenTools: z.number(),
  children: z.array(z.string()),
});
export type AgentView = z.infer<typeof agentViewSchema>;

/**
 * What changed in an agent's view since the last message: each part only
 * when it changed (all of them the first time), and of the tool rows only
 * the new or changed ones plus the ids of every row shown, in order.
 */
export const agentPatchSchema = z.object({
  id: z.string(),
  head: z.optional(agentHeadSchema),
  activity: z.optional(z.string()),
  tokens: z.optional(z.number()),
  costUsd: z.optional(z.number()),
  hiddenTools: z.optional(z.number()),
  children: z.optional(z.array(z.string())),
  tools: z.optional(z.object({ rows: z.array(toolViewSchema), order: z.array(z.string()) })),
});
export type AgentPatch = z.infer<typeof agentPatchSchema>;

/** A worktree as the team view shows it: the branch and what is on it, and what can still be done with it. */
const teamWorktreeSchema = z.object({
  branch: z.string(),
  state: z.enum(['active', 'finished', 'applied', 'discarded']),
  filesChanged: z.nullable(z.number()),
  insertions: z.number(),
  deletions: z.number(),
});

/**
 * What a team run shows above its tree: the roster (the lead and each
 * teammate in one of the four states, or declared and not started), the
 * task board, and the messages between teammates in the order sent.
 */
export const teamViewSchema = z.object({
  name: z.string(),
  roster: z.array(
    z.object({
      agentId: z.nullable(z.string()),
      name: z.string(),
      agent: z.string(),
      role: z.enum(['lead', 'member']),
      state: z.enum([...TEAMMATE_STATES, 'not started']),
      model: z.nullable(z.string()),
      tokens: z.number(),
      costUsd: z.number(),
      worktree: z.nullable(teamWorktreeSchema),
      /** What it said when it last went idle (or ended), one line. */
      said: z.nullable(z.string()),
    }),
  ),
  tasks: z.array(z.object({ id: z.string(), subject: z.string(), status: z.enum(TEAM_TASK_STATUSES), owner: z.nullable(z.string()), blockedBy: z.array(z.string()) })),
  messages: z.array(z.object({ id: z.string(), from: z.string(), to: z.string(), text: z.string(), sentAt: z.number(), delivered: z.boolean() })),
  /** Messages between teammates not sent (the view shows the newest). */
  olderMessages: z.number(),
});
export type TeamView = z.infer<typeof teamViewSchema>;

/** A run tree's own fields; its agents travel separately, only when they change. */
export const runHeaderSchema = z.object({
  runId: z.string(),
  rootAgentId: z.string(),
  status: z.enum(AGENT_STATUSES),
  startedAt: z.number(),
  endedAt: z.nullable(z.number()),
  /** The workspace folder the run belongs to, when the window has several. */
  folder: z.nullable(z.string()),
  /** The whole tree: how many agents, and what they used together. */
  agentCount: z.number(),
  tokens: z.number(),
  costUsd: z.number(),
  /** Set for a team run (optional: older hosts send none). */
  team: z.optional(z.nullable(teamViewSchema)),
});
export type RunHeader = z.infer<typeof runHeaderSchema>;

/** A run as the host projects it: header and every agent. */
export type RunView = RunHeader & { agents: Record<string, AgentView> };

export const runUpdateSchema = z.object({
  run: runHeaderSchema,
  /** The agents of the run whose view changed (every agent, whole, the first time a run is sent). */
  agents: z.array(agentPatchSchema),
});
export type RunUpdate = z.infer<typeof runUpdateSchema>;

export const statusStateSchema = z.object({
  notices: z.array(noticeSchema),
  /** False in an untrusted workspace: nothing can run. */
  canRun: z.boolean(),
  /** Agents run on the demo model (no API key): the empty view offers the demo session. */
  demo: z.boolean(),
});
export type StatusState = z.infer<typeof statusStateSchema>;

export const hostToWebviewSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('status'), state: statusStateSchema }),
  z.object({
    type: z.literal('runs'),
    /** True on the first message after (re)loading: the webview drops what it had. */
    reset: z.boolean(),
    updates: z.array(runUpdateSchema),
    /** Every run the view shows, in display order (active first, then newest): runs not listed are gone. */
    order: z.array(z.string()),
    /** Ended runs hidden by Clear Finished (still in the history). */
    cleared: z.number(),
    /** The host's clock, so elapsed times are right when the webview runs on another machine. */
    now: z.number(),
  }),
  /** Select and scroll to a run or one of its agents; answered by `revealed`. */
  z.object({
    type: z.literal('reveal'),
    requestId: z.number(),
    runId: z.string(),
    agentId: z.nullable(z.string()),
    /** Unfold the agent's Result line too (a run the user started just ended). */
    showResult: z.optional(z.boolean()),
  }),
]);
export type HostToWebview = z.infer<typeof hostToWebviewSchema>;

export const AGENT_ACTIONS = ['stop', 'transcript', 'followUp', 'reviewWorktree', 'applyWorktree', 'discardWorktree', 'openDefinition'] as const;
export type AgentAction = (typeof AGENT_ACTIONS)[number];

/** What the team view does for a whole team: apply every teammate's changes one after another (warning before one merges over another's). */
export const TEAM_ACTIONS = ['applyAll'] as const;
export type TeamAction = (typeof TEAM_ACTIONS)[number];

/** The answers a waiting agent's approval offers on every surface: this call, every such call of this agent or of its whole run, or no. */
export const APPROVAL_ANSWERS = ['allow', 'allowAgent', 'allowRun', 'deny'] as const;
export type ApprovalAnswer = (typeof APPROVAL_ANSWERS)[number];

/** Their labels, the same on every surface. */
export const ANSWER_LABELS: Record<ApprovalAnswer, string> = {
  allow: 'Allow',
  allowAgent: 'Allow for this agent',
  allowRun: 'Allow for this run',
  deny: 'Deny',
};

export const webviewToHostSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('agentAction'), action: z.enum(AGENT_ACTIONS), agentId: z.string() }),
  z.object({ type: z.literal('teamAction'), action: z.enum(TEAM_ACTIONS), runId: z.string() }),
  /** The message box on an agent's row: a message it reads at its next turn (one that has ended is continued with it). */
  z.object({ type: z.literal('sendMessage'), agentId: z.string(), text: z.string().check(z.minLength(1), z.maxLength(MAX_MESSAGE_LENGTH)) }),
  z.object({ type: z.literal('approval'), agentId: z.string(), approvalId: z.string(), answer: z.enum(APPROVAL_ANSWERS) }),
  /** Open the approval whole (the command, or the change as a diff) in an editor. */
  z.object({ type: z.literal('showApproval'), agentId: z.string(), approvalId: z.string() }),
  z.object({ type: z.literal('command'), command: z.enum(RUNS_VIEW_COMMANDS) }),
  z.object({ type: z.literal('dismissNotice'), id: z.string() }),
  z.object({ type: z.literal('revealed'), requestId: z.number(), found: z.boolean() }),
]);
export type WebviewToHost = z.infer<typeof webviewToHostSchema>;
