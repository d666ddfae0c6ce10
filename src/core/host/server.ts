import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type * as z from 'zod/mini';
import { clientRequestSchema, HOST_CAPABILITIES, PROTOCOL_MAJOR, PROTOCOL_MINOR, type HostSettings, type HostStatus, type StoreOp } from '../../protocol/host';
import { parseSettings } from '../config';
import type { EditorInvocation, EditorTool, EditorToolProvider } from '../mcp/editorTools';
import { isActiveStatus } from '../../protocol/runEvents';
import { runSummary, type RunSnapshot } from '../../protocol/runSnapshot';
import type { Runtime } from '../runtime/runtime';
import type { ScopeSpec } from '../runtime/scopeSpec';
import type { ModeWidening } from '../tools/modeConsent';
import type { ToolOutput } from '../tools/runtimeTool';
import { newerBuild } from './build';
import { HostLifetime } from './lifetime';
import { Encoded, HostError, Peer } from './peer';

/**
 * The agent host's side of every connection: checks each client's hello
 * (the token, the protocol's major version), then serves the runtime's
 * API (src/core/runtime/api.ts) as requests, and the run store's changes as
 * one feed every subscribed client applies to its own copy. It also asks
 * clients what only they can answer: whether an agent file may widen its
 * permission mode, `${input:…}` values of an MCP server, VS Code's own tools.
 */

export interface HostInfo {
  version: string;
  build: string;
  pid: number;
  startedAt: number;
}

export interface HostServerOptions {
  token: string;
  info: HostInfo;
  socket: string;
  settings: HostSettings;
  log(level: 'info' | 'warn' | 'error', message: string): void;
  /** Time for the host to go: idle, or asked to (`stopRuns`: stop what still runs first). */
  exit(reason: string, stopRuns: boolean): void;
  /** Bytes a client may fall behind before it gets the whole state instead of the changes (default 16 MB). */
  lagLimit?: number;
  /** The host has just become idle (see HostLifetime). */
  rest?(): void;
}

/** A client that fell this far behind gets the whole state again once it catches up, instead of every change. */
const LAG_LIMIT = 16 * 1024 * 1024;

/**
 * Runs that ended sent whole to a client that asks for summaries: the newest ones, which the Runs view shows open.
 * The rest go as summaries (a run's tool rows are most of its size: 200 runs were 8 MB whole, ~0.7 MB as summaries).
 */
export const WHOLE_ENDED_RUNS = 20;

type Params<M extends string> = Extract<z.infer<typeof clientRequestSchema>, { method: M }>['params'];
type ClientKind = Params<'hello'>['client']['kind'];

interface ClientInfo {
  kind: ClientKind;
  version: string;
  build: string;
  pid: number;
  folders?: string[];
}

const CLIENT_WORDS: Record<ClientKind, string> = { vscode: 'A VS Code window', cli: 'A terminal', other: 'A client' };

class Connection {
  readonly id = randomUUID();
  readonly connectedAt = Date.now();
  peer!: Peer;
  client: ClientInfo | null = null;
  capabilities = new Set<string>();
  subscribed = false;
  /** Fell behind the feed: waits to catch up, then gets the whole state. */
  lagging = false;
  editorTools: EditorTool[] = [];

  /** "A VS Code window (pid 123)", for the host's log. */
  describe(): string {
    return this.client ? `${CLIENT_WORDS[this.client.kind]} (pid ${this.client.pid})` : 'A connection';
  }
}

/** What a run started through the host carries for the editor's tools: which client started it, and its own id for the run there. */
interface HostRunContext {
  connection: string;
  context?: string;
}

export class HostServer {
  readonly #options: HostServerOptions;
  readonly #connections = new Map<string, Connection>();
  /** Which connection started each run: it is asked first about that run's consents and tools. */
  readonly #runOwners = new Map<string, string>();
  #runtime: Runtime | null = null;
  #settings: HostSettings;
  readonly lifetime: HostLifetime;
  #feed: string[] = [];
  #seq = 0;
  #flushing = false;
  readonly #editorListeners = new Set<() => void>();
  readonly #disposers: Array<() => void> = [];
  #whenIdle = false;

