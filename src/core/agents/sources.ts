import { statSync } from 'node:fs';
import path from 'node:path';
import { AGENT_FAMILIES, type AgentFamily, type AgentSource, type DiscoveryWarning } from './definition';
import { listClaudePluginRoots, type PluginScope } from './claudePlugins';

/**
 * Which directories hold agent files, in precedence order (SPEC S2.1).
 * Resolution only decides paths; reading them is the loader's job.
 */

export interface AgentDir {
  path: string;
  source: AgentSource;
  /** The family whose dir this is; null for plugin and bundled dirs. */
  family: AgentFamily | null;
  /** For Claude Code's installed plugins: installed for this project or for the user. */
  pluginScope?: PluginScope;
}

export interface SourceOptions {
  /** The workspace folder (or CLI cwd) the project walk starts from. */
  cwd: string;
  home: string;
  /** Configured plugin roots; each root's `agents/` is searched. */
  pluginDirs: readonly string[];
  loadClaudePlugins: boolean;
  bundledDir: string | null;
  /** False in an untrusted workspace: then only user and bundled agents (S7.1). */
  includeProjectAndPlugins: boolean;
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

/** The user-level agents dir of each family; `.github` has none. */
export function userAgentsDir(family: AgentFamily, home: string): string | null {
  switch (family) {
    case '.omp':
      return path.join(home, '.omp', 'agent', 'agents');
    case '.github':
      return null;
    default:
      return path.join(home, family, 'agents');
  }
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
function nearestProjectDir(family: AgentFamily, cwd: string, home: string): string | null {
  const userDir = userAgentsDir(family, home);
  for (let current = path.resolve(cwd); ; current = path.dirname(current)) {
    const candidate = path.join(current, family, 'agents');
    if (candidate !== userDir && isDirectory(candidate)) return candidate;
    if (path.dirname(current) === current) return null;
  }
}

export async function resolveAgentDirs(options: SourceOptions): Promise<ResolvedSources> {
  const dirs: AgentDir[] = [];
  const warnings: DiscoveryWarning[] = [];
  const candidates: string[] = [];
  const home = path.resolve(options.home);
  const cwd = path.resolve(options.cwd);
  const add = (dir: AgentDir) => {
    if (!dirs.some((d) => d.path === dir.path)) dirs.push(dir);
  };

  for (const family of AGENT_FAMILIES) {
    const user = userAgentsDir(family, home);
    const project = options.includeProjectAndPlugins ? nearestProjectDir(family, cwd, home) : null;
    const userExists = user ? isDirectory(user) : false;
    if (options.includeProjectAndPlugins) {
      if (project) add({ path: project, source: 'project', family });
      if (project !== path.join(cwd, family, 'agents')) candidates.push(path.join(cwd, family, 'agents'));
    }
    if (user) {
      if (userExists) add({ path: user, source: 'user', family });
      else candidates.push(user);
    }
  }

  if (options.includeProjectAndPlugins) {
    for (const root of options.pluginDirs) {
      add({ path: path.join(path.resolve(cwd, root), 'agents'), source: 'plugin', family: null });
    }
    if (options.loadClaudePlugins) {
      const listing = await listClaudePluginRoots(home, cwd);
      warnings.push(...listing.warnings);
      candidates.push(...listing.files);
      for (const root of listing.roots) {
        add({ path: path.join(root.root, 'agents'), source: 'plugin', family: null, pluginScope: root.scope });
      }
    }
  }

  if (options.bundledDir) add({ path: path.resolve(options.bundledDir), source: 'bundled', family: null });
  return { dirs, warnings, candidates };
}
