import { AgentCatalog } from '../core/agents/catalog/catalog';
import type { AgentDefinition } from '../core/agents/definition';
import { scopeCatalogOptions, type ScopeSpec } from '../core/runtime/scopeSpec';
import { TRUST_EVERYTHING } from '../core/trust/projectTrust';
import type { CliIO } from './command';
import { cliScope } from './scope';
import { loadSettings } from './settingsFiles';

/**
 * The folder's agents, discovered once for a `subagents run` in this
 * process. The trust probes need the project's agents (for the MCP servers
 * they declare) before trust and the settings are decided, and the run's
 * scope needs its catalog after: both take this one. It is started with the
 * settings as they most likely end up (the user file's trusted folders, or
 * --trust-project), and the scope takes it only if its own options are the
 * same; otherwise (a project file that sets pluginDirs or loadClaudePlugins
 * and trust decided otherwise) the scope discovers for itself, as it would
 * without this.
 */
export class RunCatalog {
  readonly #options: string;
  readonly #catalog: Promise<AgentCatalog>;
  #taken = false;

  private constructor(spec: ScopeSpec) {
    const options = scopeCatalogOptions(spec);
    this.#options = JSON.stringify(options);
    this.#catalog = AgentCatalog.create(options);
  }

  /** Starts discovery for a run in `cwd`; its files are read while the command goes on. */
  static start(io: CliIO, cwd: string, opts: { trustProject: boolean; pluginDirs: readonly string[] }): RunCatalog {
    // Read quietly: the command's own reading of the settings (after trust) says what is wrong with them.
    const { settings } = loadSettings({ cwd, env: io.env, ...(opts.trustProject ? { trust: TRUST_EVERYTHING } : {}), warn: () => undefined });
    return new RunCatalog(cliScope(io, { cwd, settings, pluginDirs: opts.pluginDirs, trust: opts.trustProject ? TRUST_EVERYTHING : undefined }));
  }

  /** The agents discovery found (for the trust probes). */
  async agents(): Promise<readonly AgentDefinition[]> {
    return (await this.#catalog).agents;
  }

  /** The catalog, for the scope it was discovered for (once); undefined for any other. */
  take(spec: ScopeSpec): Promise<AgentCatalog> | undefined {
    if (this.#taken || JSON.stringify(scopeCatalogOptions(spec)) !== this.#options) return undefined;
    this.#taken = true;
    return this.#catalog;
  }

  /** Stops watching, unless a scope took the catalog (it disposes of it when it closes). */
  dispose(): void {
    if (this.#taken) return;
    this.#taken = true;
    void this.#catalog.then((catalog) => catalog.dispose());
  }
}
