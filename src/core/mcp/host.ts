import { version } from '../../../package.json';
import path from 'node:path';
import type { AgentDefinition } from '../agents/definition';
import type { ProjectTrust } from '../trust/projectTrust';
import type { McpLimits } from './limits';
import { McpConnection } from './connection';
import { readConfiguredServers, type ConfigLocations, type NamedServer } from './configFiles';
import type { EditorToolProvider } from './editorTools';
import { LaunchProblem, resolveLaunch, type ResolvedLaunch } from './launch';
import { planAgentServers, type PlannedServer } from './plan';
import { isInline } from '../agents/mcpServers/spec';
import { normalizeName, toolPattern } from '../agents/mcpServers/toolPatterns';
import { serverIdentity, type McpStatusStore, type ServerStatus } from './status';
import { agentToolset, type AgentMcpTools } from './agentTools';
import { Redactor } from '../redaction';
import { IdleServers } from './idleServers';

/**
 * MCP for the engine: which servers each agent gets (plan.ts), started when
 * the agent that needs them starts, all at once, each once per run tree and
 * shared by every agent of the tree that asks for it (McpTree). When the
 * tree ends its servers are kept running for a while (idleServers.ts), so
 * the next tree that needs the same server gets it without a start; a
 * process that knows which agent it will run can start that agent's servers
 * ahead (prestart). Everything a run cannot get (an unknown name, an
 * untrusted project's server, a server that fails to start) is a warning
 * naming the agent, the server and the reason; the agent runs without those
 * tools.
 */

/** How long a server no run tree holds keeps running for the next tree. */
export const IDLE_SERVER_MS = 5 * 60_000;

/** How the runtime introduces itself to MCP servers. */
export const CLIENT_INFO = { name: 'subagents', version };

export interface McpHostOptions {
  /**
   * Whether servers declared in files the project brings may start (its
   * agent files' own servers, `.mcp.json`, `.vscode/mcp.json`, its Gemini
   * settings): VS Code's workspace trust, the CLI's trusted folders. Asked
   * at every start, for the folder of the file that declares the server, so
   * trust granted meanwhile applies to the next agent.
   */
  trust: ProjectTrust;
  /** How the user trusts the folder, for the warning that says a server was not started. */
  trustHint: string;
  env: NodeJS.ProcessEnv;
  home: string;
  /** Read `.vscode/mcp.json` and run its servers (the CLI); VS Code runs them itself. */
  vscodeWorkspace: boolean;
  /** Plugin roots and names, for servers that plugins bring. */
  plugins?: () => Promise<ReadonlyArray<{ root: string; name: string }>>;
  /** The editor's own tools (VS Code). */
  editor?: EditorToolProvider;
  limits: () => McpLimits;
  /** The product's own secrets (the API key): never given to a server. */
  ownSecrets: () => ReadonlyArray<string | null | undefined>;
  /** How long a server keeps running once no run tree holds it (default IDLE_SERVER_MS; 0: stopped with its tree). */
  idleServerMs?: number;
  /**
   * Kept servers shared with the other hosts of the process (a runtime's
   * scopes: each `subagents run` the agent host serves is a scope of its
   * own), which own them and stop them; without it this host keeps its own.
   */
  idle?: IdleServers;
  status?: McpStatusStore;
  /** Asks for VS Code-style `${input:id}` values (VS Code); without it such a server cannot start. */
  askInputs?: (server: string, ids: readonly string[]) => Promise<ReadonlyMap<string, string> | null>;
}

export interface AgentToolsRequest {
  agentName: string;
  definition: AgentDefinition;
  cwd: string;
  planMode: boolean;
  /** The tree's start context (VS Code: the chat request's tool invocation token), passed to editor tools. */
  runContext?: unknown;
}

export class McpHost {
  /** Values that must not show anywhere (servers' tokens), for the engine's redaction. */
  readonly secrets = new Set<string>();
  readonly #trees = new Set<McpTree>();
  readonly idle: IdleServers;
  /**
   * What the host itself keeps or shows (the status cache, the warnings a
   * check prints) leaves without the product's key and the servers' tokens:
   * a failing server's stderr quotes whatever it was given.
   */
  readonly #redactor: Redactor;

  constructor(readonly options: McpHostOptions) {
    this.idle = options.idle ?? new IdleServers(options.idleServerMs ?? IDLE_SERVER_MS);
    this.#redactor = new Redactor(() => [...options.ownSecrets(), ...this.secrets]);
  }

  /** A copy of `value` with every secret the host knows redacted. */
  redact<T>(value: T): T {
    return this.#redactor.value(value);
  }

