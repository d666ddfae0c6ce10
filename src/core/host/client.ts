import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type * as z from 'zod/mini';
import { CLIENT_CAPABILITIES, hostRequestSchema, notificationSchema, PROTOCOL_MAJOR, PROTOCOL_MINOR, type resultSchemas, type HostNotification, type HostSettings, type HostStatus, type StoreOp } from '../../protocol/host';
import { isActiveStatus, type FinishStatus, type RunEvent } from '../../protocol/runEvents';
import type { AgentNode, RunSnapshot } from '../../protocol/runSnapshot';
import type { AgentResult } from '../engine/tree/agentRun';
import { RunStore } from '../runs/runStore';
import type { ApprovalAsker, InboxChange, PendingApproval } from '../tools/approvalInbox';
import type { ApprovalDecision } from '../tools/permissions';
import type { ModeWidening } from '../tools/modeConsent';
import type { ToolOutput } from '../tools/runtimeTool';
import type { EditorTool } from '../mcp/editorTools';
import type { AgentRuntime, ApprovalsView, FollowUpRequest, RunHandle, SendRequest, SendResult, StartRequest, StopOutcome, StopRequest } from '../runtime/api';
import { EngineError } from '../engine/errors';
import { HostError, Peer } from './peer';

/**
 * A client of the agent host: the runtime as a surface sees it (AgentRuntime),
 * served from the host over its socket. The run store here is a copy the
 * host's feed keeps equal to its own; approvals, starts, messages and stops
 * are requests. When the connection drops (the host was stopped, crashed,
 * or a new version replaced it) a client that may reconnect does so, to the
 * same host or a new one, and takes its whole state again: nothing about
 * the window needs to reload.
 */

/**
 * How often a window's copy of the host's store tells its surfaces of
 * changes at most (ms). The host already batches its feed per turn of its
 * event loop, so the copy needs little more: short enough that an event
 * reaches the Runs view within 50 ms at 1,000 events a second (bench/host.ts).
 */
export const WINDOW_COALESCE_MS = 16;

export interface ClientIdentity {
  kind: 'vscode' | 'cli' | 'other';
  version: string;
  build: string;
  pid: number;
  folders?: string[];
}

/** What this client answers when the host asks (each one a capability it declares). */
export interface ClientHandlers {
  modeConsent?(request: ModeWidening, signal: AbortSignal): Promise<boolean>;
  mcpInputs?(server: string, ids: readonly string[]): Promise<ReadonlyMap<string, string> | null>;
  /** Runs one of the editor's tools; `context` is what this client gave the run when it started it (see `contexts`). */
  editorTool?(request: { tool: string; input: Record<string, unknown>; toolUseId: string; context?: unknown }, signal: AbortSignal): Promise<ToolOutput>;
  /** Starts what the editor can (its MCP servers), then says which tools it has. */
  prepareEditorTools?(missing: readonly string[], timeoutMs: number): Promise<EditorTool[]>;
}

export interface HostClientOptions {
  /** A new connection to the host: the one running, or (where the caller may) one it starts. */
  connect(): Promise<{ socket: Duplex; token: string }>;
  identity: ClientIdentity;
  handlers?: ClientHandlers;
  /** The user's host settings, sent with each hello. */
  settings?: () => HostSettings;
  /** Reconnect when the connection drops (a window); a command that ends with its run does not. */
  reconnect: boolean;
  log(level: 'info' | 'warn' | 'error', message: string): void;
  /** The copy's listeners hear of changes at most this often (ms). */
  coalesceMs?: number;
  /** Told when the connection is lost and found again. */
  onConnection?(state: 'connected' | 'lost' | 'closed', detail: string): void;
  /**
   * Take older ended runs as summaries first and whole right after (a window: its Runs view shows at once, however
   * long the history). Until `whole` resolves, those runs' agents lack their tool rows.
   */
  summaries?: boolean;
}

/** Runs taken whole per request after a summarized subscribe: small answers, so the feed is never held up long. */
const DETAIL_PAGE = 25;

type Waiter = () => void;

