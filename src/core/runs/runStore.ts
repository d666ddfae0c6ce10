import { addUsage, emptyUsage, isActiveStatus, type RunEvent, type RunEventOf, type Usage } from '../../protocol/runEvents';
import type { StoreOp } from '../../protocol/host';
import { agentOf, capText, runSummary, SNAPSHOT_TEXT_CAPS as CAPS, type AgentNode, type RunSnapshot } from '../../protocol/runSnapshot';

/** Notices kept per agent: the newest. */
const MAX_NOTICES = 20;

/**
 * The one snapshot model of all run trees (every surface renders
 * from here, never from engine state). Fed by the engine's events; bounded:
 * tool rows per run tree and live text per agent are capped, and
 * only the newest runs are kept; the caps can change while it runs (settings
 * apply without a reload). Listeners hear which runs changed, coalesced, so a chatty run
 * does not repaint a UI for every text chunk.
 */

/** The caps that follow the `subagents.history.*` settings. */
export interface RunStoreLimits {
  /** Tool rows kept per run tree, over all its agents; the oldest are folded into their agent's count. */
  maxEventsPerRun: number;
  /** Run trees kept; the oldest finished ones go first. */
  maxRuns: number;
}

export interface RunStoreOptions extends Partial<RunStoreLimits> {
  /** Characters of live text kept per agent (the tail). */
  maxTextChars?: number;
  /** Listeners are called at most once per this many ms (0: synchronously). */
  coalesceMs?: number;
}

export type RunStoreListener = (changedRunIds: ReadonlySet<string>) => void;

/** Messages kept per agent (the newest); each is capped like every stored text (CAPS). */
const MAX_MESSAGES = 50;

export class RunStore {
  readonly #runs = new Map<string, RunSnapshot>();
  readonly #agents = new Map<string, AgentNode>();
  readonly #listeners = new Set<RunStoreListener>();
  readonly #removalListeners = new Set<(run: RunSnapshot) => void>();
  readonly #observers = new Set<(op: StoreOp) => void>();
  readonly #pending = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  /** Tool rows each run holds now, over all its agents. */
  readonly #rows = new Map<string, number>();
  #maxRows: number;
  readonly #maxText: number;
  #maxRuns: number;
  readonly #coalesceMs: number;
  /** Ended runs held as their summaries (see `summarize`): their whole is on disk. */
  readonly #summaries = new Set<string>();
  /** Reads a summarized run whole again (the history's run file), for a change to it. */
  #reader: ((runId: string) => RunSnapshot | null) | null = null;

  constructor(options: RunStoreOptions = {}) {
    this.#maxRows = options.maxEventsPerRun ?? 2000;
    this.#maxText = options.maxTextChars ?? 8000;
    this.#maxRuns = options.maxRuns ?? 200;
    this.#coalesceMs = options.coalesceMs ?? 50;
  }

  /**
   * Every change as it is made (an event applied, runs loaded or removed,
   * new caps), synchronously and in order: a copy that makes the same
   * changes holds the same snapshots (the agent host's clients do).
   */
  observe(observer: (op: StoreOp) => void): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  #emit(op: StoreOp): void {
    for (const observer of this.#observers) observer(op);
  }