  /** The servers of a new run tree; closed by the engine when the tree ends. */
  tree(): McpTree {
    const tree = new McpTree(this, () => this.#trees.delete(tree));
    this.#trees.add(tree);
    return tree;
  }

  /**
   * Starts the servers an agent will ask for, without waiting: its tree
   * then finds them running or starting (the CLI calls it as soon as it
   * knows the agent, so a server's start overlaps the CLI's own). Nothing
   * is reported here; the agent's tree reports what it cannot get.
   */
  prestart(request: AgentToolsRequest): void {
    const tree = this.tree();
    void tree
      .startServers(request)
      .catch(() => undefined)
      .finally(() => void tree.close());
  }

  /** Stops the servers of every tree still open and every kept one (the process is shutting down). */
  async close(): Promise<void> {
    await Promise.all([...this.#trees].map((tree) => tree.close()));
    // Shared ones stay for the next scope: their owner stops them.
    if (!this.options.idle) await this.idle.close();
  }

  /** Records outcomes for the listings and the language server; a cache, so failures to write are ignored. */
  record(entries: Record<string, ServerStatus>): void {
    // An agent without servers has nothing to record: its start does not rewrite the file.
    if (Object.keys(entries).length === 0) return;
    try {
      this.options.status?.record(this.redact(entries));
    } catch {
      // Only time is lost.
    }
  }
}

export class McpTree {
  readonly #connections = new Map<string, McpConnection>();
  readonly #configured = new Map<string, Promise<NamedServer[]>>();
  readonly #agents = new Set<AgentMcpTools>();
  /** Problems found in configuration files, each told once per tree. */
  readonly #configWarnings: string[] = [];
  #told = 0;
  #closed = false;

  constructor(
    private readonly host: McpHost,
    private readonly onClosed: () => void,
  ) {}

  /** The servers configured around `cwd`, read once per tree and folder. */
  configured(cwd: string): Promise<NamedServer[]> {
    let found = this.#configured.get(cwd);
    if (!found) {
      const { options } = this.host;
      found = (async () => {
        const locations: ConfigLocations = { cwd, home: options.home, vscodeWorkspace: options.vscodeWorkspace, plugins: (await options.plugins?.()) ?? [] };
        return readConfiguredServers(locations, { warn: (message) => this.#configWarnings.push(message) });
      })();
      this.#configured.set(cwd, found);
    }
    return found;
  }

  /** The connection to a server for this tree: one per distinct launch, a kept one when the host has it running. */
  connection(name: string, launch: ResolvedLaunch): McpConnection {
    let connection = this.#connections.get(launch.key);
    if (!connection) {
      const limits = this.host.options.limits();
      connection = this.host.idle.take(launch.key) ?? new McpConnection(name, launch, { startupTimeoutMs: limits.startupTimeoutMs, clientInfo: CLIENT_INFO });
      this.#connections.set(launch.key, connection);
    }
    return connection;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The MCP and editor tools of one agent, its servers started. */
  async toolsFor(request: AgentToolsRequest): Promise<AgentMcpTools> {
    const { options } = this.host;
    const limits = options.limits();
    // Nothing in a plan-mode run starts a process (the editor's servers neither) unless the user allowed servers there.
    if (!request.planMode || limits.startInPlanMode) await this.#prepareEditor(request.definition, request.cwd, limits.startupTimeoutMs);
    const { plan, started, warnings, fatal: planned } = await this.#servers(request);
    let fatal = planned;
    const { agentName } = request;
    // Every server of the agent starts at once; a slow one delays the agent by its own start only.
    const outcomes = await Promise.allSettled(started.map((s) => s.connection.start()));
    const running: typeof started = [];
    const recorded: Record<string, ServerStatus> = {};
    outcomes.forEach((outcome, i) => {
      const { server, connection } = started[i]!;
      const identity = serverIdentity(server.name, server.spec, server.folder);
      if (outcome.status === 'fulfilled') {
        running.push(started[i]!);
        recorded[identity] = { name: server.name, file: server.file, checkedAt: Date.now(), ok: true, tools: connection.tools.map((t) => ({ name: t.name, description: t.description, readOnly: t.readOnly })) };
      } else {
        const reason = (outcome.reason as Error).message;
        const message = `MCP server "${server.name}" (${server.file}) could not be started for agent "${agentName}": ${reason}.`;
        warnings.push(message);
        if (server.spec.required) fatal ??= message;
        recorded[identity] = { name: server.name, file: server.file, checkedAt: Date.now(), ok: false, error: reason };
      }
    });
    this.host.record(recorded);

    const toolset = agentToolset({
      agentName,
      plan,
      running,
      editor: options.editor ?? null,
      planMode: request.planMode,
      limits,
      runContext: request.runContext,
      warnings: this.host.redact(warnings),
      fatal: fatal && this.host.redact(fatal),
    });
    this.#agents.add(toolset);
    return toolset;
  }

  /** Starts the servers an agent would get (McpHost.prestart), without waiting for them. */
  async startServers(request: AgentToolsRequest): Promise<void> {
    const { started } = await this.#servers(request);
    for (const { connection } of started) connection.start().catch(() => undefined);
  }

  /**
   * The servers an agent gets: planned, checked against trust, their launch
   * resolved, each with this tree's connection (not started yet); what it
   * cannot get as warnings, and the first of those that is fatal (a
   * `required` server).
   */
  async #servers(request: AgentToolsRequest): Promise<{ plan: Awaited<ReturnType<typeof planAgentServers>>; started: Array<{ server: PlannedServer; connection: McpConnection }>; warnings: string[]; fatal: string | null }> {
    const { options } = this.host;
    const { definition, agentName } = request;
    // Nothing in a plan-mode run starts a process unless the user allowed servers there.
    const startNone = request.planMode && !options.limits().startInPlanMode;
    const plan = await planAgentServers({
      definition,
      cwd: request.cwd,
      configured: () => this.configured(request.cwd),
      editorSets: options.editor?.sets() ?? null,
      inheritClaudeSession: options.limits().inheritClaudeSession,
    });
    const warnings = [...this.#configWarnings.slice(this.#told), ...plan.problems.map((problem) => `Agent "${agentName}": ${problem}.`)];
    this.#told = this.#configWarnings.length;
    let fatal: string | null = null;
    const notStarted = (server: PlannedServer, why: string) => {
      const message = `MCP server "${server.name}" (${server.file}) was not started for agent "${agentName}": ${why}.`;
      warnings.push(message);
      if (server.spec.required) fatal ??= message;
    };
    const started: Array<{ server: PlannedServer; connection: McpConnection }> = [];
    if (startNone && plan.servers.length > 0) {
      const names = plan.servers.map((s) => `"${s.name}"`).join(', ');
      warnings.push(
        `Agent "${agentName}" runs in plan mode, where nothing starts a process: its MCP server${plan.servers.length === 1 ? '' : 's'} ${names} ${plan.servers.length === 1 ? 'was' : 'were'} not started (subagents.mcp.startInPlanMode starts them there, offering only their read-only tools).`,
      );
    }
    for (const server of startNone ? [] : plan.servers) {
      if (server.projectFile && !options.trust.isTrusted(path.dirname(server.file))) {
        notStarted(server, `it is declared in a project file and this folder is not trusted (${options.trustHint})`);
        continue;
      }
      let launch: ResolvedLaunch;
      try {
        launch = resolveLaunch(server, { env: options.env, home: options.home, inputs: await this.#inputs(server) }, this.#ownSecrets());
      } catch (error) {
        if (!(error instanceof LaunchProblem)) throw error;
        notStarted(server, error.message);
        this.host.record({ [serverIdentity(server.name, server.spec, server.folder)]: { name: server.name, file: server.file, checkedAt: Date.now(), ok: false, error: error.message } });
        continue;
      }
      for (const secret of launch.secrets) this.host.secrets.add(secret);
      if (this.#closed) break;
      started.push({ server, connection: this.connection(server.name, launch) });
    }
    return { plan, started, warnings, fatal };
  }

  /**
   * Names the file uses that it does not declare, no configuration file has
   * and the editor does not list yet: the editor may start its own servers
   * first (VS Code lists a server's tools only once it ran).
   */
  async #prepareEditor(definition: AgentDefinition, cwd: string, timeoutMs: number): Promise<void> {
    const editor = this.host.options.editor;
    if (!editor?.prepare) return;
    const declared = new Set((definition.mcp ?? []).filter(isInline).map((d) => normalizeName(d.name)));
    const named = [...(definition.mcp ?? []).filter((d) => !isInline(d)).map((d) => d.name), ...(definition.tools ?? []).map((t) => toolPattern(t)?.server ?? null)];
    const unknown = named.filter((n): n is string => n !== null && !declared.has(normalizeName(n)));
    if (unknown.length === 0) return;
    const known = new Set([...editor.sets(), ...(await this.configured(cwd)).map((s) => normalizeName(s.name))]);
    const missing = [...new Set(unknown.filter((n) => !known.has(normalizeName(n))))];
    if (missing.length > 0) await editor.prepare(missing, timeoutMs);
  }

  async #inputs(server: PlannedServer): Promise<ReadonlyMap<string, string> | undefined> {
    const ask = this.host.options.askInputs;
    if (!ask) return undefined;
    const text = JSON.stringify(server.spec);
    const ids = [...text.matchAll(/\$\{input:([^}]+)\}/g)].map((m) => m[1]!);
    if (ids.length === 0) return undefined;
    return (await ask(server.name, [...new Set(ids)])) ?? undefined;
  }

  #ownSecrets(): string[] {
    return this.host.options.ownSecrets().filter((s): s is string => typeof s === 'string' && s.length > 0);
  }

  /** Hands every server of the tree to the host, which keeps it running for the next tree for a while (or stops it). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.onClosed();
    for (const agent of this.#agents) agent.dispose();
    this.#agents.clear();
    const connections = [...this.#connections.values()];
    this.#connections.clear();
    for (const connection of connections) this.host.idle.put(connection);
  }
}
