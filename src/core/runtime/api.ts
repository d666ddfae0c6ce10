import type { Invoker } from '../../protocol/admission';
import type { RunEvent } from '../../protocol/runEvents';
import type { AgentResult } from '../engine/tree/agentRun';
import type { Budget } from '../engine/tree/budget';
import type { TeamStart } from '../engine/team/leadBrief';
import type { RunStore } from '../runs/runStore';
import type { ApprovalAsker, InboxChange, PendingApproval } from '../tools/approvalInbox';
import type { ApprovalDecision, PermissionMode } from '../tools/permissions';
import type { ScopeSpec } from './scopeSpec';

/**
 * What every surface has of the runtime: snapshots (the run store), the
 * approvals waiting for the user, and narrow handles to act on runs (start,
 * continue, message, stop, answer). Never a live engine object: the same
 * interface is served in this process (runtime.ts) and by the agent host
 * over its socket (src/core/host/client.ts), so a surface works the same
 * either way.
 */

/** One agent started or continued by a request: enough to follow it and stop it, nothing more. */
export interface RunHandle {
  readonly agentId: string;
  readonly runId: string;
  readonly agentName: string;
  /**
   * The agent's result once it is really done: after every continuation a
   * message arriving as it ended started (finalResult). Rejects only when
   * the runtime that runs it is gone and its end cannot be known.
   */
  result(): Promise<AgentResult>;
}

/** What a new run needs: where (the scope, with trust, settings and key), which agent, what to do. */
export interface StartRequest {
  scope: ScopeSpec;
  agent: string;
  prompt: string;
  /** A person (default) or a model through a tool: admission differs. */
  invoker?: Invoker;
  /** Shown in every surface; defaults to the prompt's first line. */
  description?: string;
  model?: string;
  budget?: Budget;
  permissionMode?: PermissionMode;
  isolation?: 'worktree';
  baseRef?: string;
  /** Whether approvals are asked (default) or, with nobody to answer (a script, CI), denied at once. */
  askApprovals?: boolean;
  /** Which surface asks (`palette`, `chat`, `cli`, `lm`…): logged and shown with messages. */
  via?: string;
  /** What the editor's tools get with each call of the run (VS Code: the chat's tool invocation token); in this process only. */
  runContext?: unknown;
  /** Stops the run however far it got: while its file's mode is asked about, its worktree made, and once it runs. */
  signal?: AbortSignal;
  /** Runs a team file (plain data, as the surface resolved it): `agent` is its lead, `prompt` the goal. */
  team?: TeamStart;
}

/** Continues an ended agent with its whole conversation. */
export interface FollowUpRequest {
  scope: ScopeSpec;
  agentId: string;
  prompt: string;
  permissionMode?: PermissionMode;
  budget?: Budget;
  askApprovals?: boolean;
  runContext?: unknown;
  signal?: AbortSignal;
}

/** A message for an agent: read at its next turn while it works, or continuing it once it has ended. */
export interface SendRequest {
  agentId: string;
  text: string;
  via: string;
  /** Where an ended agent is continued (its folder's scope); without it, only an agent at work can be reached. */
  scope?: ScopeSpec;
  permissionMode?: PermissionMode;
  askApprovals?: boolean;
  runContext?: unknown;
  /** Stops a continuation however far it got. */
  signal?: AbortSignal;
}

export type SendResult =
  /** The agent is at work: it reads the message at its next turn. */
  | { delivery: 'queued'; handle: RunHandle }
  /** The agent had ended: the message continued it. */
  | { delivery: 'continued'; handle: RunHandle }
  /** Another process runs the agent (a terminal's in-process `subagents run`): the message waits in the mailbox it watches. */
  | { delivery: 'elsewhere'; owner: string };

/** `stopped` here, `sent` to the process that runs it (through the mailbox), or `not running`. */
export type StopOutcome = 'stopped' | 'sent' | 'not running';

export interface StopRequest {
  agentId: string;
  reason: string;
  via: string;
  /** The agent's whole run, not only the agent and what it started. */
  wholeRun?: boolean;
}

/** The approvals waiting for the user, from whichever runtime asks them. */
export interface ApprovalsView {
  /** Open requests, oldest first. */
  readonly pending: PendingApproval[];
  get(approvalId: string): PendingApproval | undefined;
  /**
   * Called once per new request, with a signal that aborts once it is
   * answered anywhere (or withdrawn); `includePending`: at once for those
   * waiting already too (a window that connects later).
   */
  addAsker(asker: ApprovalAsker, options?: { includePending?: boolean }): () => void;
  onDidChange(listener: (change: InboxChange) => void): () => void;
  /** Resolves false when it was answered elsewhere already, or its agent stopped. */
  answer(approvalId: string, decision: ApprovalDecision): Promise<boolean>;
}

export interface AgentRuntime {
  /** Every run's snapshot, live; surfaces subscribe here. */
  readonly store: RunStore;
  readonly approvals: ApprovalsView;
  /** Throws an AdmissionError (with the words every surface shows) or an EngineError. */
  start(request: StartRequest): Promise<RunHandle>;
  followUp(request: FollowUpRequest): Promise<RunHandle>;
  send(request: SendRequest): Promise<SendResult>;
  stop(request: StopRequest): Promise<StopOutcome>;
  /** Stops every agent of a run at work; resolves to how many trees stopped. */
  stopRun(runId: string, reason: string): Promise<number>;
  /** Stops every run at work; resolves to how many trees stopped. */
  stopAll(reason: string): Promise<number>;
  /**
   * The result of an agent at work once it is done, or null at once when it
   * is not at work (its snapshot says how it ended). `signal` stops waiting.
   */
  waitFor(agentId: string, signal?: AbortSignal): Promise<AgentResult | null>;
  /**
   * Waits until no agent of the run is at work any more (continuations a
   * late message started included): what a command waits for before it ends.
   */
  settle(runId: string): Promise<void>;
  /** Every run event, redacted, as the engine emits it (the CLI's `--json`). */
  onEvent(listener: (event: RunEvent) => void): () => void;
}