export class HostClient implements AgentRuntime {
  readonly store: RunStore;
  readonly approvals: ApprovalsView;
  readonly #options: HostClientOptions;
  #peer: Peer | null = null;
  #host: { version: string; build: string; pid: number; startedAt: number } | null = null;
  /** What the host said it offers (an older host lacks what came later). */
  #hostCapabilities = new Set<string>();
  #seq = 0;
  #closed = false;
  #reconnecting: Promise<void> | null = null;
  readonly #connectedWaiters = new Set<Waiter>();
  readonly #events = new Set<(event: RunEvent) => void>();
  readonly #pending = new Map<string, { approval: PendingApproval; settled: AbortController }>();
  readonly #askers = new Set<ApprovalAsker>();
  readonly #approvalListeners = new Set<(change: InboxChange) => void>();
  /** What runs started here carry for the editor's tools (a chat's tool token), by the id the host knows. */
  readonly #contexts = new Map<string, unknown>();
  #whole: Promise<void> = Promise.resolve();

  private constructor(options: HostClientOptions) {
    this.#options = options;
    this.store = new RunStore({ coalesceMs: options.coalesceMs ?? 100 });
    const pending = this.#pending;
    this.approvals = {
      get pending() {
        return [...pending.values()].map((p) => p.approval);
      },
      get: (id) => pending.get(id)?.approval,
      addAsker: (asker, options) => {
        this.#askers.add(asker);
        if (options?.includePending) {
          for (const { approval, settled } of pending.values()) {
            try {
              asker(approval, settled.signal);
            } catch {
              // One surface failing to show the question leaves the others.
            }
          }
        }
        return () => this.#askers.delete(asker);
      },
      onDidChange: (listener) => {
        this.#approvalListeners.add(listener);
        return () => this.#approvalListeners.delete(listener);
      },
      answer: (approvalId, decision) => this.#request('answer', { approvalId, decision }),
    };
  }

  /** Connects, says hello, takes the host's state; rejects when the host cannot be reached or refuses. */
  static async open(options: HostClientOptions): Promise<HostClient> {
    const client = new HostClient(options);
    await client.#connect();
    return client;
  }

  /** The host this client talks to now. */
  get host(): { version: string; build: string; pid: number; startedAt: number } | null {
    return this.#host;
  }

