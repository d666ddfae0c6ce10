import { statSync } from 'node:fs';
import path from 'node:path';
import type { DiscoveryWarning } from '../definition';
import { AGENT_FAMILIES, type AgentFamily, type AgentSource } from '../kinds';
import { walksFolder, type ListingRules } from './agentFiles';
import { listClaudePluginRoots, readPluginManifest, type PluginScope } from './claudePlugins';
import { agentsFolderName, defaultEditorStorage, familyRules, layeredFamilyLocations, userAgentsDir, type ToolEnv } from './familyDirs';

export { userAgentsDir } from './familyDirs';

/**
 * Which directories hold agent files, in precedence order.
 * Resolution only decides paths; reading them is the loader's job.
 */

export interface AgentDir {
  path: string;
  source: AgentSource;
  /** The family whose dir this is; null for plugin and bundled dirs. */
  family: AgentFamily | null;
  /** For Claude Code's installed plugins: installed for this project or for the user. */
  pluginScope?: PluginScope;
  /** For plugin dirs: the plugin's name, which qualifies its agents' names (`plugin:agent`). */
  pluginName?: string;
  /** What counts as an agent file here, beyond `*.md` (see ListingRules). */
  rules?: ListingRules;
}

export interface SourceOptions {
  /** The workspace folder (or CLI cwd) the project walk starts from. */
  cwd: string;
  home: string;
  /** Configured plugin roots; each root's `agents/` is searched. */
  pluginDirs: readonly string[];
  loadClaudePlugins: boolean;
  bundledDir: string | null;
  /** False in an untrusted workspace: then only user and bundled agents. */
  includeProjectAndPlugins: boolean;
  /** VS Code's `User/globalStorage` folder (Roo Code's and Kilo Code's global modes); default: the stable build's on this platform. */
  editorStorage?: string;
  /** The environment variables home tools read for their folders (XDG_CONFIG_HOME, OPENCODE_CONFIG_DIR, KILO_CONFIG_DIR). */
  env: ToolEnv;
}

export interface ResolvedSources {
  dirs: AgentDir[];
  warnings: DiscoveryWarning[];
  /**
   * Paths that do not exist (or are not watched as agent dirs) but whose
   * appearance or change would alter `dirs`: missing user dirs, the
   * workspace's own family dirs, the plugin registry files.
   */
  candidates: string[];
}

/**
 * Synchronous: a stat of a cached path costs a few µs, a thread-pool round
 * trip several times that; discovery checks a few dozen paths, and reads the
 * agent files themselves synchronously anyway.
 */
