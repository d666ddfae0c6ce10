import * as z from 'zod/mini';
import { AGENT_FAMILIES, AGENT_SOURCES } from '../core/agents/kinds';

/**
 * Messages between the extension host and the sidebar webview (S7.4: both
 * sides validate what they receive against these schemas). The host projects
 * the catalogs and RunStore snapshots into the small view models below; the
 * webview renders them and reports clicks, nothing more. Kept to zod/mini
 * and plain constants so the webview bundle stays small.
 */

/** Agent statuses as the RunStore has them (protocol/runEvents), repeated here to keep its schemas out of the bundle. */
export const VIEW_STATUSES = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled', 'budget_exceeded', 'interrupted'] as const;
export type ViewStatus = (typeof VIEW_STATUSES)[number];

export const agentSummarySchema = z.object({
  name: z.string(),
  description: z.string(),
  source: z.enum(AGENT_SOURCES),
  family: z.nullable(z.enum(AGENT_FAMILIES)),
  filePath: z.string(),
  model: z.nullable(z.string()),
  disabled: z.boolean(),
  /** Set when a higher-precedence definition of the same name wins: where that one lives. */
  shadowedBy: z.nullable(z.string()),
});
export type AgentSummary = z.infer<typeof agentSummarySchema>;

export const warningSummarySchema = z.object({ filePath: z.string(), message: z.string() });
export type WarningSummary = z.infer<typeof warningSummarySchema>;

/** One workspace folder's agents (S2.6: each folder is a scope of its own). */
export const folderAgentsSchema = z.object({
  /** Identifies the folder in messages back to the host (its URI). */
  key: z.string(),
  name: z.string(),
  agents: z.array(agentSummarySchema),
  warnings: z.array(warningSummarySchema),
});
export type FolderAgents = z.infer<typeof folderAgentsSchema>;

export const noticeSchema = z.object({
  id: z.string(),
  level: z.enum(['info', 'warning']),
  text: z.string(),
  /** A button that runs one of the view's commands. */
  action: z.optional(z.object({ label: z.string(), command: z.enum(['setApiKey', 'manageTrust', 'cleanUpWorktrees']) })),
});
export type Notice = z.infer<typeof noticeSchema>;

export const agentsStateSchema = z.object({
  folders: z.array(folderAgentsSchema),
  notices: z.array(noticeSchema),
  /** False in an untrusted workspace: nothing can run (S7.1). */
  canRun: z.boolean(),
});
export type AgentsState = z.infer<typeof agentsStateSchema>;

export const toolViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  input: z.string(),
  status: z.enum(['running', 'ok', 'error']),
  result: z.string(),
  durationMs: z.nullable(z.number()),
  /** For spawn rows: the agent the call started, rendered under the row. */
  childAgentId: z.nullable(z.string()),
});
export type ToolView = z.infer<typeof toolViewSchema>;

export const agentViewSchema = z.object({
  id: z.string(),
  parentId: z.nullable(z.string()),
  name: z.string(),
  description: z.string(),
  status: z.enum(VIEW_STATUSES),
  model: z.string(),
  background: z.boolean(),
  startedAt: z.number(),
  endedAt: z.nullable(z.number()),
  tokens: z.number(),
  costUsd: z.number(),
  /** The tail of what the agent is saying now, one line. */
  activity: z.string(),
  error: z.nullable(z.string()),
  filePath: z.nullable(z.string()),
  tools: z.array(toolViewSchema),
  /** Older tool rows not sent (the view shows the newest ones). */
  hiddenTools: z.number(),
  children: z.array(z.string()),
  worktree: z.nullable(
    z.object({
      branch: z.string(),
      /** What can still be done with it: review/apply while finished, nothing once discarded. */
      state: z.enum(['active', 'finished', 'applied', 'discarded']),
      /** Null while the agent still works in it. */
      filesChanged: z.nullable(z.number()),
      insertions: z.number(),
      deletions: z.number(),
    }),
  ),
});
export type AgentView = z.infer<typeof agentViewSchema>;

export const runViewSchema = z.object({
  runId: z.string(),
  version: z.number(),
  rootAgentId: z.string(),
  status: z.enum(VIEW_STATUSES),
  startedAt: z.number(),
  /** The workspace folder the run belongs to, when the window has several. */
  folder: z.nullable(z.string()),
  agents: z.record(z.string(), agentViewSchema),
});
export type RunView = z.infer<typeof runViewSchema>;

export const hostToWebviewSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('agents'), state: agentsStateSchema }),
  z.object({
    type: z.literal('runs'),
    /** Runs that changed since the last message (all of them on the first). */
    changed: z.array(runViewSchema),
    /** Every run id, newest first: runs not listed are gone. */
    order: z.array(z.string()),
    /** The host's clock, so elapsed times are right when the webview runs on another machine. */
    now: z.number(),
  }),
]);
export type HostToWebview = z.infer<typeof hostToWebviewSchema>;

export const AGENT_ACTIONS = ['stop', 'transcript', 'followUp', 'reviewWorktree', 'applyWorktree', 'discardWorktree'] as const;
export type AgentAction = (typeof AGENT_ACTIONS)[number];

export const webviewToHostSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('runAgent'), agentName: z.string(), folder: z.string() }),
  z.object({ type: z.literal('openFile'), filePath: z.string() }),
  z.object({ type: z.literal('agentAction'), action: z.enum(AGENT_ACTIONS), agentId: z.string() }),
  z.object({
    type: z.literal('command'),
    command: z.enum(['runAgent', 'newAgent', 'refreshAgents', 'stopAll', 'setApiKey', 'manageTrust', 'cleanUpWorktrees']),
  }),
]);
export type WebviewToHost = z.infer<typeof webviewToHostSchema>;
