import path from 'node:path';
import type { RunEvent } from '../../protocol/runEvents';
import { worktreePoolOptions, type Settings } from '../config';
import { finalResult, type AgentResult, type AgentRun } from '../engine/tree/agentRun';
import { EngineError } from '../engine/errors';
import { mailTime, newMailId } from '../engine/messaging/mail';
import { BackgroundUpkeep, WorktreeManager, type RecoverReport } from '../isolation';
import type { EditorToolProvider } from '../mcp/editorTools';
import { IDLE_SERVER_MS } from '../mcp/host';
import { IdleServers } from '../mcp/idleServers';
import { McpStatusStore } from '../mcp/status';
import { RunHistory } from '../runs/history';
import { applyHistorySettings, historyLimits, RUNS_VIEW_RUNS, storeLimits } from '../runs/historySettings';
import { RunStore } from '../runs/runStore';
import { ApprovalInbox } from '../tools/approvalInbox';
import { ModeConsents, type ModeConsentHandler } from '../tools/modeConsent';
import { PermissionGate, type ApprovalDecision } from '../tools/permissions';
import type { AgentRuntime, ApprovalsView, FollowUpRequest, RunHandle, SendRequest, SendResult, StartRequest, StopOutcome, StopRequest } from './api';
import type { RuntimeLog, RuntimeScope, ScopeShared } from './scope';
import { scopeKey, type ScopeSpec } from './scopeSpec';

/**
 * The composition root: the one place the runtime is built. History and
 * run store, worktrees and their pool, the permission gate and its inbox,
 * mode consents, MCP status, and a scope (catalog + engine + MCP servers)
 * per distinct folder/settings/trust/key. The CLI runs one in its own
 * process, the agent host one for every client, VS Code one when the host
 * cannot be reached; a new subsystem is wired here and nowhere else.
 */

export interface RuntimeOptions {
  /** The user's data folder: the run history, worktrees, mode consents (`$XDG_DATA_HOME/subagents`). */
  dataDir: string;
  /** The user's own settings (not a folder's): history caps, the worktree pool's size; read at each use. */
  settings: () => Settings;
  log: RuntimeLog;
  /** How often store listeners hear of changes at most (ms; 0: at once). */
  coalesceMs: number;
  /** Asks whether an agent file may widen the permission mode; without it, widening is refused. */
  modeConsent?: ModeConsentHandler;
  /** Where MCP servers' outcomes are kept for the listings and the language server. */
  mcpStatusFile: string;
  /** The editor's own tools (VS Code). */
  editorTools?: EditorToolProvider;
  askMcpInputs?: ScopeShared['askMcpInputs'];
  /** Settle worktrees left by processes that died before anything runs (default true). */
  recoverWorktrees?: boolean;
  /** Told what recovery found (the CLI says it on stderr, VS Code in its log and view). */
  onRecovered?: (report: RecoverReport, pendingBefore: ReadonlySet<string>) => void;
  /** Overrides of the engines' network timing (tests). */
  network?: ScopeShared['network'];
  /**
   * Hold each run until `settle` lets it go (a process that ends with its
   * run: the CLI), so a message sent as it ends is queued for it and read
   * before it exits (see RunHistory.release).
   */
  holdRuns?: boolean;
  /** The history to use, already open (one that holds a run `subagents send` took to continue here); closed with the runtime. */
  history?: RunHistory;
  /**
   * Runs other processes write while this one is up (a terminal's own-process run) reach the store as they change:
   * for a process that shows the history to others for hours (the agent host).
   */
  followOtherProcesses?: boolean;
  /** This process is the agent host (its runs' files say so: what is queued for it names it). */
  role?: 'host';
  /** Quiet time before the history writes changed runs (default 300 ms). */
  historyDebounceMs?: number;
  /**
   * Keep ended runs as summaries in memory, whole in their files, read
   * again when a client asks (the agent host: it holds the history for
   * hours). Default false: a window's own runtime and the CLI keep them whole.
   */
  summarizeEndedRuns?: boolean;
  /** Scopes unused this long with nothing at work are closed (default 10 minutes). */
  scopeIdleMs?: number;
  /**
   * How many of the newest runs the history reads whole at open, for the
   * store (default RUNS_VIEW_RUNS, what the Runs view lists); 0: none, and
   * the index is read only when something needs it (the CLI).
   */
  historyLoadRuns?: number;
  /**
   * This process stays (VS Code, the agent host): it keeps the worktree
   * pool ready itself (cleaning, deleting, refilling) while no agent of it
   * is at work, for what other processes hand back too. A short-lived one (the CLI) leaves that to a detached
   * process instead.
   */
  keepPoolsReady?: boolean;
  /** Where a scope's agents come from; default: discovery, watching the folder's agent files (AgentCatalog). */
  catalogs?: ScopeShared['catalogs'];
}