  /** New caps apply at once: runs and rows past them are dropped or folded now. */
  setLimits(limits: Partial<RunStoreLimits>): void {
    this.#emit({ op: 'limits', limits: { ...(limits.maxEventsPerRun !== undefined ? { maxEventsPerRun: limits.maxEventsPerRun } : {}), ...(limits.maxRuns !== undefined ? { maxRuns: limits.maxRuns } : {}) } });
    this.#maxRows = limits.maxEventsPerRun ?? this.#maxRows;
    this.#maxRuns = limits.maxRuns ?? this.#maxRuns;
    for (const run of this.#runs.values()) {
      if (this.#foldRows(run)) this.#changed(run.runId);
    }
    this.#prune();
  }

  /** The run as held here: an ended run may be its summary (`isSummary`; `whole` gives it whole). */
  get(runId: string): RunSnapshot | undefined {
    return this.#runs.get(runId);
  }

  // ---- ended runs kept as summaries ------------------------------------------
  // A process that holds a long history for hours (the agent host) keeps each
  // ended run as its summary once its file has it whole: tool rows are most
  // of a run's size. None of this is told to observers or listeners: the
  // snapshot has not changed, only where its detail lives.

  /** Where a summarized run is read whole again when it changes (a follow-up): synchronously, as events apply. */
  readWholeWith(reader: (runId: string) => RunSnapshot | null): void {
    this.#reader = reader;
  }

  /**
   * Keeps the run as its summary, when it has ended and is still at `version`
   * (the version its file has). Returns whether it did.
   */
  summarize(runId: string, version: number): boolean {
    const run = this.#runs.get(runId);
    if (!run || run.version !== version || this.#summaries.has(runId) || isActiveStatus(run.status) || Object.values(run.agents).some((a) => isActiveStatus(a.status))) return false;
    this.#put(runSummary(run));
    this.#summaries.add(runId);
    return true;
  }

  isSummary(runId: string): boolean {
    return this.#summaries.has(runId);
  }

  /**
   * The run whole as of now: as held, or for a summary `read`'s copy of it
   * when that is of the same version; undefined when neither has it.
   */
  whole(runId: string, read: ReadonlyMap<string, RunSnapshot>): RunSnapshot | undefined {
    const run = this.#runs.get(runId);
    if (!run || !this.#summaries.has(runId)) return run;
    const copy = read.get(runId);
    return copy?.version === run.version ? copy : undefined;
  }

  /**
   * Holds the summarized run whole again: silently when `whole` is what the
   * summary was made from; a newer one (another process wrote the file
   * since) is taken as `load` takes it, so every copy gets it.
   */
  restore(whole: RunSnapshot): void {
    const held = this.#runs.get(whole.runId);
    if (!held || !this.#summaries.has(whole.runId)) return;
    if (held.version !== whole.version) return this.load([whole]);
    this.#summaries.delete(whole.runId);
    this.#put(whole);
    // Caps lowered meanwhile apply to it now.
    if (this.#foldRows(whole)) this.#changed(whole.runId);
  }

  #put(run: RunSnapshot): void {
    this.#runs.set(run.runId, run);
    for (const node of Object.values(run.agents)) this.#agents.set(node.agentId, node);
    this.#rows.set(run.runId, Object.values(run.agents).reduce((n, a) => n + a.tools.length, 0));
  }

  /** Before a change to a summarized run: it is read whole again (its summary alone would be written over its file). */
  #hydrate(runId: string): void {
    if (!this.#summaries.has(runId)) return;
    const whole = this.#reader?.(runId) ?? null;
    if (whole) this.restore(whole);
    // Its file is gone or unreadable: the summary is all there is now.
    this.#summaries.delete(runId);
  }

  agent(agentId: string): AgentNode | undefined {
    return this.#agents.get(agentId);
  }

  /** Agents waiting for the user to answer an approval, oldest request first. */
  waiting(): AgentNode[] {
    const nodes: AgentNode[] = [];
    for (const node of this.#agents.values()) if (node.approval) nodes.push(node);
    return nodes.sort((a, b) => a.approval!.requestedAt - b.approval!.requestedAt);
  }

  /** Newest first. */
  list(): RunSnapshot[] {
    return [...this.#runs.values()].sort((a, b) => b.startedAt - a.startedAt);
  }

  subscribe(listener: RunStoreListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Called with each run the store drops (retention cap or `remove`), before it is gone. */
  onRemove(listener: (run: RunSnapshot) => void): () => void {
    this.#removalListeners.add(listener);
    return () => this.#removalListeners.delete(listener);
  }

  /** Adds runs loaded from disk (persistence), without notifying per run. */
  load(runs: RunSnapshot[]): void {
    if (this.#observers.size) this.#emit({ op: 'load', runs: structuredClone(runs) });
    for (const run of runs) {
      this.#summaries.delete(run.runId);
      this.#put(run);
      this.#foldRows(run);
    }
    this.#prune();
    for (const run of runs) this.#changed(run.runId);
  }

  remove(runId: string): void {
    const run = this.#runs.get(runId);
    if (!run) return;
    this.#emit({ op: 'remove', runId });
    for (const listener of this.#removalListeners) listener(run);
    for (const id of Object.keys(run.agents)) this.#agents.delete(id);
    this.#runs.delete(runId);
    this.#rows.delete(runId);
    this.#summaries.delete(runId);
    this.#changed(runId);
  }

  /** Delivers pending notifications now. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#pending.size === 0) return;
    const changed = new Set(this.#pending);
    this.#pending.clear();
    for (const listener of this.#listeners) {
      try {
        listener(changed);
      } catch {
        // A failing surface must not stop the others.
      }
    }
  }

  /**
   * Replaces everything with `runs` (a copy catching up with the original
   * after it fell behind): listeners hear of every run that changed or left.
   */
  reset(runs: RunSnapshot[]): void {
    const before = [...this.#runs.keys()];
    this.#runs.clear();
    this.#agents.clear();
    this.#rows.clear();
    this.#summaries.clear();
    this.load(runs);
    for (const runId of before) this.#changed(runId);
  }

  apply(event: RunEvent): void {
    this.#hydrate(event.runId);
    if (this.#observers.size) this.#emit({ op: 'event', event });
    if (event.type === 'agent_started') this.#started(event);
    else {
      const node = this.#agents.get(event.agentId);
      const run = this.#runs.get(event.runId);
      if (!node || !run) return;
      this.#update(run, node, event);
    }
    this.#changed(event.runId);
  }

  #started(e: RunEventOf<'agent_started'>): void {
    let run = this.#runs.get(e.runId);
    if (!run) {
      run = { runId: e.runId, rootAgentId: e.agentId, status: 'running', startedAt: e.ts, endedAt: null, usage: emptyUsage(), agents: {}, version: 0 };
      this.#runs.set(e.runId, run);
      this.#prune();
    }
    const existing = agentOf(run, e.agentId);
    if (existing) {
      // A follow-up continues the same agent: same node, new turn of work.
      Object.assign(existing, { status: 'running', endedAt: null, text: '', output: null, error: null, retryWait: null, approval: null, idleOutput: null, prompt: capText(e.prompt, CAPS.prompt), description: capText(e.description, CAPS.description), model: e.model, cwd: e.cwd });
      if (e.member) existing.member = e.member;
    } else {
      const node: AgentNode = {
        agentId: e.agentId,
        runId: e.runId,
        parentId: e.parentId,
        parentToolUseId: e.parentToolUseId,
        agentName: e.agentName,
        description: capText(e.description, CAPS.description),
        prompt: capText(e.prompt, CAPS.prompt),
        model: e.model,
        depth: e.depth,
        cwd: e.cwd,
        background: e.background,
        filePath: e.filePath,
        color: e.color ?? null,
        status: 'running',
        startedAt: e.ts,
        endedAt: null,
        text: '',
        output: null,
        error: null,
        usage: emptyUsage(),
        turns: 0,
        retries: 0,
        retryWait: null,
        tools: [],
        foldedTools: 0,
        children: [],
        worktree: null,
        worktreePath: null,
        approval: null,
        ...(e.member ? { member: e.member } : {}),
      };
      run.agents[e.agentId] = node;
      this.#agents.set(e.agentId, node);
      const parent = e.parentId ? agentOf(run, e.parentId) : undefined;
      if (parent) {
        parent.children.push(e.agentId);
        const row = parent.tools.find((t) => t.toolUseId === e.parentToolUseId);
        if (row) row.childAgentId = e.agentId;
      }
    }
    if (e.team) run.team = e.team;
    // Any agent at work (a follow-up to one of its agents included) makes the tree running.
    run.status = 'running';
    run.endedAt = null;
    run.version++;
  }

  #update(run: RunSnapshot, node: AgentNode, e: Exclude<RunEvent, RunEventOf<'agent_started'>>): void {
    // Anything the agent does after a retry means the retry went out.
    if (e.type !== 'retry' && node.retryWait) node.retryWait = null;
    switch (e.type) {
      case 'text':
        node.text = (node.text + e.text).slice(-this.#maxText);
        break;
      case 'retry':
        node.retries++;
        node.text = '';
        node.retryWait = { attempt: e.attempt, reason: capText(e.reason, CAPS.line), until: e.ts + e.delayMs };
        break;
      case 'tool_started':
        node.text = '';
        node.tools.push({ toolUseId: e.toolUseId, name: e.name, inputSummary: capText(e.inputSummary, CAPS.line), status: 'running', resultSummary: '', startedAt: e.ts, durationMs: null, childAgentId: null, ...(e.server ? { server: e.server } : {}) });
        this.#rows.set(run.runId, (this.#rows.get(run.runId) ?? 0) + 1);
        this.#foldRows(run);
        break;
      case 'tool_finished': {
        const row = node.tools.findLast((t) => t.toolUseId === e.toolUseId);
        if (row) Object.assign(row, { status: e.ok ? 'ok' : 'error', resultSummary: capText(e.resultSummary, CAPS.line), durationMs: e.durationMs });
        break;
      }
      case 'usage':
        run.usage = addUsage(run.usage, subtract(e.usage, node.usage));
        node.usage = e.usage;
        node.turns = e.turns;
        break;
      case 'notice':
        node.notices = [...(node.notices ?? []), capText(e.message, CAPS.line)].slice(-MAX_NOTICES);
        break;
      case 'worktree_created':
        node.worktreePath = e.path;
        break;
      case 'approval_requested':
        node.approval = {
          approvalId: e.approvalId,
          toolUseId: e.toolUseId,
          toolName: e.toolName,
          kind: e.kind,
          summary: capText(e.summary, CAPS.line),
          requestedAt: e.ts,
          protectedReason: e.protectedReason == null ? null : capText(e.protectedReason, CAPS.line),
          detail: e.detail == null ? null : capText(e.detail, CAPS.detail),
        };
        node.status = 'waiting';
        run.status = 'waiting';
        break;
      case 'message_queued': {
        const messages = (node.messages ??= []);
        if (messages.some((m) => m.messageId === e.messageId)) break;
        messages.push({ messageId: e.messageId, kind: e.kind, from: e.from, via: e.via, text: capText(e.text, CAPS.line), sentAt: e.ts, deliveredAt: null });
        if (messages.length > MAX_MESSAGES) messages.splice(0, messages.length - MAX_MESSAGES);
        break;
      }
      case 'message_delivered': {
        const message = node.messages?.find((m) => m.messageId === e.messageId);
        if (message) message.deliveredAt = e.ts;
        break;
      }
      case 'agent_idle':
        // An approval answered meanwhile is the only thing that could make it `waiting`; idle replaces running.
        node.status = e.idle ? 'idle' : 'running';
        node.idleOutput = e.idle ? (e.output ?? null) : null;
        if (e.idle) {
          node.text = '';
          node.rests = (node.rests ?? 0) + 1;
          node.restedSaying = e.output ?? null;
        }
        break;
      case 'task_changed': {
        const tasks = (run.tasks ??= []);
        const at = tasks.findIndex((t) => t.id === e.task.id);
        if (e.change === 'deleted') {
          if (at >= 0) tasks.splice(at, 1);
        } else if (at >= 0) tasks[at] = e.task;
        else tasks.push(e.task);
        break;
      }
      case 'approval_settled':
        if (node.approval?.approvalId === e.approvalId) node.approval = null;
        if (node.status === 'waiting' && !node.approval) node.status = 'running';
        if (run.status === 'waiting' && !Object.values(run.agents).some((a) => a.status === 'waiting')) run.status = 'running';
        break;
      case 'agent_finished':
        run.usage = addUsage(run.usage, subtract(e.usage, node.usage));
        Object.assign(node, {
          status: e.status,
          endedAt: e.ts,
          output: e.output === null ? null : capText(e.output, CAPS.output),
          error: e.error === null ? null : capText(e.error, CAPS.error),
          usage: e.usage,
          turns: e.turns,
          worktree: e.worktree,
          approval: null,
          idleOutput: null,
          ...(e.structuredOutput !== undefined ? { structuredOutput: e.structuredOutput } : {}),
        });
        for (const row of node.tools) if (row.status === 'running') row.status = 'error';
        if (!Object.values(run.agents).some((a) => isActiveStatus(a.status))) {
          run.status = agentOf(run, run.rootAgentId)?.status ?? e.status;
          run.endedAt = e.ts;
        } else if (run.status === 'waiting' && !Object.values(run.agents).some((a) => a.status === 'waiting')) {
          run.status = 'running';
        }
        break;
    }
    run.version++;
  }

  #changed(runId: string): void {
    this.#pending.add(runId);
    if (this.#coalesceMs === 0) return this.flush();
    this.#timer ??= setTimeout(() => this.flush(), this.#coalesceMs);
  }

  /**
   * Folds the run's oldest tool rows (whichever agent made them) into their
   * agent's count until the run is within the cap. Returns whether any went.
   */
  #foldRows(run: RunSnapshot): boolean {
    let rows = this.#rows.get(run.runId) ?? 0;
    if (rows <= this.#maxRows) return false;
    const agents = Object.values(run.agents);
    while (rows > this.#maxRows) {
      let oldest: AgentNode | undefined;
      for (const node of agents) if (node.tools.length && (!oldest || node.tools[0]!.startedAt < oldest.tools[0]!.startedAt)) oldest = node;
      if (!oldest) break;
      oldest.tools.shift();
      oldest.foldedTools++;
      rows--;
    }
    this.#rows.set(run.runId, rows);
    run.version++;
    return true;
  }

  #prune(): void {
    if (this.#runs.size <= this.#maxRuns) return;
    const finished = [...this.#runs.values()].filter((r) => !isActiveStatus(r.status)).sort((a, b) => a.startedAt - b.startedAt);
    for (const run of finished.slice(0, this.#runs.size - this.#maxRuns)) this.remove(run.runId);
  }
}

function subtract(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens - b.inputTokens,
    outputTokens: a.outputTokens - b.outputTokens,
    cacheReadTokens: a.cacheReadTokens - b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens - b.cacheWriteTokens,
    costUsd: a.costUsd - b.costUsd,
  };
}
