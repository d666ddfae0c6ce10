import path from 'node:path';
import { AgentCatalog } from '../core/agents/catalog/catalog';
import { resolveUserPath, type Settings } from '../core/config';

/**
 * The cross-file facts behind the diagnostics: one live AgentCatalog per
 * workspace folder, kept current by the core's own watcher (so a file saved,
 * added or deleted anywhere, in the editor or not, changes what the other
 * files are told), with that folder's settings.
 */

export interface FolderScope {
  folder: string;
  catalog: AgentCatalog;
  settings: Settings;
}

export interface AgentWorkspaceOptions {
  home: string;
  /** The bundled agents dir; default the one beside the server's package. */
  bundledDir?: string | null;
  /** False in an untrusted workspace: project and plugin agents are not read. */
  trusted: boolean;
  /** Quiet time before the watcher reports a burst of changes. */
  debounceMs?: number;
  /** The editor's `User/globalStorage` folder (Roo Code's and Kilo Code's global modes). */
  editorStorage?: string;
  log(message: string): void;
}

function catalogKey(settings: Settings, trusted: boolean): string {
  return JSON.stringify({ trusted, pluginDirs: settings.pluginDirs, claude: settings.loadClaudePlugins });
}

export class AgentWorkspace {
  private readonly scopes = new Map<string, FolderScope & { key: string }>();
  private readonly listeners = new Set<() => void>();
  private trusted: boolean;

  constructor(private readonly options: AgentWorkspaceOptions) {
    this.trusted = options.trusted;
  }

  get folders(): readonly FolderScope[] {
    return [...this.scopes.values()];
  }

  /** The scope whose folder holds the file (the deepest), else the first: user and plugin files belong to every folder. */
  scopeFor(filePath: string): FolderScope | undefined {
    let best: FolderScope | undefined;
    for (const scope of this.scopes.values()) {
      const rel = path.relative(scope.folder, filePath);
      if (!rel.startsWith('..') && !path.isAbsolute(rel) && (!best || scope.folder.length > best.folder.length)) best = scope;
    }
    return best ?? this.scopes.values().next().value;
  }

  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Opens catalogs for new folders and closes those of folders that went away. */
  async setFolders(folders: readonly string[], settingsOf: (folder: string) => Promise<Settings>): Promise<void> {
    for (const [folder, scope] of this.scopes) {
      if (!folders.includes(folder)) {
        scope.catalog.dispose();
        this.scopes.delete(folder);
      }
    }
    await Promise.all(folders.filter((f) => !this.scopes.has(f)).map(async (folder) => this.load(folder, await settingsOf(folder))));
    this.changed();
  }

  /** New settings for a folder; its catalog is made again only when what it loads changed. */
  async updateSettings(folder: string, settings: Settings): Promise<void> {
    const scope = this.scopes.get(folder);
    if (!scope) return;
    if (catalogKey(settings, this.trusted) !== scope.key) await this.load(folder, settings);
    else scope.settings = settings;
    this.changed();
  }

  async setTrusted(trusted: boolean): Promise<void> {
    if (trusted === this.trusted) return;
    this.trusted = trusted;
    await Promise.all([...this.scopes.values()].map((scope) => this.load(scope.folder, scope.settings)));
    this.changed();
  }

  dispose(): void {
    for (const scope of this.scopes.values()) scope.catalog.dispose();
    this.scopes.clear();
    this.listeners.clear();
  }

  private async load(folder: string, settings: Settings): Promise<void> {
    const started = performance.now();
    const catalog = await AgentCatalog.create({
      cwd: folder,
      home: this.options.home,
      pluginDirs: settings.pluginDirs.map((dir) => resolveUserPath(dir, folder, this.options.home)),
      loadClaudePlugins: settings.loadClaudePlugins,
      bundledDir: this.options.bundledDir,
      includeProjectAndPlugins: this.trusted,
      ...(this.options.editorStorage ? { editorStorage: this.options.editorStorage } : {}),
      watch: true,
      debounceMs: this.options.debounceMs,
    });
    this.scopes.get(folder)?.catalog.dispose();
    this.scopes.set(folder, { folder, catalog, settings, key: catalogKey(settings, this.trusted) });
    catalog.onDidChange(() => this.changed());
    this.options.log(`${folder}: ${catalog.agents.length} agents, ${catalog.shadowed.length} shadowed (${Math.round(performance.now() - started)} ms)`);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

