import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { emptyUsage, type AgentStatus, type FinishStatus, type RunEvent, type Usage, type WorktreeInfo } from '../../../protocol/runEvents';
import type { AgentDefinition, SpawnsPolicy, ThinkingLevel } from '../../agents/definition';
import { continueConversation } from './archive';
import type { PermissionMode } from '../../tools/permissions';
import { BudgetTracker, type Budget } from './budget';
import { ConcurrencySlot } from './concurrencySlot';
import { Inbox, type InboxItem } from '../messaging/inbox';
import type { Semaphore } from './limiter';
import type { McpTree } from '../../mcp/host';
import type { Team } from '../team/team';
import type { Teammate } from '../team/teammate';
import type { WrittenFiles } from './worktreeWrites';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** Emits an event of the agent the emitter belongs to; time, run and agent ids are filled in. */
export type EmitEvent = (event: DistributiveOmit<RunEvent, 'ts' | 'runId' | 'agentId'>) => void;

/** What a finished agent hands back: to its parent's spawn tool, to a surface, to the CLI. */
export interface AgentResult {
  agentId: string;
  runId: string;
  agentName: string;
  status: FinishStatus;
  output: string | null;
  structuredOutput?: unknown;
  error: string | null;
  usage: Usage;
  turns: number;
  durationMs: number;
  worktree: WorktreeInfo | null;
}

/** Shared by every agent of one run tree. */
export interface TreeContext {
  runId: string;
  /** Aborted to stop the whole tree (its budget reached, or the root cancelled). */
  controller: AbortController;
  /** The tree's own budget: the root agent's, and that of every agent without a budget of its own. */
  budget: BudgetTracker;
  /** Bounds how many spawned agents of the tree run at once (subagents.maxConcurrency). */
  limiter: Semaphore;
  /** The tree's MCP servers, shared by its agents and stopped when it ends; null without MCP. */
  mcp: McpTree | null;
  /** What the run was started with, for the editor's tools (VS Code: the chat request's tool invocation token). */
  runContext?: unknown;
  /** The run's team: its shared task list and its teammates (one per run, whichever tree context continues it). */
  team: Team;
}

export interface AgentRunInit {
  id: string;
  parent: AgentRun | null;
  /** For a continued agent whose parent has ended: that parent's id. */
  reportsTo?: string | null;
  parentToolUseId: string | null;
  tree: TreeContext;
  definition: AgentDefinition;
  model: string;
  cwd: string;
  description: string;
  prompt: string;
  background: boolean;
  permissionMode: PermissionMode;
  planMode: boolean;
  outputSchema: object | null;
  thinking: ThinkingLevel | null;
  maxTurns: number;
  /** A budget of this agent's own (the spawn tool's `budget`), inside its parent's; without one it spends from its parent's. */
  budget?: Budget;
  /** Set when the agent is a teammate: its name in the team. */
  teammate?: Teammate | null;
  /** Earlier conversation when this run continues an ended agent. */
  history?: BetaMessageParam[];
  /** How many of `history` are in the transcript on disk (default: all of it). */
  persisted?: number;
  /** Told to the user when the agent starts (what of its transcript could not be read back). */
  notices?: string[];
  /** Usage and turns carried over from the runs this one continues. */
  priorUsage?: Usage;
  priorTurns?: number;
}

/**
 * The live state of one agent: its place in the tree, its conversation, its
 * counters, and the promise its parent (or a surface) waits on.
 */