  get connected(): boolean {
    return Boolean(this.#peer && !this.#peer.closed);
  }

  async #connect(): Promise<void> {
    const { socket, token } = await this.#options.connect();
    const peer = new Peer(socket, {
      incoming: { request: hostRequestSchema, notify: notificationSchema },
      log: (level, message) => this.#options.log(level, `agent host: ${message}`),
      onRequest: (method, params, signal) => this.#answer(method, params, signal),
      onNotification: (message) => this.#notified(message as unknown as HostNotification),
      onClose: () => this.#lost(peer),
    });
    try {
      const hello = await peer.request('hello', {
        protocol: { major: PROTOCOL_MAJOR, minor: PROTOCOL_MINOR },
        token,
        client: this.#options.identity,
        capabilities: CLIENT_CAPABILITIES.filter((c) => this.#handles(c)),
        ...(this.#options.settings ? { settings: this.#options.settings() } : {}),
      });
      const before = this.#host;
      this.#host = hello.host;
      this.#hostCapabilities = new Set(hello.capabilities);
      // Another host than before: the one that held this copy's approvals died with them unanswered.
      const hostDied = before !== null && (before.pid !== hello.host.pid || before.startedAt !== hello.host.startedAt);
      // Applied as it arrives: the feed that follows it in the same chunk continues from it.
      const state = await peer.request('subscribe', { summaries: this.#options.summaries === true }, undefined, (state) => this.#stateNow(state, hostDied));
      this.#peer = peer;
      this.#whole = this.#takeWhole(peer, state.summarized ?? []);
    } catch (error) {
      peer.close();
      throw error;
    }
    for (const waiter of this.#connectedWaiters) waiter();
    this.#connectedWaiters.clear();
    this.#options.onConnection?.('connected', `agent host ${this.#host?.version ?? ''} (pid ${this.#host?.pid ?? '?'})`);
  }

  /** Resolves once every run in the copy is whole (after a summarized subscribe, its summaries have been replaced). */
  get whole(): Promise<void> {
    return this.#whole;
  }

  #stateNow(state: { seq: number; runs: RunSnapshot[]; approvals: PendingApproval[] }, hostDied = false): void {
    this.#seq = state.seq;
    this.store.reset(state.runs);
    this.#approvalsNow(state.approvals, hostDied);
  }

  /**
   * Replaces the summaries with whole runs: every page asked at once (no round trip between them), each answer
   * applied where it arrives in the feed, and none so large that taking it holds up what follows for long.
   */
  async #takeWhole(peer: Peer, runIds: readonly string[]): Promise<void> {
    const pages: string[][] = [];
    for (let i = 0; i < runIds.length; i += DETAIL_PAGE) pages.push(runIds.slice(i, i + DETAIL_PAGE));
    try {
      await Promise.all(pages.map((page) => peer.request('runs', { runIds: page }, undefined, (answer) => this.store.load(answer.runs))));
    } catch (error) {
      // The connection ended: the next one takes the state again.
      if (!peer.closed) this.#options.log('warn', `agent host: could not take the history's runs whole: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  #handles(capability: (typeof CLIENT_CAPABILITIES)[number]): boolean {
    const h = this.#options.handlers ?? {};
    return capability === 'modeConsent' ? Boolean(h.modeConsent) : capability === 'mcpInputs' ? Boolean(h.mcpInputs) : Boolean(h.editorTool);
  }

  /** The connection ended: found again (a window), or the client is done (a command). */
  #lost(peer: Peer): void {
    if (this.#peer !== peer) return;
    this.#peer = null;
    if (this.#closed) return;
    if (!this.#options.reconnect) {
      this.#closed = true;
      this.#options.onConnection?.('closed', 'The connection to the agent host ended.');
      return;
    }
    this.#options.onConnection?.('lost', 'The connection to the agent host ended; connecting again.');
    this.#reconnecting ??= this.#reconnect().finally(() => (this.#reconnecting = null));
  }

  async #reconnect(): Promise<void> {
    for (let attempt = 0, wait = 50; !this.#closed; attempt++, wait = Math.min(wait * 2, 2000)) {
      try {
        await this.#connect();
        return;
      } catch (error) {
        if (attempt % 10 === 0) this.#options.log('warn', `Could not reach the agent host yet (${error instanceof Error ? error.message : String(error)}); trying again.`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** A request, waiting for the connection to come back when it was lost (not when the client is closed). */
  async #request<M extends keyof typeof resultSchemas>(method: M, params: unknown, signal?: AbortSignal): Promise<z.infer<(typeof resultSchemas)[M]>> {
    for (;;) {
      const peer = this.#peer;
      if (peer && !peer.closed) {
        try {
          return await peer.request(method, params, signal);
        } catch (error) {
          // Lost on the way: a request that changes nothing is asked again of the next host; the others say so.
          if (!(error instanceof HostError && error.wire.code === 'unavailable' && this.#options.reconnect && (method === 'waitFor' || method === 'status'))) throw error;
        }
      }
      if (this.#closed || !this.#options.reconnect) throw new HostError({ code: 'unavailable', message: 'Not connected to the agent host.' });
      await this.#whenConnected(signal);
    }
  }

  #whenConnected(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new HostError({ code: 'cancelled', message: 'The request was cancelled.' }));
      const done = () => {
        signal?.removeEventListener('abort', cancel);
        resolve();
      };
      const cancel = () => {
        this.#connectedWaiters.delete(done);
        reject(new HostError({ code: 'cancelled', message: 'The request was cancelled.' }));
      };
      signal?.addEventListener('abort', cancel, { once: true });
      this.#connectedWaiters.add(done);
    });
  }

  // ---- what the host says --------------------------------------------------

  #notified(message: HostNotification): void {
    switch (message.topic) {
      case 'feed':
        if (message.seq !== this.#seq + 1) {
          this.#options.log('warn', `The agent host's feed skipped from ${this.#seq} to ${message.seq}; taking its whole state again.`);
          void this.#resubscribe();
          return;
        }
        this.#seq = message.seq;
        for (const op of message.ops) this.#apply(op);
        return;
      case 'resync':
        this.#seq = message.seq;
        this.store.reset(message.runs);
        this.#approvalsNow(message.approvals);
        return;
      case 'approvalRequested':
        this.#requested(message.approval);
        return;
      case 'approvalSettled':
        this.#settled(message.approvalId, message.decision);
        return;
      case 'bye':
        this.#options.log('info', `The agent host is going: ${message.reason}`);
        return;
    }
  }

  async #resubscribe(): Promise<void> {
    const peer = this.#peer;
    const state = await peer?.request('subscribe', { summaries: this.#options.summaries === true }, undefined, (state) => this.#stateNow(state)).catch(() => null);
    if (peer && state) this.#whole = this.#takeWhole(peer, state.summarized ?? []);
  }

  #apply(op: StoreOp): void {
    switch (op.op) {
      case 'event':
        this.store.apply(op.event);
        for (const listener of this.#events) {
          try {
            listener(op.event);
          } catch {
            // A surface that fails to render must not stop the others.
          }
        }
        return;
      case 'load':
        this.store.load(op.runs);
        return;
      case 'remove':
        this.store.remove(op.runId);
        return;
      case 'limits':
        this.store.setLimits(op.limits);
        return;
    }
  }

  /** The approvals waiting now, after a (re)connection: new ones are asked, gone ones settled (withdrawn, when their host died). */
  #approvalsNow(approvals: readonly PendingApproval[], hostDied = false): void {
    const now = new Set(approvals.map((a) => a.request.id));
    const gone: ApprovalDecision = hostDied
      ? { allow: false, reason: 'the agent host that asked it stopped before it was answered', by: 'stopped' }
      : { allow: false, reason: 'answered while this client was away', by: 'elsewhere' };
    for (const id of [...this.#pending.keys()]) if (!now.has(id)) this.#settled(id, gone);
    for (const approval of approvals) if (!this.#pending.has(approval.request.id)) this.#requested(approval);
  }

  #requested(approval: PendingApproval): void {
    if (this.#pending.has(approval.request.id)) return;
    const settled = new AbortController();
    this.#pending.set(approval.request.id, { approval, settled });
    this.#emitApproval({ type: 'requested', approval });
    for (const ask of this.#askers) {
      try {
        ask(approval, settled.signal);
      } catch {
        // One surface failing to show the question leaves the others.
      }
    }
  }

  #settled(approvalId: string, decision: ApprovalDecision): void {
    const entry = this.#pending.get(approvalId);
    if (!entry) return;
    this.#pending.delete(approvalId);
    entry.settled.abort();
    this.#emitApproval({ type: 'settled', approval: entry.approval, decision });
  }

  #emitApproval(change: InboxChange): void {
    for (const listener of this.#approvalListeners) {
      try {
        listener(change);
      } catch {
        // A failing surface must not stop the others.
      }
    }
  }

  /** What the host asks of this client. */
  async #answer(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const handlers = this.#options.handlers ?? {};
    switch (method) {
      case 'modeConsent':
        return handlers.modeConsent ? handlers.modeConsent(params as ModeWidening, signal) : false;
      case 'mcpInputs': {
        const p = params as { server: string; ids: string[] };
        const values = handlers.mcpInputs ? await handlers.mcpInputs(p.server, p.ids) : null;
        return values ? Object.fromEntries(values) : null;
      }
      case 'editorTool': {
        if (!handlers.editorTool) throw new HostError({ code: 'unavailable', message: 'This client runs no editor tools.' });
        const p = params as { tool: string; input: Record<string, unknown>; toolUseId: string; context?: string };
        return handlers.editorTool({ ...p, context: p.context ? this.#contexts.get(p.context) : undefined }, signal);
      }
      case 'prepareEditorTools': {
        const p = params as { missing: string[]; timeoutMs: number };
        return (await handlers.prepareEditorTools?.(p.missing, p.timeoutMs)) ?? [];
      }
      default:
        throw new HostError({ code: 'protocol', message: `No such request: ${method}.` });
    }
  }

  // ---- the runtime's API ---------------------------------------------------

  onEvent(listener: (event: RunEvent) => void): () => void {
    this.#events.add(listener);
    return () => this.#events.delete(listener);
  }

  /** An id for what a run carries for the editor's tools here; the host names it back when a tool is called. */
  #context(runContext: unknown): string | undefined {
    if (runContext === undefined) return undefined;
    const id = randomUUID();
    this.#contexts.set(id, runContext);
    // The newest hundred: older runs' calls confirm in a dialog instead of their chat.
    if (this.#contexts.size > 100) this.#contexts.delete(this.#contexts.keys().next().value!);
    return id;
  }

  async start(request: StartRequest): Promise<RunHandle> {
    const { runContext, signal, scope, ...rest } = request;
    // An older host would drop the team and run its lead alone: say so instead.
    if (rest.team && !this.#hostCapabilities.has('teams')) {
      throw new EngineError(`The agent host running now (${this.#host?.version ?? 'an older version'}) cannot run teams. Let it exit once no agent is at work in it (\`subagents host stop --when-idle\`), then run the team again.`);
    }
    const handle = await this.#request('start', { ...rest, scope: wireScope(scope), ...optional('context', this.#context(runContext)) }, signal);
    return this.#handle(handle);
  }

  async followUp(request: FollowUpRequest): Promise<RunHandle> {
    const { runContext, signal, scope, ...rest } = request;
    return this.#handle(await this.#request('followUp', { ...rest, scope: wireScope(scope), ...optional('context', this.#context(runContext)) }, signal));
  }

  async send(request: SendRequest): Promise<SendResult> {
    const { runContext, signal, scope, ...rest } = request;
    const outcome = await this.#request('send', { ...rest, ...(scope ? { scope: wireScope(scope) } : {}), ...optional('context', this.#context(runContext)) }, signal);
    return outcome.delivery === 'elsewhere' ? outcome : { delivery: outcome.delivery, handle: this.#handle(outcome.handle) };
  }

  stop(request: StopRequest): Promise<StopOutcome> {
    return this.#request('stop', request);
  }

  stopRun(runId: string, reason: string): Promise<number> {
    return this.#request('stopRun', { runId, reason });
  }

  stopAll(reason: string): Promise<number> {
    return this.#request('stopAll', { reason });
  }

  async waitFor(agentId: string, signal?: AbortSignal): Promise<AgentResult | null> {
    try {
      return await this.#request('waitFor', { agentId }, signal);
    } catch (error) {
      if (signal?.aborted && error instanceof HostError && error.wire.code === 'cancelled') return null;
      throw error;
    }
  }

  async settle(runId: string): Promise<void> {
    await this.#until(() => {
      const run = this.store.get(runId);
      return !run || !Object.values(run.agents).some((a) => isActiveStatus(a.status));
    });
  }

  status(): Promise<HostStatus> {
    return this.#request('status', {});
  }

  shutdown(whenIdle: boolean): Promise<{ stopping: boolean }> {
    return this.#request('shutdown', { whenIdle });
  }

  /** New user settings: the host's timers and the history's caps follow. */
  async applySettings(settings: HostSettings): Promise<void> {
    await this.#request('settings', settings);
  }

  /** The editor's tools this window has, for agents that name them. */
  async reportEditorTools(tools: EditorTool[]): Promise<void> {
    await this.#request('editorTools', { tools });
  }

  #handle(info: { agentId: string; runId: string; agentName: string }): RunHandle {
    return { ...info, result: () => this.#result(info) };
  }

  /**
   * The agent's result: the host's answer while it is at work there; once it
   * is not (it ended, or the host that ran it died and a new one marked it
   * interrupted), what its snapshot says.
   */
  async #result(info: { agentId: string; runId: string; agentName: string }): Promise<AgentResult> {
    for (;;) {
      const result = await this.#request('waitFor', { agentId: info.agentId });
      if (result) return result;
      const ended = await this.#until(() => {
        const node = this.store.agent(info.agentId);
        return node && !isActiveStatus(node.status) ? node : null;
      }, 2000);
      if (ended) return resultOf(ended);
    }
  }

  /** Resolves with `check`'s value once it has one, looking whenever the copy changes (or after `ms`, with null). */
  #until<T>(check: () => T | null | false | undefined, ms?: number): Promise<T | null> {
    const now = check();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const timer = ms === undefined ? null : setTimeout(() => finish(null), ms);
      const unsubscribe = this.store.subscribe(() => {
        const value = check();
        if (value) finish(value);
      });
      const finish = (value: T | null) => {
        if (timer) clearTimeout(timer);
        unsubscribe();
        resolve(value);
      };
    });
  }

  /** Lets go of the host: its runs go on there. */
  close(): void {
    this.#closed = true;
    this.#peer?.close();
    this.#peer = null;
    for (const { settled } of this.#pending.values()) settled.abort();
  }
}

/** An agent's result as its snapshot tells it (for an agent that is not at work). */
export function resultOf(node: AgentNode): AgentResult {
  return {
    agentId: node.agentId,
    runId: node.runId,
    agentName: node.agentName,
    status: node.status as FinishStatus,
    output: node.output,
    ...(node.structuredOutput !== undefined ? { structuredOutput: node.structuredOutput } : {}),
    error: node.error,
    usage: node.usage,
    turns: node.turns,
    durationMs: Math.max(0, (node.endedAt ?? node.startedAt) - node.startedAt),
    worktree: node.worktree,
  };
}

function wireScope(scope: StartRequest['scope']): Record<string, unknown> {
  return { ...scope, settings: scope.settings as unknown as Record<string, unknown> };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
