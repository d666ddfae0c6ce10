import type Anthropic from '@anthropic-ai/sdk';
import { AgentCatalog } from '../agents/catalog/catalog';
import type { DiscoveryWarning } from '../agents/definition';
import { createClient } from '../engine/loop/client';
import { Engine, type AgentLookup } from '../engine/engine';
import type { RunEvent } from '../../protocol/runEvents';
import { CommandHooks } from '../hooks/commandHooks';
import type { WorktreeManager } from '../isolation';
import { pluginRoots } from '../mcp/configFiles';
import type { EditorToolProvider } from '../mcp/editorTools';
import { McpHost, type McpHostOptions } from '../mcp/host';
import type { IdleServers } from '../mcp/idleServers';
import { mcpLimits } from '../mcp/limits';
import type { McpStatusStore } from '../mcp/status';
import type { RunHistory } from '../runs/history';
import type { ModeConsents } from '../tools/modeConsent';
import type { PermissionGate } from '../tools/permissions';
import { demoModelName, projectTrust, runsAllowed, scopeCatalogOptions, scopeKey, scopePluginDirs, type ScopeSpec } from './scopeSpec';

/**
 * One scope of the runtime: a folder as one client sees it (its settings,
 * trust and key), with its own live AgentCatalog, its own Engine and its
 * own MCP servers. Everything else (history, run store, worktrees, the
 * permission gate, consents) is the runtime's, shared by every scope.
 */

/** `folder`: the scope's folder, for lines about one scope's agents (VS Code names the folder). */
export type RuntimeLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string, folder?: string) => void;

/** What every scope shares, from the runtime. */
export interface ScopeShared {
  gate: PermissionGate;
  consents: ModeConsents;
  history: RunHistory;
  worktrees: WorktreeManager;
  mcpStatus: McpStatusStore;
  /** MCP servers no run tree holds, kept for the next tree of any scope (the same launch). */
  mcpIdle?: IdleServers;
  editorTools?: EditorToolProvider;
  askMcpInputs?: (server: string, ids: readonly string[]) => Promise<ReadonlyMap<string, string> | null>;
  log: RuntimeLog;
  /** Every event of the scope's engine, in order. */
  publish(event: RunEvent, scope: RuntimeScope): void;
  /** Overrides of the engine's network timing (tests). */
  network?: ConstructorParameters<typeof Engine>[0]['network'];
  /** Where a scope's agents come from; default (or when it gives none): discovery (AgentCatalog). */
  catalogs?: (spec: ScopeSpec) => Promise<ScopeCatalog | undefined>;
}

/** A scope's agents: the engine's lookup, the problems found reading them, and a way to stop watching. */
export type ScopeCatalog = AgentLookup & { readonly warnings: readonly DiscoveryWarning[]; dispose(): void };

/** How a scope's MCP servers are run: its trust, environment and plugins, and what the editor adds. */
export function mcpHostOptions(
  spec: () => ScopeSpec,
  extras: Pick<McpHostOptions, 'editor' | 'status' | 'askInputs' | 'idle'> & { env?: NodeJS.ProcessEnv },
): McpHostOptions {
  const first = spec();
  return {
    trust: projectTrust(first.trust),
    trustHint: first.trustHint ?? (first.surface === 'vscode' ? 'trust the workspace (Workspaces: Manage Workspace Trust)' : 'pass --trust-project'),
    env: extras.env ?? first.env,
    home: first.home,
    // VS Code runs the servers of .vscode/mcp.json itself; agents reach them through its tools.
    vscodeWorkspace: first.surface === 'cli',
    plugins: () => pluginRoots({ home: first.home, cwd: first.cwd, pluginDirs: scopePluginDirs(spec()), loadClaudePlugins: spec().settings.loadClaudePlugins }),
    editor: extras.editor,
    limits: () => mcpLimits(spec().settings),
    ownSecrets: () => [spec().credentials.apiKey],
    status: extras.status,
    askInputs: extras.askInputs,
    idle: extras.idle,
  };
}

export class RuntimeScope {
  readonly key: string;
  readonly engine: Engine;
  readonly mcp: McpHost;
  /** When a request last came for this scope (idle scopes are closed). */
  lastUsed = Date.now();
  #spec: ScopeSpec;
  /** Mutated in place, so the MCP host and hooks see the latest client's environment. */
  readonly #env: Record<string, string>;
  #client: Anthropic | null = null;

  private constructor(
    spec: ScopeSpec,
    readonly catalog: ScopeCatalog,
    shared: ScopeShared,
  ) {
    this.key = scopeKey(spec);
    this.#spec = spec;
    this.#env = { ...spec.env };
    const settings = () => this.#spec.settings;
    const trust = projectTrust(spec.trust);
    const secrets = () => [this.#spec.credentials.apiKey];
    this.mcp = new McpHost(mcpHostOptions(() => this.#spec, { env: this.#env, editor: shared.editorTools, status: shared.mcpStatus, askInputs: shared.askMcpInputs, idle: shared.mcpIdle }));
    this.engine = new Engine({
      // Made on first use: a scope without a key lists agents, and admission refuses to start them.
      client: new Proxy({} as Anthropic, { get: (_target, property) => Reflect.get(this.#sdk(), property) as unknown }),
      catalog,
      settings,
      gate: shared.gate,
      archive: shared.history,
      mailbox: shared.history.mailbox,
      worktrees: shared.worktrees,
      hooks: new CommandHooks({
        home: spec.home,
        enabled: () => settings()['hooks.enabled'],
        env: this.#env,
        sessionStart: spec.session,
        log: (level, message) => shared.log(level, message, spec.cwd),
      }),
      trust,
      // A prompt's {env:…} reads the asking client's environment, not the host's.
      env: this.#env,
      home: spec.home,
      log: (level, message) => shared.log(level, message, spec.cwd),
      mapModel: spec.demoModels ? (model) => demoModelName(model, this.#spec.settings.modelAliases) : undefined,
      modeConsents: shared.consents,
      secrets,
      mcp: this.mcp,
      network: shared.network,
      admission: () => ({ runsAllowed: runsAllowed(this.#spec.trust), hasKey: Boolean(this.#spec.credentials.apiKey) }),
    });
    this.engine.onEvent((event) => shared.publish(event, this));
  }

  static async open(spec: ScopeSpec, shared: ScopeShared): Promise<RuntimeScope> {
    // The folder's agents as discovery finds them, watched, unless the runtime's owner has them already.
    const catalog = (await shared.catalogs?.(spec)) ?? (await AgentCatalog.create(scopeCatalogOptions(spec)));
    return new RuntimeScope(spec, catalog, shared);
  }

  get spec(): ScopeSpec {
    return this.#spec;
  }

  /** A newer request for the same scope: its environment is the one hooks and servers get from now on. */
  use(spec: ScopeSpec): void {
    this.lastUsed = Date.now();
    this.#spec = { ...spec, settings: this.#spec.settings };
    for (const name of Object.keys(this.#env)) if (!(name in spec.env)) delete this.#env[name];
    Object.assign(this.#env, spec.env);
  }

  /** No agent at work and nothing being continued: the scope can close without cutting anything off. */
  get idle(): boolean {
    return !this.engine.busy;
  }

  #sdk(): Anthropic {
    return (this.#client ??= createClient({ apiKey: this.#spec.credentials.apiKey, baseUrl: this.#spec.credentials.baseUrl, env: {} }));
  }

  async close(reason: string): Promise<void> {
    this.engine.cancelAll(reason);
    this.catalog.dispose();
    await this.mcp.close();
  }
}

