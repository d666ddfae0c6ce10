import { resolveUserPath, type Settings } from '../core/config';
import { pluginRoots, readConfiguredServers, type NamedServer } from '../core/mcp/configFiles';
import { McpStatusStore, statusFile, type ServerTool, type StatusMap } from '../core/mcp/status';
import { normalizeName } from '../core/agents/mcpServers/toolPatterns';

/**
 * What the language server knows of MCP servers, for checking and completing
 * the names agent files use: the servers configured around each workspace
 * folder (`.mcp.json`, `~/.claude.json`, `.gemini/settings.json`,
 * `.vscode/mcp.json`, plugins…, read as files) and what runs last saw of
 * each server and of the editor's tool sets (the status cache every start
 * records). It never starts a server: not on a keystroke, not in an
 * untrusted folder, not at all. The files are read again in the background
 * at most every few seconds while agent files are being checked, and the
 * open files are checked again when what was read changed.
 */

export interface McpFacts {
  configured: readonly NamedServer[];
  statuses: StatusMap;
  /**
   * The editor's tool sets (normalised names) as VS Code last recorded them
   * (its MCP servers, its extensions' tools); null when it never did (another
   * editor, or VS Code not yet started with the extension).
   */
  editorSets: ReadonlySet<string> | null;
}

export interface McpKnowledgeOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Called when facts read in the background differ from those the files were last checked with. */
  onChange(): void;
  log(message: string): void;
  /** How long facts are used before they are read again. Default 3 s. */
  maxAgeMs?: number;
}

interface FolderFacts {
  /** Null until first read: no check goes out on facts not yet read (it would flag every name). */
  facts: McpFacts | null;
  readAt: number;
  signature: string;
  reading: Promise<void> | null;
  settingsKey: string;
}

export function editorSetsOf(statuses: StatusMap): ReadonlySet<string> | null {
  const sets = Object.entries(statuses).filter(([key]) => key.startsWith('editor:')).map(([, status]) => normalizeName(status.name));
  return sets.length ? new Set(sets) : null;
}

/** A server's tools as last seen, if it was last seen working. */
export function knownTools(statuses: StatusMap, identity: string): { tools: readonly ServerTool[]; checkedAt: number } | null {
  const status = statuses[identity];
  return status?.ok && status.tools ? { tools: status.tools, checkedAt: status.checkedAt } : null;
}

export class McpKnowledge {
  readonly #folders = new Map<string, FolderFacts>();
  readonly #store: McpStatusStore;

  constructor(private readonly options: McpKnowledgeOptions) {
    this.#store = new McpStatusStore(statusFile(options.env, options.home));
  }

  /** The facts for a folder as last read (null before the first read), reading them again in the background when stale. */
  facts(folder: string, settings: Settings): McpFacts | null {
    const settingsKey = JSON.stringify([settings.pluginDirs, settings.loadClaudePlugins]);
    let entry = this.#folders.get(folder);
    if (!entry) {
      entry = { facts: null, readAt: 0, signature: '', reading: null, settingsKey };
      this.#folders.set(folder, entry);
    }
    const stale = entry.settingsKey !== settingsKey || Date.now() - entry.readAt > (this.options.maxAgeMs ?? 3000);
    if (stale && !entry.reading) {
      entry.settingsKey = settingsKey;
      entry.reading = this.#read(folder, settings, entry).finally(() => {
        entry.reading = null;
      });
    }
    return entry.facts;
  }

  /** Waits for the reads under way (tests, and a first check that should not go out without them). */
  async settled(): Promise<void> {
    await Promise.all([...this.#folders.values()].map((entry) => entry.reading));
  }

  /** Every folder's facts are read again on next use (the agents or the settings changed). */
  invalidate(): void {
    for (const entry of this.#folders.values()) entry.readAt = 0;
  }

  async #read(folder: string, settings: Settings, entry: FolderFacts): Promise<void> {
    try {
      const { home } = this.options;
      const plugins = await pluginRoots({ home, cwd: folder, pluginDirs: settings.pluginDirs.map((dir) => resolveUserPath(dir, folder, home)), loadClaudePlugins: settings.loadClaudePlugins });
      // `.vscode/mcp.json` too: its servers are reachable one way or the other (VS Code runs them; the CLI reads the file).
      const configured = await readConfiguredServers({ cwd: folder, home, plugins, vscodeWorkspace: true }, { warn: () => undefined });
      const statuses = this.#store.read();
      const facts: McpFacts = { configured, statuses, editorSets: editorSetsOf(statuses) };
      const signature = JSON.stringify([configured, statuses]);
      entry.readAt = Date.now();
      entry.facts = facts;
      // The first read always tells: the open files were checked without MCP facts.
      if (signature !== entry.signature) {
        entry.signature = signature;
        this.options.onChange();
      }
    } catch (error) {
      entry.readAt = Date.now();
      this.options.log(`Could not read the MCP servers configured for ${folder}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