export class Runtime implements AgentRuntime {
  readonly store: RunStore;
  readonly gate: PermissionGate;
  readonly inbox = new ApprovalInbox();
  readonly approvals: ApprovalsView;
  readonly consents: ModeConsents;
  readonly mcpStatus: McpStatusStore;
  /** MCP servers whose run tree ended, kept a while for the next tree of any scope: a new `subagents run` in the agent host is a new scope. */
  readonly #mcpIdle = new IdleServers(IDLE_SERVER_MS);
  readonly #options: RuntimeOptions;
  readonly #scopes = new Map<string, Promise<RuntimeScope>>();
  /** The scopes opened and not closed yet. */
  readonly #open = new Set<RuntimeScope>();
  /** Which scope's engine runs (or last ran) each agent, from its events. */
  readonly #agentScopes = new Map<string, RuntimeScope>();
  /** Runs whose approvals are denied at once (nobody to ask); every other run asks. */
  readonly #unasked = new Set<string>();
  readonly #listeners = new Set<(event: RunEvent) => void>();
  readonly #disposers: Array<() => void> = [];
  readonly #poolListeners = new Set<() => void>();
  #sweep: NodeJS.Timeout | null = null;
  #closed: Promise<void> | null = null;

  private constructor(
    options: RuntimeOptions,
    readonly history: RunHistory,
    readonly worktrees: WorktreeManager,
  ) {
    this.#options = options;
    this.store = new RunStore({ coalesceMs: options.coalesceMs, ...storeLimits(options.settings()) });
    this.gate = new PermissionGate(this.inbox.handler, (runId) => !this.#unasked.has(runId));
    this.consents = new ModeConsents({ file: path.join(options.dataDir, 'mode-consents.json'), ask: options.modeConsent });
    this.mcpStatus = new McpStatusStore(options.mcpStatusFile);
    this.approvals = approvalsView(this.inbox);
  }

  static async open(options: RuntimeOptions): Promise<Runtime> {
    const settings = options.settings();
    const history =
      options.history ??
      (await RunHistory.open({
        dir: options.dataDir,
        ...historyLimits(settings),
        loadRuns: options.historyLoadRuns ?? RUNS_VIEW_RUNS,
        debounceMs: options.historyDebounceMs,
        summarizeEnded: options.summarizeEndedRuns,
        holdRuns: options.holdRuns,
        role: options.role,
        log: (level, message) => options.log(level, message),
      }));
    const worktreesDir = path.join(options.dataDir, 'worktrees');
    const worktrees = new WorktreeManager({
      stateDir: path.join(worktreesDir, 'state'),
      worktreesRoot: path.join(worktreesDir, 'trees'),
      // Read each time they matter, so a change applies at once.
      ...worktreePoolOptions(options.settings),
      log: (level, message) => options.log(level, message),
    });
    const runtime = new Runtime(options, history, worktrees);
    runtime.#disposers.push(history.attach(runtime.store));
    if (options.followOtherProcesses) runtime.#disposers.push(history.followOthers());
    runtime.#disposers.push(worktrees.onPoolChange(() => runtime.#poolChanged()));
    if (options.keepPoolsReady) {
      const upkeep = new BackgroundUpkeep(worktrees, {
        busy: () => runtime.#engines().some((engine) => engine.busy),
        log: (level, message) => options.log(level, message),
        onPass: () => runtime.#poolChanged(),
        // Windows and terminals hand worktrees back to the same pool: this process keeps it for them too.
        watchOthers: true,
        // Idle for long (a window left open, the host between fan-outs): a commit or new checkout settings do not wait for the next fan-out.
        recheckMs: 60_000,
      });
      runtime.#disposers.push(() => upkeep.dispose());
    }
    if (options.recoverWorktrees !== false) await runtime.recoverWorktrees();
    // Messages and stops other processes leave for the agents this runtime runs (and what a crash left behind).
    runtime.#disposers.push(history.mailbox.watch((entry) => runtime.#engines().some((engine) => engine.receive(entry))));
    const idleMs = options.scopeIdleMs ?? 600_000;
    runtime.#sweep = setInterval(() => void runtime.#closeIdleScopes(idleMs), Math.min(60_000, idleMs));
    runtime.#sweep.unref();
    return runtime;
  }

  /**
   * Settles worktrees of runs whose process died (a crash, a kill):
   * unchanged ones are removed, changed ones committed on their branch and
   * kept for review.
   */
  async recoverWorktrees(): Promise<RecoverReport> {
    // The report's `kept` also holds every finished worktree still waiting for review: the caller names only those settled now.
    const pending = new Set((await this.worktrees.list()).filter((r) => r.state === 'finished').map((r) => r.agentId));
    const report = await this.worktrees.recover();
    this.#options.onRecovered?.(report, pending);
    return report;
  }

  /** The pool of reusable worktrees changed: one was taken or handed back, or the upkeep did its work (the Worktrees row). */
  onPoolChange(listener: () => void): () => void {
    this.#poolListeners.add(listener);
    return () => this.#poolListeners.delete(listener);
  }

  #poolChanged(): void {
    for (const listener of this.#poolListeners) listener();
  }

  /** Every engine event (redacted), after the store has it. */
  onEvent(listener: (event: RunEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** New user settings: history caps apply at once; the pool's size is read at each use. */
  applySettings(settings: Settings): void {
    applyHistorySettings(settings, this.history, this.store);
  }

  /** The scope for `spec`, opened on first use and shared by every request with the same spec. */
  async scope(spec: ScopeSpec): Promise<RuntimeScope> {
    if (this.#closed) throw new EngineError('The runtime is shutting down.');
    const key = scopeKey(spec);
    let opening = this.#scopes.get(key);
    if (!opening) {
      // Loaded with the first scope: a runtime that only serves the history (an idle agent host) never evaluates the engine and the SDK.
      opening = import('./scope').then(({ RuntimeScope }) => RuntimeScope.open(spec, this.#shared()));
      this.#scopes.set(key, opening);
      opening.then(
        (scope) => this.#open.add(scope),
        () => this.#scopes.delete(key),
      );
    }
    const scope = await opening;
    scope.use(spec);
    return scope;
  }

  #shared(): ScopeShared {
    return {
      gate: this.gate,
      consents: this.consents,
      history: this.history,
      worktrees: this.worktrees,
      mcpStatus: this.mcpStatus,
      mcpIdle: this.#mcpIdle,
      editorTools: this.#options.editorTools,
      askMcpInputs: this.#options.askMcpInputs,
      log: this.#options.log,
      network: this.#options.network,
      catalogs: this.#options.catalogs,
      publish: (event, scope) => {
        if (event.type === 'agent_started') this.#agentScopes.set(event.agentId, scope);
        this.store.apply(event);
        for (const listener of this.#listeners) {
          try {
            listener(event);
          } catch {
            // A surface that fails to render must not break the run.
          }
        }
      },
    };
  }

  /** How many scopes are open. */
  get scopeCount(): number {
    return this.#scopes.size;
  }

  /** The scopes open now (settled ones only). */
  async scopes(): Promise<RuntimeScope[]> {
    return (await Promise.allSettled(this.#scopes.values())).flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }

  #engines() {
    return [...this.#open].map((s) => s.engine);
  }

  /** The scope whose engine holds the agent now (at work, or ended and still in memory), also before its first event. */
  #holder(agentId: string): RuntimeScope | undefined {
    const scope = this.#agentScopes.get(agentId);
    if (scope?.engine.find(agentId)) return scope;
    return [...this.#open].find((s) => s.engine.find(agentId));
  }

  #working(agentId: string): AgentRun | undefined {
    const run = this.#holder(agentId)?.engine.find(agentId);
    return run && !run.ended ? run : undefined;
  }

  #handle(run: AgentRun): RunHandle {
    return { agentId: run.id, runId: run.tree.runId, agentName: run.agentName, result: async () => (await finalResult(run)).result };
  }

  #policy(runId: string, ask: boolean | undefined): void {
    if (ask === false) this.#unasked.add(runId);
    else this.#unasked.delete(runId);
  }

  async start(request: StartRequest): Promise<RunHandle> {
    const scope = await this.scope(request.scope);
    const run = await scope.engine.start({
      agent: request.agent,
      prompt: request.prompt,
      cwd: request.scope.cwd,
      invoker: request.invoker,
      description: request.description,
      model: request.model,
      budget: request.budget,
      permissionMode: request.permissionMode,
      isolation: request.isolation,
      baseRef: request.baseRef,
      runContext: request.runContext,
      signal: request.signal,
      team: request.team,
    });
    // Set before the agent's first turn can ask: starting it takes I/O, this does not.
    this.#policy(run.tree.runId, request.askApprovals);
    return this.#handle(run);
  }

  async followUp(request: FollowUpRequest): Promise<RunHandle> {
    const scope = this.#holder(request.agentId) ?? (await this.scope(request.scope));
    const runId = this.store.agent(request.agentId)?.runId;
    if (runId) this.#policy(runId, request.askApprovals);
    const run = await scope.engine.sendFollowUp(request.agentId, request.prompt, { permissionMode: request.permissionMode, budget: request.budget, runContext: request.runContext, signal: request.signal });
    this.#policy(run.tree.runId, request.askApprovals);
    return this.#handle(run);
  }

  async send(request: SendRequest): Promise<SendResult> {
    const scope = this.#holder(request.agentId) ?? (request.scope ? await this.scope(request.scope) : undefined);
    if (!scope) return this.#sendElsewhere(request);
    const runId = this.store.agent(request.agentId)?.runId;
    if (runId && !this.#working(request.agentId)) this.#policy(runId, request.askApprovals);
    const outcome = await scope.engine.send(request.agentId, { text: request.text, via: request.via }, { permissionMode: request.permissionMode, runContext: request.runContext, signal: request.signal });
    return outcome.delivery === 'elsewhere' ? outcome : { delivery: outcome.delivery, handle: this.#handle(outcome.run) };
  }

  /** A message for an agent no scope here holds: the process that runs it gets it through the mailbox; one that ended needs a scope to continue in. */
  async #sendElsewhere(request: SendRequest): Promise<SendResult> {
    const archived = await this.history.load(request.agentId);
    if (!archived) throw new EngineError(`No agent "${request.agentId}" in the history.`);
    if (archived === 'expired') throw new EngineError(`Agent ${request.agentId} has expired from the history (subagents.history.retentionDays); it cannot be continued.`);
    const owner = archived.runningIn && archived.runningIn !== 'this process' ? archived.runningIn : archived.runBusyIn;
    if (!owner) throw new EngineError(`${archived.node.agentName} (${request.agentId}) has ended; continuing it needs the folder it ran in.`);
    const text = request.text.trim();
    if (!text) throw new EngineError('The message is empty.');
    // Queued only while that process still holds the run (in one step under the history's lock): it reads the mailbox
    // once more before it lets the run go. One that has just let it go needs a scope to continue the agent in.
    const queued = await this.history.queueIfBusy({ id: newMailId(), agentId: request.agentId, runId: archived.node.runId, kind: 'message', text, from: null, via: request.via, sentAt: mailTime() });
    if (!queued) throw new EngineError(`${archived.node.agentName} (${request.agentId}) has just ended; continuing it needs the folder it ran in.`);
    return { delivery: 'elsewhere', owner: queued };
  }

  async stop(request: StopRequest): Promise<StopOutcome> {
    const live = this.#working(request.agentId);
    if (live) {
      const engine = this.#holder(request.agentId)!.engine;
      if (request.wholeRun) engine.cancelRun(live.tree.runId, request.reason);
      else engine.cancel(request.agentId, request.reason);
      return 'stopped';
    }
    if (request.wholeRun) {
      const runId = this.store.agent(request.agentId)?.runId;
      if (runId && (await this.stopRun(runId, request.reason)) > 0) return 'stopped';
    }
    // Another process may run it (a terminal's `subagents run`): the stop goes through the mailbox it watches.
    const archived = await this.history.load(request.agentId);
    if (!archived || archived === 'expired') return 'not running';
    const owner = request.wholeRun ? (archived.runBusyIn ?? otherProcess(archived.runningIn)) : otherProcess(archived.runningIn);
    if (!owner) return 'not running';
    await this.history.mailbox.post({
      id: newMailId(),
      agentId: request.agentId,
      runId: archived.node.runId,
      kind: 'stop',
      text: request.reason,
      from: null,
      via: request.via,
      sentAt: mailTime(),
      ...(request.wholeRun ? { wholeRun: true } : {}),
    });
    return 'sent';
  }

  async stopRun(runId: string, reason: string): Promise<number> {
    return (await this.scopes()).reduce((sum, scope) => sum + scope.engine.cancelRun(runId, reason), 0);
  }

  async stopAll(reason: string): Promise<number> {
    return (await this.scopes()).reduce((sum, scope) => sum + scope.engine.cancelAll(reason), 0);
  }

  async waitFor(agentId: string, signal?: AbortSignal): Promise<AgentResult | null> {
    const run = this.#working(agentId);
    if (!run) return null;
    const result = finalResult(run).then((r) => r.result);
    if (!signal) return result;
    return Promise.race([result, new Promise<null>((resolve) => (signal.aborted ? resolve(null) : signal.addEventListener('abort', () => resolve(null), { once: true })))]);
  }

  /** Answers a pending approval; false when it was settled already (elsewhere, or its agent stopped). */
  answer(approvalId: string, decision: ApprovalDecision): boolean {
    return this.inbox.answer(approvalId, decision);
  }

  /** Whether any agent works here, or is being continued. */
  get busy(): boolean {
    return this.#engines().some((engine) => engine.busy);
  }

  /** Agents at work here, in every scope. */
  get running(): AgentRun[] {
    return this.#engines().flatMap((engine) => engine.running);
  }

  /**
   * Waits until no agent of the run works here any more, delivering what
   * is still in the mailbox for its agents (a message sent as a process was
   * about to end continues its agent here rather than waiting for another),
   * then lets the run go in the same step as its last look at the mailbox
   * (RunHistory.release): a message sent a moment later finds the run free
   * and continues the agent in the sender's process.
   */
  async settle(runId: string): Promise<void> {
    for (;;) {
      const engines = this.#engines();
      await Promise.all(engines.map((engine) => engine.settled()));
      const letGo = await this.history.release(runId, (waiting) => {
        for (const entry of waiting) engines.some((engine) => engine.receive(entry));
        return this.busy;
      });
      if (letGo) return;
    }
  }

  async #closeIdleScopes(idleMs: number): Promise<void> {
    const now = Date.now();
    for (const scope of await this.scopes()) {
      if (!scope.idle || now - scope.lastUsed < idleMs) continue;
      this.#scopes.delete(scope.key);
      this.#open.delete(scope);
      for (const [agentId, holder] of this.#agentScopes) if (holder === scope) this.#agentScopes.delete(agentId);
      await scope.close('The scope was idle.').catch(() => undefined);
    }
  }

  /**
   * Stops what still runs (with `reason`, after `graceMs` for them to record
   * how they ended), stops every MCP server, saves the history and lets go
   * of everything. Idempotent.
   */
  close(options: { reason?: string; graceMs?: number } = {}): Promise<void> {
    return (this.#closed ??= this.#close(options));
  }

  async #close({ reason = 'The runtime is shutting down.', graceMs = 1500 }: { reason?: string; graceMs?: number }): Promise<void> {
    if (this.#sweep) clearInterval(this.#sweep);
    const scopes = await this.scopes();
    const ending = scopes.flatMap((s) => s.engine.running.map((r) => r.done));
    if (ending.length) {
      for (const scope of scopes) scope.engine.cancelAll(reason);
      await Promise.race([Promise.all(ending), new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
    }
    // Every MCP server a run started stops with it (the rest is the process watchdog's job).
    await Promise.race([Promise.all(scopes.map((s) => s.close(reason))).then(() => this.#mcpIdle.close()), new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
    try {
      // Before the store is let go: its last changes are written.
      await this.history.flush();
    } catch (error) {
      this.#options.log('error', `Could not save the run history: ${error instanceof Error ? error.message : String(error)}`);
    }
    for (const dispose of this.#disposers.splice(0).reverse()) dispose();
    await this.history.close().catch(() => undefined);
    this.worktrees.dispose();
  }
}

/** The inbox as surfaces see approvals: the same view the agent host serves. */
export function approvalsView(inbox: ApprovalInbox): ApprovalsView {
  return {
    get pending() {
      return inbox.pending;
    },
    get: (id) => inbox.get(id),
    addAsker: (asker, options) => inbox.addAsker(asker, options),
    onDidChange: (listener) => inbox.onDidChange(listener),
    answer: (id, decision) => Promise.resolve(inbox.answer(id, decision)),
  };
}

function otherProcess(runningIn: string | null): string | null {
  return runningIn && runningIn !== 'this process' ? runningIn : null;
}

/** Builds the runtime: the one place its parts are wired. */
export function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  return Runtime.open(options);
}
