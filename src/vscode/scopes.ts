import os from 'node:os';
import * as vscode from 'vscode';
import { AgentCatalog } from '../core/agents/catalog/catalog';
import { TeamCatalog } from '../core/agents/teams/teamCatalog';
import type { TeamDefinition } from '../core/agents/teams/teamFile';
import { teamStartOf, type TeamStart } from '../core/engine/team/leadBrief';
import type { AgentDefinition } from '../core/agents/definition';
import { resolveUserPath, type Settings } from '../core/config';
import { admit, type AdmissionRefusal, type Invoker } from '../core/engine/tree/admission';
import type { Budget } from '../core/engine/tree/budget';
import { announceKeyRejection, type ApiKeys } from './apiKey';
import { readSettings } from './settings';
import { projectTrust, shareableEnv, type ScopeSpec } from '../core/runtime/scopeSpec';
import { mcpHostOptions } from '../core/runtime/scope';
import type { McpHostOptions } from '../core/mcp/host';
import { pluginRoots } from '../core/mcp/configFiles';
import { mcpLimits } from '../core/mcp/limits';
import type { EditorToolProvider } from '../core/mcp/editorTools';
import type { McpStatusStore } from '../core/mcp/status';
import { listAgentServers, type AgentServers } from '../core/mcp/listing';
import type { RunEvent } from '../protocol/runEvents';
import { isKeyRejection } from '../core/engine/loop/keyCheck';

/**
 * One scope per workspace folder: its own settings and its own live
 * AgentCatalog (what the Agents view, the pickers and the chat list), and
 * the ScopeSpec every request for the folder carries to the runtime, which
 * runs the agents (in the agent host, or in this process). A run belongs to
 * the folder it started in. Catalogs are remade when what they load changes
 * (workspace trust granted, plugin settings); runs in progress are never cut
 * off: they live in the runtime.
 */

export interface ScopeDeps {
  log: vscode.LogOutputChannel;
  keys: ApiKeys;
  bundledDir: string;
  trusted(): boolean;
  /** VS Code's own tools (vscode.lm.tools) for the agents whose files name them. */
  editorTools: EditorToolProvider;
  /** Where MCP servers' outcomes are kept for the listings and the language server. */
  mcpStatus: McpStatusStore;
  /** When this window's session began: hooks added to settings files after it are asked about before they run. */
  sessionStart: number;
  /** Every run event, to keep the Agents view's MCP statuses current after runs. */
  onEvent(listener: (event: RunEvent) => void): () => void;
  /** This editor's `User/globalStorage` folder, where Roo Code and Kilo Code keep their global modes. */
  editorStorage?: string;
}

