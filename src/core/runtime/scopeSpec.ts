import { createHash } from 'node:crypto';
import path from 'node:path';
import type { AgentCatalogOptions } from '../agents/catalog/catalog';
import { resolveUserPath, type Settings } from '../config';
import { TRUST_NOTHING, TrustedFolders, trustWhen, type ProjectTrust } from '../trust/projectTrust';

/**
 * Where a request runs, as plain data a client sends with it: the folder,
 * its settings, the trust and the key in effect there, the environment
 * hooks and MCP servers inherit. The runtime keeps one scope (a catalog, an
 * engine, MCP servers) per distinct spec, so a window's trust or key never
 * leaks into another window's runs, and a request from an untrusted window
 * runs no project code whatever another window trusted.
 */

/**
 * Project trust as data:
 *   - `window`: VS Code's workspace trust; agents run only in a trusted one,
 *     and then its project code runs too;
 *   - `folders`: the CLI's trusted folders (each with everything below it);
 *     agents run anywhere, project code only in these;
 *   - `all`: `--trust-project`.
 */
export type TrustSpec = { kind: 'window'; trusted: boolean } | { kind: 'folders'; roots: readonly string[] } | { kind: 'all' };

export interface Credentials {
  /** The key in effect (VS Code's secret storage, `ANTHROPIC_API_KEY`); absent: none, and no agent may start. */
  apiKey?: string;
  /** Where requests go, resolved by the client (`ANTHROPIC_BASE_URL` over `apiBaseUrl`); absent: the Anthropic API. */
  baseUrl?: string;
}

export interface ScopeSpec {
  /** The folder agents run in (a workspace folder, `--cwd`). */
  cwd: string;
  /** Who asks: decides how a refused MCP server says to trust, and whether `.vscode/mcp.json` is run here (the CLI) or by VS Code. */
  surface: 'vscode' | 'cli';
  settings: Settings;
  trust: TrustSpec;
  credentials: Credentials;
  /** What hooks and MCP servers inherit (never the key: the client leaves `ANTHROPIC_*` out). */
  env: Record<string, string>;
  home: string;
  /** The agents bundled with the extension; absent for the CLI. */
  bundledDir?: string | null;
  /** Plugin roots besides the setting's (`--plugin-dir`), resolved. */
  pluginDirs?: readonly string[];
  /** This editor's `User/globalStorage` folder, where Roo Code and Kilo Code keep their global modes; absent: VS Code's (the CLI). */
  editorStorage?: string;
  /** Name models `demo-…` (npm start's demo model), so every surface says which model really answers. */
  demoModels?: boolean;
  /** How the user trusts the folder, for the warning that an MCP server was not started. */
  trustHint?: string;
  /**
   * When the client's session began (a window's activation, a command's
   * start; ms): hooks added to settings files after it are asked about
   * before they run. Part of the scope's identity, so a reloaded window gets
   * a fresh baseline.
   */
  session: number;
}

export function projectTrust(trust: TrustSpec): ProjectTrust {
  switch (trust.kind) {
    case 'window':
      return trust.trusted ? trustWhen(() => true) : TRUST_NOTHING;
    case 'folders':
      return new TrustedFolders(trust.roots);
    case 'all':
      return trustWhen(() => true);
  }
}

/** Restricted Mode: a window that is not trusted runs no agent at all. */
export function runsAllowed(trust: TrustSpec): boolean {
  return trust.kind !== 'window' || trust.trusted;
}

/** Whether the project's own agent files and plugins are read at all (not in Restricted Mode). */
export function readsProjectAgents(trust: TrustSpec): boolean {
  return trust.kind !== 'window' || trust.trusted;
}

/** Every plugin root the scope's agents and servers come from: the setting's, then the flags'. */
export function scopePluginDirs(spec: ScopeSpec): string[] {
  return [...spec.settings.pluginDirs.map((dir) => resolveUserPath(dir, spec.cwd, spec.home)), ...(spec.pluginDirs ?? []).map((dir) => path.resolve(spec.cwd, dir))];
}

/**
 * Where a scope's agents come from: the folder's discovery, watched (a file
 * changed on disk is the next spawn's definition). One function, so that a
 * command that discovers a folder's agents before its scope opens (the CLI,
 * for its trust probes) can tell whether the scope would find the same.
 */
export function scopeCatalogOptions(spec: ScopeSpec): AgentCatalogOptions {
  return {
    cwd: spec.cwd,
    home: spec.home,
    pluginDirs: scopePluginDirs(spec),
    loadClaudePlugins: spec.settings.loadClaudePlugins,
    bundledDir: spec.bundledDir ?? undefined,
    // Restricted Mode: an untrusted window's own agent files (and plugins) are not read at all.
    includeProjectAndPlugins: readsProjectAgents(spec.trust),
    ...(spec.editorStorage ? { editorStorage: spec.editorStorage } : {}),
    watch: true,
  };
}

/**
 * The identity of a scope: two requests share one exactly when everything
 * that decides what runs and how is the same. The key enters as a digest;
 * the environment does not (it changes with every shell; the latest wins).
 */
export function scopeKey(spec: ScopeSpec): string {
  const key = spec.credentials.apiKey ? createHash('sha256').update(spec.credentials.apiKey).digest('hex').slice(0, 16) : null;
  const parts = [
    path.resolve(spec.cwd),
    spec.surface,
    spec.settings,
    spec.trust,
    key,
    spec.credentials.baseUrl ?? null,
    spec.home,
    spec.bundledDir ?? null,
    spec.pluginDirs ?? [],
    spec.editorStorage ?? null,
    Boolean(spec.demoModels),
    spec.session,
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 24);
}

/** How the demo model shows in every surface: `demo-sonnet` rather than a Claude id it is not. */
export function demoModelName(model: string, aliases: Readonly<Record<string, string>>): string {
  if (model.startsWith('demo-')) return model;
  const alias = Object.keys(aliases).find((name) => aliases[name] === model);
  return `demo-${alias ?? model}`;
}

/** The environment a client passes on: its own, without the `ANTHROPIC_*` variables (the key travels as a credential only). */
export function shareableEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && !name.toUpperCase().startsWith('ANTHROPIC_')) out[name] = value;
  return out;
}
