import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Claude Code's installed plugins (the second step of the search order,
 * after `subagents.pluginDirs`; docs/agent-files.md, "Search order"), read from its registry
 * under `~/.claude/plugins/`:
 *
 * - `installed_plugins.json`: `{ version, plugins: { "<name>@<marketplace>":
 *   [ { scope, projectPath?, installPath, version, … } ] } }`. Version 1 files
 *   hold one object per plugin instead of a list, without scopes.
 * - `known_marketplaces.json`: `{ "<marketplace>": { installLocation, … } }`,
 *   used only to locate a plugin whose entry lacks `installPath`.
 * - `settings.json` (user) and a project's `.claude/settings*.json`:
 *   `enabledPlugins: { "<id>": false }` disables an installed plugin.
 *
 * These files belong to another program and change shape between its
 * versions, so everything here is defensive: a missing registry means no
 * plugins, a malformed one means no plugins plus a warning.
 */

export type PluginScope = 'project' | 'user';

export interface ClaudePluginRoot {
  /** `<name>@<marketplace>` as Claude Code keys it. */
  id: string;
  root: string;
  scope: PluginScope;
}

export interface ClaudePluginListing {
  roots: ClaudePluginRoot[];
  warnings: { filePath: string; message: string }[];
  /** Files whose change alters the listing (for watching). */
  files: string[];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type JsonFile = { kind: 'missing' } | { kind: 'invalid'; reason: string } | { kind: 'ok'; data: Json };

async function readJsonObject(filePath: string): Promise<JsonFile> {
  let text: string;
  try {
    // Synchronous, like discovery's other checks of a few paths: most of these files do not exist, and a missing
    // one costs one stat here rather than a thread-pool round trip and an error with its stack trace.
    if (!statSync(filePath, { throwIfNoEntry: false })) return { kind: 'missing' };
    text = readFileSync(filePath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'invalid', reason: `cannot read it (${code ?? String(error)})` };
  }
  try {
    const data: unknown = JSON.parse(text);
    return isObject(data) ? { kind: 'ok', data } : { kind: 'invalid', reason: 'it is not a JSON object' };
  } catch (error) {
    return { kind: 'invalid', reason: `it is not valid JSON (${(error as Error).message})` };
  }
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function disabledIds(files: string[]): Promise<Set<string>> {
  const disabled = new Set<string>();
  for (const file of files) {
    const settings = await readJsonObject(file);
    if (settings.kind !== 'ok' || !isObject(settings.data.enabledPlugins)) continue;
    for (const [id, enabled] of Object.entries(settings.data.enabledPlugins)) {
      if (enabled === false) disabled.add(id);
    }
  }
  return disabled;
}

/** Lists the roots of Claude Code's installed plugins that apply to `cwd`. */
export async function listClaudePluginRoots(home: string, cwd: string): Promise<ClaudePluginListing> {
  const pluginsDir = path.join(home, '.claude', 'plugins');
  const registryPath = path.join(pluginsDir, 'installed_plugins.json');
  const marketplacesPath = path.join(pluginsDir, 'known_marketplaces.json');
  const userSettings = path.join(home, '.claude', 'settings.json');
  const listing: ClaudePluginListing = { roots: [], warnings: [], files: [registryPath, marketplacesPath, userSettings] };
  const warn = (filePath: string, message: string) => listing.warnings.push({ filePath, message });

  const registryFile = await readJsonObject(registryPath);
  if (registryFile.kind === 'missing') return listing;
  if (registryFile.kind === 'invalid') {
    warn(registryPath, `Claude Code's plugin registry was ignored: ${registryFile.reason}`);
    return listing;
  }
  const registry = registryFile.data;
  if (!isObject(registry.plugins)) {
    warn(registryPath, `Claude Code's plugin registry was ignored: it has no "plugins" object`);
    return listing;
  }

  const marketplacesFile = await readJsonObject(marketplacesPath);
  const marketplaces = marketplacesFile.kind === 'ok' ? marketplacesFile.data : {};
  const projectRoots: ClaudePluginRoot[] = [];
  const userRoots: ClaudePluginRoot[] = [];
  const projectSettings = new Set<string>();

  for (const [id, value] of Object.entries(registry.plugins)) {
    const entries = Array.isArray(value) ? value : [value];
    for (const entry of entries) {
      if (!isObject(entry)) {
        warn(registryPath, `plugin "${id}" has an entry that is not an object; it is ignored`);
        continue;
      }
      const scope = typeof entry.scope === 'string' ? entry.scope : 'user';
      const isProjectScope = scope === 'project' || scope === 'local';
      let projectPath: string | null = null;
      if (isProjectScope) {
        if (typeof entry.projectPath !== 'string') continue;
        projectPath = path.resolve(entry.projectPath);
        // Installed for another project: not ours to load.
        if (!isInside(path.resolve(cwd), projectPath)) continue;
        projectSettings.add(path.join(projectPath, '.claude', 'settings.json'));
        projectSettings.add(path.join(projectPath, '.claude', 'settings.local.json'));
      }
      let root: string | null = null;
      if (typeof entry.installPath === 'string' && entry.installPath) {
        root = path.resolve(pluginsDir, entry.installPath);
      } else {
        const at = id.lastIndexOf('@');
        const marketplace = at > 0 ? marketplaces[id.slice(at + 1)] : undefined;
        if (isObject(marketplace) && typeof marketplace.installLocation === 'string') {
          root = path.join(path.resolve(pluginsDir, marketplace.installLocation), 'plugins', id.slice(0, at));
        }
      }
      if (!root) {
        warn(registryPath, `plugin "${id}" has no install path; its agents are not loaded`);
        continue;
      }
      (isProjectScope ? projectRoots : userRoots).push({ id, root, scope: isProjectScope ? 'project' : 'user' });
    }
  }

  const settingsFiles = [userSettings, ...projectSettings];
  listing.files.push(...projectSettings);
  const disabled = await disabledIds(settingsFiles);
  const seen = new Set<string>();
  for (const root of [...projectRoots, ...userRoots]) {
    if (disabled.has(root.id) || seen.has(root.root)) continue;
    seen.add(root.root);
    listing.roots.push(root);
  }
  return listing;
}

/** What a plugin root says about its agents: `.claude-plugin/plugin.json`'s name and extra agent paths. */
export interface PluginManifest {
  /** The plugin's name: the manifest's `name`, else the fallback (the root folder's name). */
  name: string;
  /**
   * Agent paths besides the default `agents/`, resolved: folders, and files
   * (a path ending in `.md`). Custom paths supplement `agents/`, as Claude
   * Code's plugin reference says; paths leaving the plugin root are refused.
   */
  agentPaths: string[];
  manifestPath: string;
  warnings: { filePath: string; message: string }[];
}

/** `fallbackName`: the name when the manifest has none (an installed plugin's registry id names it; its folder is a version). */
export async function readPluginManifest(root: string, fallbackName = path.basename(root)): Promise<PluginManifest> {
  const manifestPath = path.join(root, '.claude-plugin', 'plugin.json');
  const manifest: PluginManifest = { name: fallbackName, agentPaths: [], manifestPath, warnings: [] };
  const file = await readJsonObject(manifestPath);
  if (file.kind === 'missing') return manifest;
  if (file.kind === 'invalid') {
    manifest.warnings.push({ filePath: manifestPath, message: `the plugin manifest was ignored: ${file.reason}` });
    return manifest;
  }
  if (typeof file.data.name === 'string' && file.data.name.trim()) manifest.name = file.data.name.trim();
  const agents = file.data.agents;
  const entries = typeof agents === 'string' ? [agents] : Array.isArray(agents) ? agents : [];
  for (const entry of entries) {
    if (typeof entry !== 'string' || !entry.trim()) continue;
    const resolved = path.resolve(root, entry);
    if (!isInside(resolved, root)) {
      manifest.warnings.push({ filePath: manifestPath, message: `agent path "${entry}" leaves the plugin folder; it is ignored` });
      continue;
    }
    if (!manifest.agentPaths.includes(resolved) && resolved !== path.join(root, 'agents')) manifest.agentPaths.push(resolved);
  }
  return manifest;
}