  constructor(options: HostServerOptions) {
    this.#options = options;
    this.#settings = options.settings;
    this.lifetime = new HostLifetime({
      settings: () => this.#settings,
      clients: () => this.clients,
      busy: () => this.#runtime?.busy ?? false,
      pending: () => this.#runtime?.inbox.pending.map((p) => p.request.id) ?? [],
      deny: (approvalId, reason) => this.#runtime?.inbox.answer(approvalId, { allow: false, reason, by: 'unattended' }),
      exit: (reason) => this.#options.exit(`The agent host exits: ${reason}.`, false),
      rest: () => this.#options.rest?.(),
    });
  }

  get settings(): HostSettings {
    return this.#settings;
  }

  /** Clients that said hello and are still connected. */
  get clients(): number {
    return [...this.#connections.values()].filter((c) => c.client).length;
  }

  /** Serves `runtime` from now on: its store's changes become the feed, its approvals the clients'. */
  attach(runtime: Runtime): void {
    this.#runtime = runtime;
    this.#disposers.push(
      runtime.store.observe((op) => this.#queue(op)),
      runtime.inbox.onDidChange((change) => {
        if (change.type === 'requested') {
          this.#broadcast({ topic: 'approvalRequested', approval: change.approval });
          this.lifetime.approvalRequested(change.approval.request.id);
        } else {
          this.#broadcast({ topic: 'approvalSettled', approvalId: change.approval.request.id, decision: change.decision });
          this.lifetime.approvalSettled(change.approval.request.id);
        }
      }),
      runtime.onEvent((event) => {
        if (event.type === 'agent_started' || event.type === 'agent_finished') queueMicrotask(() => this.#checkIdle());
      }),
    );
    this.lifetime.changed();
  }

  #checkIdle(): void {
    this.lifetime.changed();
    if (this.#whenIdle && !this.#runtime?.busy) this.#options.exit('The agent host hands over: it was asked to go once no agent was at work.', false);
  }

  /** Serves one connection: nothing but its hello is answered until the hello is good. */
  accept(socket: Duplex): void {
    const connection = new Connection();
    connection.peer = new Peer(socket, {
      incoming: { request: clientRequestSchema, notify: null },
      log: (level, message) => this.#options.log(level, `[${connection.describe()}] ${message}`),
      onRequest: (method, params, signal) => this.#request(connection, method, params, signal),
      // A run's end reaches the client before the answer that waited for it.
      beforeAnswer: () => this.#flush(),
      onClose: () => {
        this.#connections.delete(connection.id);
        if (connection.editorTools.length) this.#editorChanged();
        if (connection.client) this.#options.log('info', `${connection.describe()} left; ${this.clients} connected.`);
        this.lifetime.clientsChanged();
      },
    });
    this.#connections.set(connection.id, connection);
  }

  async #request(connection: Connection, method: string, raw: unknown, signal: AbortSignal): Promise<unknown> {
    if (method !== 'hello' && !connection.client) throw new HostError({ code: 'unauthorized', message: 'Say hello first, with the host token.' }, true);
    const runtime = this.#runtime;
    if (!runtime) throw new HostError({ code: 'unavailable', message: 'The agent host is still starting.' });
    switch (method) {
      case 'hello':
        return this.#hello(connection, raw as Params<'hello'>);
      case 'subscribe':
        return await this.#subscribe(connection, (raw as Params<'subscribe'>).summaries === true);
      case 'runs': {
        const wanted = (raw as Params<'runs'>).runIds;
        // Runs the store holds as summaries are read from their files first.
        const read = await runtime.history.readWhole(wanted);
        // Taken as the answer is written, after the feed so far: the client's copy continues from it.
        return new Encoded(() => JSON.stringify({ runs: wanted.flatMap((id) => runtime.store.whole(id, read) ?? []) }));
      }
      case 'start': {
        const p = raw as Params<'start'>;
        const handle = await runtime.start({
          scope: scopeOf(p.scope),
          agent: p.agent,
          prompt: p.prompt,
          invoker: p.invoker,
          description: p.description,
          model: p.model,
          budget: p.budget,
          permissionMode: p.permissionMode,
          isolation: p.isolation,
          baseRef: p.baseRef,
          askApprovals: p.askApprovals,
          via: p.via,
          team: p.team,
          runContext: this.#context(connection, p.context),
          signal,
        });
        this.#runOwners.set(handle.runId, connection.id);
        return { agentId: handle.agentId, runId: handle.runId, agentName: handle.agentName };
      }
      case 'followUp': {
        const p = raw as Params<'followUp'>;
        const handle = await runtime.followUp({ scope: scopeOf(p.scope), agentId: p.agentId, prompt: p.prompt, permissionMode: p.permissionMode, budget: p.budget, askApprovals: p.askApprovals, runContext: this.#context(connection, p.context), signal });
        this.#runOwners.set(handle.runId, connection.id);
        return { agentId: handle.agentId, runId: handle.runId, agentName: handle.agentName };
      }
      case 'send': {
        const p = raw as Params<'send'>;
        const outcome = await runtime.send({
          agentId: p.agentId,
          text: p.text,
          via: p.via,
          scope: p.scope && scopeOf(p.scope),
          permissionMode: p.permissionMode,
          askApprovals: p.askApprovals,
          runContext: this.#context(connection, p.context),
          signal,
        });
        if (outcome.delivery === 'elsewhere') return outcome;
        return { delivery: outcome.delivery, handle: { agentId: outcome.handle.agentId, runId: outcome.handle.runId, agentName: outcome.handle.agentName } };
      }
      case 'stop':
        return runtime.stop(raw as Params<'stop'>);
      case 'stopRun': {
        const p = raw as Params<'stopRun'>;
        return runtime.stopRun(p.runId, p.reason);
      }
      case 'stopAll':
        return runtime.stopAll((raw as Params<'stopAll'>).reason);
      case 'waitFor':
        return runtime.waitFor((raw as Params<'waitFor'>).agentId, signal);
      case 'answer': {
        const p = raw as Params<'answer'>;
        return runtime.approvals.answer(p.approvalId, p.decision);
      }
      case 'settings':
        this.#applySettings(raw as Params<'settings'>);
        return null;
      case 'status':
        return this.status();
      case 'shutdown':
        return this.#shutdown((raw as Params<'shutdown'>).whenIdle === true);
      case 'editorTools':
        connection.editorTools = (raw as Params<'editorTools'>).tools.map((t) => ({ ...t, inputSchema: t.inputSchema ?? null }));
        this.#editorChanged();
        return null;
      default:
        throw new HostError({ code: 'protocol', message: `No such request: ${method}.` });
    }
  }

  #hello(connection: Connection, hello: Params<'hello'>) {
    if (!sameToken(hello.token, this.#options.token)) throw new HostError({ code: 'unauthorized', message: 'The token does not match this agent host’s: only the user who started it can connect.' }, true);
    if (hello.protocol.major !== PROTOCOL_MAJOR) {
      throw new HostError({ code: 'protocol', message: `This agent host speaks protocol ${PROTOCOL_MAJOR}.${PROTOCOL_MINOR}, the client ${hello.protocol.major}.${hello.protocol.minor}.` }, true);
    }
    connection.client = hello.client;
    connection.capabilities = new Set(hello.capabilities);
    if (hello.settings) this.#applySettings(hello.settings);
    this.#options.log('info', `${connection.describe()}, version ${hello.client.version}, connected; ${this.clients} connected.`);
    this.lifetime.clientsChanged();
    if (hello.client.kind === 'vscode' && newerBuild(hello.client.build, this.#options.info.build)) {
      // An updated extension is here: it gets a host of its own build once nothing runs in this one (never by stopping a run);
      // its windows reconnect to the new host by themselves.
      this.#whenIdle = true;
      this.#options.log('info', `A client of a newer build (${hello.client.build}) connected: this host (${this.#options.info.build}) hands over once no agent is at work.`);
      setImmediate(() => this.#checkIdle());
    }
    return { protocol: { major: PROTOCOL_MAJOR, minor: PROTOCOL_MINOR }, host: this.#options.info, capabilities: [...HOST_CAPABILITIES], connection: connection.id };
  }

  /**
   * The state as of the answer, and the feed from there on: what changed
   * before is flushed to the other clients first (beforeAnswer), so this one
   * gets every change exactly once.
   */
  async #subscribe(connection: Connection, summaries: boolean): Promise<Encoded> {
    const read = await this.#readWhole(summaries);
    // Taken as the answer is written, right after the feed so far went to the others.
    return new Encoded(() => {
      connection.subscribed = true;
      connection.lagging = false;
      return this.#state(read, summaries);
    });
  }

  /** What `#state` sends whole of the runs the store holds as summaries: read from their files. */
  #readWhole(summaries: boolean): Promise<Map<string, RunSnapshot>> {
    const runs = this.#runtime!.store.list();
    const ended = runs.filter((run) => !isActiveStatus(run.status)).map((run) => run.runId);
    return this.#runtime!.history.readWhole(summaries ? ended.slice(0, WHOLE_ENDED_RUNS) : ended);
  }

  /**
   * The whole state (`read`: summarized runs read whole); with `summaries`, runs that ended past the newest
   * WHOLE_ENDED_RUNS as summaries (see the protocol's subscribe), and any whose file could not be read.
   */
  #state(read: ReadonlyMap<string, RunSnapshot>, summaries = false): string {
    const { store, inbox } = this.#runtime!;
    const summarized: string[] = [];
    let ended = 0;
    const sent = store.list().map((run) => {
      const whole = isActiveStatus(run.status) || !summaries || ++ended <= WHOLE_ENDED_RUNS ? store.whole(run.runId, read) : undefined;
      if (whole) return whole;
      summarized.push(run.runId);
      return store.isSummary(run.runId) ? run : runSummary(run);
    });
    return JSON.stringify({ seq: this.#seq, runs: sent, approvals: inbox.pending, ...(summaries ? { summarized } : {}) });
  }

  #applySettings(settings: HostSettings): void {
    this.#settings = { ...settings };
    if (settings.user) this.#runtime?.applySettings(parseSettings(settings.user).settings);
    this.lifetime.changed();
  }

  #shutdown(whenIdle: boolean): { stopping: boolean } {
    if (whenIdle && this.#runtime?.busy) {
      this.#whenIdle = true;
      return { stopping: false };
    }
    // Answered first: the client hears that the host goes, then the connection ends.
    setImmediate(() => this.#options.exit(whenIdle ? 'The agent host was stopped once no agent was at work.' : 'The agent host was stopped.', true));
    return { stopping: true };
  }

  /** Told to every client before the host goes, so they reconnect to the next one rather than report a crash. */
  goodbye(reason: string): void {
    this.#flush();
    this.#broadcast({ topic: 'bye', reason });
  }

  status(): HostStatus {
    const runtime = this.#runtime!;
    return {
      host: this.#options.info,
      protocol: { major: PROTOCOL_MAJOR, minor: PROTOCOL_MINOR },
      socket: this.#options.socket,
      clients: [...this.#connections.values()].flatMap((c) => (c.client ? [{ kind: c.client.kind, pid: c.client.pid, version: c.client.version, connectedAt: c.connectedAt, ...(c.client.folders ? { folders: c.client.folders } : {}) }] : [])),
      working: runtime.running.length,
      pendingApprovals: runtime.inbox.pending.length,
      scopes: runtime.scopeCount,
      settings: { idleExitSeconds: this.#settings.idleExitSeconds, unattendedApprovalSeconds: this.#settings.unattendedApprovalSeconds },
      idleExitAt: this.lifetime.idleExitAt,
    };
  }

  // ---- the feed ------------------------------------------------------------

  #queue(op: StoreOp): void {
    // Encoded now: the store's objects go on changing.
    this.#feed.push(JSON.stringify(op));
    if (!this.#flushing) {
      this.#flushing = true;
      setImmediate(() => this.#flush());
    }
  }

  /** Sends what the store did since the last flush, as one message, to every client that keeps up. */
  #flush(): void {
    this.#flushing = false;
    if (this.#feed.length === 0) return;
    const seq = ++this.#seq;
    const line = `{"kind":"notify","topic":"feed","seq":${seq},"ops":[${this.#feed.join(',')}]}`;
    this.#feed = [];
    for (const connection of this.#connections.values()) {
      if (!connection.subscribed || connection.lagging) continue;
      if (connection.peer.backlog > (this.#options.lagLimit ?? LAG_LIMIT)) {
        this.#resyncLater(connection);
        continue;
      }
      connection.peer.sendLine(line);
    }
  }

  #resyncLater(connection: Connection): void {
    connection.lagging = true;
    this.#options.log('warn', `${connection.describe()} fell behind the feed; it gets the whole state again once it catches up.`);
    void connection.peer.drained().then(async () => {
      const read = await this.#readWhole(false);
      if (connection.peer.closed) return;
      this.#flush();
      connection.lagging = false;
      const state = this.#state(read);
      connection.peer.sendLine(`{"kind":"notify","topic":"resync",${state.slice(1)}`);
    });
  }

  #broadcast(message: Record<string, unknown>): void {
    // The feed goes first: an approval's notice never overtakes the event that tells of it.
    this.#flush();
    for (const connection of this.#connections.values()) if (connection.subscribed) connection.peer.notify(message);
  }

  // ---- what only a client can answer --------------------------------------

  #context(connection: Connection, context: string | undefined): HostRunContext {
    return { connection: connection.id, ...(context ? { context } : {}) };
  }

  /** Who is asked about a run: the client that started it, else any that can answer (VS Code windows first). */
  #askable(capability: string, runId?: string): Connection | undefined {
    const owner = runId ? this.#connections.get(this.#runOwners.get(runId) ?? '') : undefined;
    if (owner?.capabilities.has(capability)) return owner;
    const able = [...this.#connections.values()].filter((c) => c.client && c.capabilities.has(capability));
    return able.find((c) => c.client?.kind === 'vscode') ?? able[0];
  }

  /** An agent file asks for a wider permission mode: asked where it can be answered; refused when nobody can. */
  readonly modeConsent = async (request: ModeWidening & { runId?: string }, signal: AbortSignal): Promise<boolean> => {
    const connection = this.#askable('modeConsent', request.runId);
    if (!connection) return false;
    return connection.peer.request('modeConsent', request, signal).catch(() => false);
  };

  readonly askMcpInputs = async (server: string, ids: readonly string[]): Promise<ReadonlyMap<string, string> | null> => {
    const connection = this.#askable('mcpInputs');
    if (!connection) return null;
    const values = await connection.peer.request('mcpInputs', { server, ids: [...ids] }).catch(() => null);
    return values ? new Map(Object.entries(values)) : null;
  };

  /** VS Code's own tools, as the windows connected now report them; a call goes to the window that started the run when it is still there. */
  readonly editorTools: EditorToolProvider = {
    sets: () => new Set(this.#editorTools().map((t) => t.group.toLowerCase())),
    tools: (sets) => {
      const wanted = new Set(sets.map((s) => s.toLowerCase()));
      const seen = new Set<string>();
      return this.#editorTools().filter((t) => wanted.has(t.group.toLowerCase()) && !seen.has(t.id) && seen.add(t.id));
    },
    invoke: (tool, input, invocation) => this.#invokeEditorTool(tool, input, invocation),
    prepare: async (missing, timeoutMs) => {
      const connection = this.#askable('editorTools');
      const tools = await connection?.peer.request('prepareEditorTools', { missing: [...missing], timeoutMs }).catch(() => null);
      if (connection && tools) {
        connection.editorTools = tools.map((t) => ({ ...t, inputSchema: t.inputSchema ?? null }));
        this.#editorChanged();
      }
    },
    onDidChange: (listener) => {
      this.#editorListeners.add(listener);
      return () => this.#editorListeners.delete(listener);
    },
  };

  #editorTools(): EditorTool[] {
    return [...this.#connections.values()].flatMap((c) => c.editorTools);
  }

  #editorChanged(): void {
    for (const listener of this.#editorListeners) listener();
  }

  async #invokeEditorTool(tool: EditorTool, input: Record<string, unknown>, invocation: EditorInvocation): Promise<ToolOutput> {
    const context = invocation.runContext as HostRunContext | undefined;
    const starter = context ? this.#connections.get(context.connection) : undefined;
    const connection = starter?.editorTools.some((t) => t.id === tool.id) ? starter : [...this.#connections.values()].find((c) => c.editorTools.some((t) => t.id === tool.id));
    if (!connection) {
      const error = new Error(`${tool.group}/${tool.tool} is one of VS Code's tools, and no VS Code window that has it is connected to the agent host now. Continue without it or explain what you need.`);
      error.name = 'ToolCallError';
      throw error;
    }
    const output = await connection.peer.request('editorTool', { tool: tool.id, input, toolUseId: invocation.toolUseId, ...(connection === starter && context?.context ? { context: context.context } : {}) }, invocation.signal).catch((error: Error) => {
      const failure = new Error(error.message);
      failure.name = 'ToolCallError';
      throw failure;
    });
    return output as ToolOutput;
  }

  dispose(): void {
    this.lifetime.dispose();
    for (const dispose of this.#disposers.splice(0)) dispose();
    for (const connection of this.#connections.values()) connection.peer.close();
  }
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A scope as a client sent it: its settings checked by the settings schema (a bad value falls back to its default). */
function scopeOf(spec: Params<'start'>['scope']): ScopeSpec {
  return { ...spec, settings: parseSettings(spec.settings).settings };
}