export class AgentRun {
  readonly id: string;
  readonly parent: AgentRun | null;
  /**
   * The agent that started this one in its run tree, even when this run
   * continues it as a root (its parent had ended): its result is kept for
   * that agent.
   */
  readonly reportsTo: string | null;
  readonly parentToolUseId: string | null;
  readonly tree: TreeContext;
  readonly definition: AgentDefinition;
  readonly model: string;
  cwd: string;
  readonly description: string;
  readonly prompt: string;
  readonly background: boolean;
  readonly permissionMode: PermissionMode;
  readonly planMode: boolean;
  readonly outputSchema: object | null;
  readonly thinking: ThinkingLevel | null;
  readonly maxTurns: number;
  readonly depth: number;
  readonly resumed: boolean;
  /** Linked to the parent's signal: stopping an agent stops its whole subtree. */
  readonly controller = new AbortController();
  /** The budget this agent's usage is reported to (its own, or the nearest one above it). */
  readonly budget: BudgetTracker;
  readonly children = new Set<AgentRun>();
  /** Messages and children's results, delivered at this agent's next turn boundary. */
  readonly inbox = new Inbox();
  messages: BetaMessageParam[];
  /** How many of `messages` are in the transcript on disk. */
  persisted: number;
  /** The transcript writes of this agent, one after another: settled once the last one is. */
  saving: Promise<void> = Promise.resolve();
  /** Why its newest messages are not in the transcript yet (null once they are). */
  unsaved: string | null = null;
  /** Delivered entries whose transcript is not saved yet: acknowledged in the mailbox once it is. */
  readonly toAcknowledge: InboxItem[] = [];
  /** What the user is told as the agent starts (a transcript that could not be read back whole). */
  readonly startNotices: readonly string[];
  spawns: SpawnsPolicy = [];
  status: AgentStatus = 'queued';
  usage: Usage;
  turns: number;
  startedAt = Date.now();
  /** Set while the agent works in its own git worktree. */
  isolation: {
    path: string;
    branch: string;
    baseCommit: string;
    originalCwd: string;
    repoRoot: string;
    /** Whether the folder is new to the agent (checked out or reused), so its setup command runs, or its own from before. */
    prepared: 'new' | 'reused' | 'existing';
  } | null = null;
  /** The files its own tools wrote in its worktree, while it works in one (what its finish stages). */
  written: WrittenFiles | null = null;
  /** What the agent left on its branch, once its worktree is settled. */
  worktree: WorktreeInfo | null = null;
  result: AgentResult | null = null;
  /** Its place under the tree's concurrency limit (none for a root agent). */
  readonly slot: ConcurrencySlot;
  /** Set once its query loop has returned: what arrives from then on continues it after it ends. */
  sealed = false;
  /** Set when the agent is a teammate: idle between turns rather than ended (team/teammate.ts). */
  readonly teammate: Teammate | null;
  /**
   * Set while its query loop runs: gives it the team's tools once it leads
   * a team (its first named spawn), from its next turn on.
   */
  onLead: (() => void) | null = null;
  /**
   * Set before `done` resolves: the run that continues this agent at once
   * because a message came as it ended (null when none does). Surfaces that
   * wait for an agent follow it (finalResult).
   */
  next: Promise<AgentRun | null> = Promise.resolve(null);
  readonly done: Promise<AgentResult>;
  #resolve!: (result: AgentResult) => void;
  #wake: (() => void) | null = null;

  constructor(init: AgentRunInit) {
    this.id = init.id;
    this.parent = init.parent;
    this.reportsTo = init.parent?.id ?? init.reportsTo ?? null;
    this.parentToolUseId = init.parentToolUseId;
    this.tree = init.tree;
    this.definition = init.definition;
    this.model = init.model;
    this.cwd = init.cwd;
    this.description = init.description;
    this.prompt = init.prompt;
    this.background = init.background;
    this.permissionMode = init.permissionMode;
    this.planMode = init.planMode;
    this.outputSchema = init.outputSchema;
    this.thinking = init.thinking;
    this.maxTurns = init.maxTurns;
    this.depth = init.parent ? init.parent.depth + 1 : 0;
    this.teammate = init.teammate ?? null;
    this.resumed = Boolean(init.history?.length);
    this.messages = init.history?.length ? continueConversation(init.history, init.prompt) : [{ role: 'user', content: [{ type: 'text', text: init.prompt }] }];
    this.persisted = Math.min(init.persisted ?? init.history?.length ?? 0, init.history?.length ?? 0);
    this.startNotices = init.notices ?? [];
    this.usage = init.priorUsage ?? emptyUsage();
    this.turns = init.priorTurns ?? 0;
    this.done = new Promise((resolve) => (this.#resolve = resolve));
    const above = init.parent?.budget ?? init.tree.budget;
    this.budget = init.budget && (init.budget.maxTokens || init.budget.maxCostUsd) ? new BudgetTracker(init.budget, this.controller, above) : above;
    const upstream = init.parent?.controller.signal ?? init.tree.controller.signal;
    const forward = () => this.controller.abort(upstream.reason);
    if (upstream.aborted) forward();
    else upstream.addEventListener('abort', forward, { once: true });
    this.slot = new ConcurrencySlot(init.parent ? init.tree.limiter : null, this.controller.signal);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get agentName(): string {
    return this.definition.name;
  }

  get ended(): boolean {
    return this.result !== null;
  }

  /** Background children still at work: running, or waiting for a place or an approval; idle teammates rest. */
  runningBackgroundChildren(): AgentRun[] {
    return [...this.children].filter((c) => c.background && !c.ended && !c.teammate?.idle);
  }

  /** Its teammates that have not ended (idle or at work). */
  teammates(): AgentRun[] {
    return [...this.children].filter((c) => c.teammate && !c.ended);
  }

  finish(result: AgentResult): void {
    this.result = result;
    this.status = result.status;
    this.#resolve(result);
  }
}

/** The result of an agent once it is really done: after every continuation that a message arriving as it ended started. */
export async function finalResult(run: AgentRun): Promise<{ run: AgentRun; result: AgentResult }> {
  for (;;) {
    const result = await run.done;
    const next = await run.next;
    if (!next) return { run, result };
    run = next;
  }
}