export class FolderScope {
  catalog: AgentCatalog | null = null;
  /** The folder's teams (`.subagents/teams`, the user's), watched like the agents. */
  teams: TeamCatalog | null = null;
  #settings: Settings;
  #catalogKey = '';
  #unsubscribe: (() => void) | null = null;
  /** Each agent's MCP servers and whether they were reachable, for the Agents view (see refreshMcpServers). */
  mcpServers: ReadonlyMap<string, AgentServers> = new Map();
  #mcpSignature = '';
  #mcpRefresh: NodeJS.Timeout | null = null;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly deps: ScopeDeps,
    private readonly onAgentsChanged: () => void,
  ) {
    this.#settings = this.#readSettings();
  }

  /** Where a request for this folder runs: its settings, this window's trust and key, this extension's bundled agents. */
  spec(): ScopeSpec {
    const { keys } = this.deps;
    return {
      cwd: this.folder.uri.fsPath,
      surface: 'vscode',
      settings: this.#settings,
      trust: { kind: 'window', trusted: this.deps.trusted() },
      credentials: keys.credentials(),
      env: shareableEnv(process.env),
      home: os.homedir(),
      bundledDir: this.deps.bundledDir,
      ...(this.deps.editorStorage ? { editorStorage: this.deps.editorStorage } : {}),
      demoModels: keys.demo,
      session: this.deps.sessionStart,
    };
  }

  /** How a check of its agents' MCP servers runs them, as a run would (mcpCommands.ts). */
  mcpOptions(): McpHostOptions {
    return mcpHostOptions(() => this.spec(), { editor: this.deps.editorTools, status: this.deps.mcpStatus });
  }

  /**
   * Whether `name` may start here now, as the engine will decide it
   * (admission.ts): the palette and the chat ask before asking for a task,
   * and show the same words the engine would.
   */
  admission(name: string, invoker: Invoker = 'user', budget?: Budget): AdmissionRefusal | null {
    return admit({
      name,
      definition: this.find(name),
      available: this.agents.map((a) => a.name),
      settings: this.#settings,
      invoker,
      budget,
      context: { runsAllowed: this.deps.trusted(), hasKey: Boolean(this.deps.keys.key || this.deps.keys.demo) },
    });
  }

  get key(): string {
    return this.folder.uri.toString();
  }

  get settings(): Settings {
    return this.#settings;
  }

  get agents(): readonly AgentDefinition[] {
    return this.catalog?.agents ?? [];
  }

  find(name: string): AgentDefinition | undefined {
    return this.catalog?.find(name);
  }

  findTeam(name: string): TeamDefinition | undefined {
    return this.teams?.find(name);
  }

  /** A team of this folder as a run starts it (an agent of the same name wins: undefined then). */
  teamStart(name: string): TeamStart | undefined {
    const team = this.find(name) ? undefined : this.findTeam(name);
    return team ? teamStartOf(team, this.#settings['teams.isolation']) : undefined;
  }

  /** Re-reads this folder's settings; remakes the catalog when what it loads changed. */
  async settingsChanged(): Promise<void> {
    this.#settings = this.#readSettings();
    await this.loadCatalog();
  }

  /** (Re)creates the catalog if its inputs (trust, plugin settings) differ from the current one's. */
  async loadCatalog(force = false): Promise<void> {
    const trusted = this.deps.trusted();
    const pluginDirs = this.#settings.pluginDirs.map((dir) => resolveUserPath(dir, this.folder.uri.fsPath, os.homedir()));
    const key = JSON.stringify({ trusted, pluginDirs, claude: this.#settings.loadClaudePlugins });
    if (!force && key === this.#catalogKey && this.catalog) return;
    this.#catalogKey = key;
    let catalog: AgentCatalog;
    try {
      catalog = await AgentCatalog.create({
        cwd: this.folder.uri.fsPath,
        home: os.homedir(),
        pluginDirs,
        loadClaudePlugins: this.#settings.loadClaudePlugins,
        bundledDir: this.deps.bundledDir,
        // Restricted Mode: an untrusted folder's own agent files (and plugins) are not read at all.
        includeProjectAndPlugins: trusted,
        ...(this.deps.editorStorage ? { editorStorage: this.deps.editorStorage } : {}),
        watch: true,
      });
    } catch (error) {
      // Discovery reports file problems as warnings; this is something worse (a watcher limit, …).
      this.deps.log.error(`[${this.folder.name}] Could not load the agents: ${error instanceof Error ? error.message : String(error)}`);
      this.#catalogKey = '';
      return;
    }
    // The teams, read with the same trust: an untrusted folder's own team files are not read.
    const teams = await TeamCatalog.create({ cwd: this.folder.uri.fsPath, home: os.homedir(), includeProject: trusted, watch: true }).catch((error: unknown) => {
      this.deps.log.warn(`[${this.folder.name}] Could not load the teams: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
    if (this.#catalogKey !== key) {
      // A newer load started while this one ran; it wins.
      catalog.dispose();
      teams?.dispose();
      return;
    }
    this.#disposeCatalog();
    this.catalog = catalog;
    this.teams = teams;
    const offTeams = teams?.onDidChange(() => this.onAgentsChanged());
    const offAgents = catalog.onDidChange(() => {
      this.onAgentsChanged();
      this.refreshMcpServers();
    });
    this.#unsubscribe = () => {
      offAgents();
      offTeams?.();
    };
    this.refreshMcpServers();
    this.deps.log.info(`[${this.folder.name}] ${catalog.agents.length} agents, ${catalog.shadowed.length} shadowed, ${catalog.warnings.length} warnings${trusted ? '' : ' (untrusted: user and built-in agents only)'}`);
    this.onAgentsChanged();
  }

  /**
   * Works out again, soon, which MCP servers each agent gets and what was
   * last seen of them (nothing is started): after the agents changed, and
   * after a run (which starts servers and records what it found). Tells the
   * views only when something changed.
   */
  refreshMcpServers(): void {
    if (this.#mcpRefresh) return;
    this.#mcpRefresh = setTimeout(() => {
      this.#mcpRefresh = null;
      const home = os.homedir();
      const settings = this.#settings;
      void (async () => {
        const listing = await listAgentServers(this.agents, {
          locations: {
            cwd: this.folder.uri.fsPath,
            home,
            vscodeWorkspace: false,
            plugins: await pluginRoots({ home, cwd: this.folder.uri.fsPath, pluginDirs: settings.pluginDirs.map((dir) => resolveUserPath(dir, this.folder.uri.fsPath, home)), loadClaudePlugins: settings.loadClaudePlugins }),
          },
          trust: projectTrust({ kind: 'window', trusted: this.deps.trusted() }),
          statuses: this.deps.mcpStatus.read(),
          editorSets: this.deps.editorTools.sets(),
          inheritClaudeSession: mcpLimits(settings).inheritClaudeSession,
        });
        const signature = JSON.stringify([...listing]);
        if (signature === this.#mcpSignature) return;
        this.#mcpSignature = signature;
        this.mcpServers = listing;
        this.onAgentsChanged();
      })().catch((error: unknown) => this.deps.log.warn(`[${this.folder.name}] Could not list the agents' MCP servers: ${error instanceof Error ? error.message : String(error)}`));
    }, 300);
  }

  #readSettings(): Settings {
    const { settings, problems } = readSettings(this.folder.uri);
    for (const problem of problems) this.deps.log.warn(`[${this.folder.name}] ${problem}`);
    return settings;
  }

  #disposeCatalog(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.catalog?.dispose();
    this.catalog = null;
    this.teams?.dispose();
    this.teams = null;
  }

  /** Its runs go on (they live in the runtime); only what lists its agents stops. */
  dispose(): void {
    this.#disposeCatalog();
    if (this.#mcpRefresh) clearTimeout(this.#mcpRefresh);
  }
}

export class FolderScopes implements vscode.Disposable {
  readonly #scopes = new Map<string, FolderScope>();
  /** Which folder each run of this session started in. */
  readonly #runFolders = new Map<string, string>();
  readonly #onDidChangeAgents = new vscode.EventEmitter<void>();
  readonly onDidChangeAgents = this.#onDidChangeAgents.event;

  readonly #unsubscribe: () => void;

  constructor(private readonly deps: ScopeDeps) {
    this.#unsubscribe = deps.onEvent((event) => {
      // A run started servers (or found them failing): what the Agents view shows of them changed.
      if (event.type === 'notice' || event.type === 'agent_finished') for (const scope of this.all) scope.refreshMcpServers();
      if (event.type === 'agent_finished' && event.status === 'failed' && isKeyRejection(event.error)) announceKeyRejection(event.runId, deps.keys.origin);
    });
  }

  /** Notes the folder a run of this window started in (for follow-ups and the view's folder label). */
  noteRun(runId: string, scope: FolderScope): void {
    this.#runFolders.set(runId, scope.key);
  }

  get all(): FolderScope[] {
    return [...this.#scopes.values()];
  }

  /** Every folder, the active editor's first: where a request without a folder (chat, a tool call) looks. */
  preferred(): FolderScope[] {
    const active = vscode.window.activeTextEditor?.document.uri;
    const folder = active ? vscode.workspace.getWorkspaceFolder(active) : undefined;
    const first = folder ? this.#scopes.get(folder.uri.toString()) : undefined;
    return first ? [first, ...this.all.filter((s) => s !== first)] : this.all;
  }

  get(key: string): FolderScope | undefined {
    return this.#scopes.get(key) ?? this.all.find((s) => s.folder.name === key || s.folder.uri.fsPath === key);
  }

  /** Matches the open workspace folders: new ones get a scope, closed ones lose theirs. */
  async sync(): Promise<void> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const keep = new Set(folders.map((f) => f.uri.toString()));
    for (const [key, scope] of this.#scopes) {
      if (keep.has(key)) continue;
      scope.dispose();
      this.#scopes.delete(key);
    }
    const added: FolderScope[] = [];
    for (const folder of folders) {
      if (folder.uri.scheme !== 'file' || this.#scopes.has(folder.uri.toString())) continue;
      const scope = new FolderScope(folder, this.deps, () => this.#onDidChangeAgents.fire());
      this.#scopes.set(scope.key, scope);
      added.push(scope);
    }
    await Promise.all(added.map((s) => s.loadCatalog()));
    this.#onDidChangeAgents.fire();
  }

  /** After trust is granted or a setting changed: every scope reloads what changed. */
  async reload(force = false): Promise<void> {
    await Promise.all(this.all.map((s) => (force ? s.loadCatalog(true) : s.settingsChanged())));
  }

  /**
   * The folder a run belongs to: where it started in this session, otherwise
   * the folder holding one of its agents' working directories (a root that
   * ran isolated works outside every folder, in a worktree, so its repository
   * decides); none for a run of a folder this window has not open.
   */
  folderOfRun(runId: string, cwds: readonly string[]): FolderScope | undefined {
    const known = this.#runFolders.get(runId);
    if (known && this.#scopes.has(known)) return this.#scopes.get(known);
    for (const cwd of cwds) {
      const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(cwd));
      if (folder) return this.#scopes.get(folder.uri.toString());
    }
    // Another window's or a terminal's run in a folder not open here (the history is the user's): none of ours.
    return undefined;
  }

  dispose(): void {
    this.#unsubscribe();
    for (const scope of this.#scopes.values()) scope.dispose();
    this.#scopes.clear();
    this.#onDidChangeAgents.dispose();
  }
}