function isDirectory(dir: string): boolean {
  try {
    return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/**
 * The first ancestor of `cwd` (itself included) holding `<family>/agents/`.
 * A dir that is the family's user dir does not count: with the workspace
 * inside the home folder, `~/.claude/agents` is the user dir, not a project's.
 */
function nearestProjectDir(family: AgentFamily, cwd: string, home: string, env: ToolEnv, folder = 'agents'): string | null {
  const userDir = userAgentsDir(family, home, env);
  for (let current = path.resolve(cwd); ; current = path.dirname(current)) {
    const candidate = path.join(current, family, folder);
    if (candidate !== userDir && isDirectory(candidate)) return candidate;
    if (path.dirname(current) === current) return null;
  }
}

/** Two dirs of one plugin: its `agents/` folder and what its manifest lists. */
function samePlugin(a: AgentDir, b: AgentDir): boolean {
  return a.source === 'plugin' && b.source === 'plugin' && a.pluginName === b.pluginName;
}

export async function resolveAgentDirs(options: SourceOptions): Promise<ResolvedSources> {
  const dirs: AgentDir[] = [];
  const warnings: DiscoveryWarning[] = [];
  const candidates: string[] = [];
  const home = path.resolve(options.home);
  const cwd = path.resolve(options.cwd);
  // A plugin's manifest entries may overlap each other and its `agents/` folder; each file is still found once.
  const add = (dir: AgentDir) => {
    // Dirs standing for different single files of one folder (a root's `.roomodes` and `opencode.json`) are different dirs.
    const same = dirs.find((d) => d.path === dir.path && (!d.rules?.only || !dir.rules?.only || samePlugin(d, dir) || d.rules.only.some((f) => dir.rules!.only!.includes(f))));
    if (same) {
      // Entries naming one folder, or files of it, share its dir: all of the folder once any entry names it whole.
      if (samePlugin(same, dir) && same.rules?.only) {
        if (dir.rules?.only) same.rules = { only: [...new Set([...same.rules.only, ...dir.rules.only])] };
        else delete same.rules;
      }
      return;
    }
    if (dirs.some((d) => samePlugin(d, dir) && !d.rules?.only && walksFolder(d.path, d.rules, dir.path))) return;
    // A whole folder takes the place of the plugin's entries inside it that came before.
    const inside = dir.rules?.only ? -1 : dirs.findIndex((d) => samePlugin(d, dir) && walksFolder(dir.path, dir.rules, d.path));
    if (inside < 0) return void dirs.push(dir);
    dirs.splice(inside, 1, dir);
    for (let i = dirs.length - 1; i > inside; i--) if (samePlugin(dirs[i]!, dir) && walksFolder(dir.path, dir.rules, dirs[i]!.path)) dirs.splice(i, 1);
  };

  const editorStorage = options.editorStorage ?? defaultEditorStorage(home);
  for (const family of AGENT_FAMILIES) {
    const layered = layeredFamilyLocations(family, { cwd, home, env: options.env, project: options.includeProjectAndPlugins, editorStorage });
    if (layered) {
      for (const dir of layered.dirs) add({ ...dir, family });
      candidates.push(...layered.candidates);
      continue;
    }
    const rules = familyRules(family);
    // VS Code's chat modes (`.github/chatmodes/`) are Copilot agents too, after `.github/agents/`.
    for (const folder of family === '.github' ? ['agents', 'chatmodes'] : [agentsFolderName(family)]) {
      if (!options.includeProjectAndPlugins) break;
      const project = nearestProjectDir(family, cwd, home, options.env, folder);
      if (project) add({ path: project, source: 'project', family, ...(rules ? { rules } : {}) });
      if (project !== path.join(cwd, family, folder)) candidates.push(path.join(cwd, family, folder));
    }
    const user = userAgentsDir(family, home, options.env);
    if (isDirectory(user)) add({ path: user, source: 'user', family, ...(rules ? { rules } : {}) });
    else candidates.push(user);
  }

  if (options.includeProjectAndPlugins) {
    const addPlugin = async (root: string, pluginScope?: PluginScope, fallbackName?: string) => {
      const manifest = await readPluginManifest(root, fallbackName);
      warnings.push(...manifest.warnings);
      candidates.push(manifest.manifestPath);
      const plugin = { source: 'plugin' as const, family: null, pluginName: manifest.name, ...(pluginScope ? { pluginScope } : {}) };
      add({ path: path.join(root, 'agents'), ...plugin });
      for (const extra of manifest.agentPaths) {
        if (extra.toLowerCase().endsWith('.md')) add({ path: path.dirname(extra), ...plugin, rules: { only: [path.basename(extra)] } });
        else add({ path: extra, ...plugin });
      }
    };
    for (const configured of options.pluginDirs) {
      const root = path.resolve(cwd, configured);
      // A configured folder that is not there is named, not silently skipped: a typo would
      // otherwise only show later as "Unknown agent". It stays in the list (empty), so its
      // first agent file counts as one as soon as it is opened, and is picked up once written.
      if (!isDirectory(root)) warnings.push({ filePath: root, message: `plugin folder ${root} does not exist (or is not a folder); no agents are loaded from it` });
      await addPlugin(root);
    }
    if (options.loadClaudePlugins) {
      const listing = await listClaudePluginRoots(home, cwd);
      warnings.push(...listing.warnings);
      candidates.push(...listing.files);
      // `<name>@<marketplace>`: the name part names the plugin when its manifest does not.
      for (const root of listing.roots) await addPlugin(root.root, root.scope, root.id.includes('@') ? root.id.slice(0, root.id.lastIndexOf('@')) : root.id);
    }
  }

  if (options.bundledDir) add({ path: path.resolve(options.bundledDir), source: 'bundled', family: null });
  return { dirs, warnings, candidates };
}
