import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isDirectorySync } from '../sources/agentFiles';
import { DirWatcher } from '../sources/dirWatcher';
import { parseTeamFile, type TeamDefinition, type TeamProblem, type TeamSource } from './teamFile';

/**
 * The live set of teams: `.subagents/teams/*.md` in the project (the
 * nearest folder up from the working folder that has one) and in the user's
 * config folder (`$XDG_CONFIG_HOME/subagents/teams`, default
 * `~/.config/subagents/teams`). A project's team wins over the user's of the
 * same name, as a project's agent does. Watched like the agents: a team file
 * saved mid-session is what the next run of it gets.
 */

export interface TeamDir {
  path: string;
  source: TeamSource;
}

export interface TeamCatalogOptions {
  cwd: string;
  home: string;
  /** Where XDG_CONFIG_HOME comes from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** False in an untrusted workspace: only the user's teams load. Default true. */
  includeProject?: boolean;
  watch?: boolean;
  debounceMs?: number;
}

/** A team that lost to another of the same name. */
export interface ShadowedTeam {
  team: TeamDefinition;
  by: TeamDefinition;
}

/** Files larger than this are skipped with a problem: a team file is a page of text. */
const MAX_TEAM_FILE_BYTES = 256 * 1024;

export function userTeamsDir(home: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'subagents', 'teams');
}

/** The project's teams folder: `.subagents/teams` in `cwd` or its nearest ancestor that has one (null when none does). */
export function projectTeamsDir(cwd: string): string | null {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, '.subagents', 'teams');
    if (isDirectorySync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

export class TeamCatalog {
  readonly #options: TeamCatalogOptions;
  readonly #listeners = new Set<() => void>();
  readonly #watcher: DirWatcher | null;
  #teams: TeamDefinition[] = [];
  #shadowed: ShadowedTeam[] = [];
  #problems: TeamProblem[] = [];
  #dirs: TeamDir[] = [];
  #queue: Promise<void> = Promise.resolve();
  #disposed = false;

  private constructor(options: TeamCatalogOptions) {
    this.#options = options;
    const debounceMs = options.debounceMs ?? 50;
    this.#watcher = options.watch ? new DirWatcher({ debounceMs, maxWaitMs: Math.max(500, debounceMs * 10), onBatch: () => void this.refresh() }) : null;
  }

  static async create(options: TeamCatalogOptions): Promise<TeamCatalog> {
    const catalog = new TeamCatalog(options);
    await catalog.refresh();
    return catalog;
  }

  /** The teams, project first, each name once. */
  get teams(): readonly TeamDefinition[] {
    return this.#teams;
  }

  get shadowed(): readonly ShadowedTeam[] {
    return this.#shadowed;
  }

  /** What is wrong in the team files: a file that is no team (error), or a part of one that is left out (warning). */
  get problems(): readonly TeamProblem[] {
    return this.#problems;
  }

  /** The folders read, project first. */
  get dirs(): readonly TeamDir[] {
    return this.#dirs;
  }

  find(name: string): TeamDefinition | undefined {
    return this.#teams.find((t) => t.name === name) ?? this.#teams.find((t) => t.name.toLowerCase() === name.toLowerCase());
  }

  onDidChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads every team file again (they are few and small); listeners hear when anything differs. */
  refresh(): Promise<void> {
    const run = this.#queue.then(() => (this.#disposed ? undefined : this.#scan()));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  dispose(): void {
    this.#disposed = true;
    this.#watcher?.dispose();
    this.#listeners.clear();
  }

  async #scan(): Promise<void> {
    const { cwd, home, env } = this.#options;
    const project = this.#options.includeProject === false ? null : projectTeamsDir(cwd);
    const user = userTeamsDir(home, env);
    const dirs: TeamDir[] = [...(project ? [{ path: project, source: 'project' as const }] : []), ...(isDirectorySync(user) ? [{ path: user, source: 'user' as const }] : [])];
    const problems: TeamProblem[] = [];
    const found: TeamDefinition[] = [];
    for (const dir of dirs) {
      for (const name of (await readdir(dir.path).catch(() => [] as string[])).filter((n) => n.endsWith('.md') && !n.startsWith('.')).sort()) {
        const filePath = path.join(dir.path, name);
        const info = await stat(filePath).catch(() => null);
        if (!info?.isFile()) continue;
        if (info.size > MAX_TEAM_FILE_BYTES) {
          problems.push({ filePath, severity: 'error', message: `The file is ${info.size} bytes, more than a team file can be (${MAX_TEAM_FILE_BYTES}); it was not read.` });
          continue;
        }
        const text = await readFile(filePath, 'utf8').catch((error: Error) => {
          problems.push({ filePath, severity: 'error', message: `Could not read it: ${error.message}` });
          return null;
        });
        if (text === null) continue;
        const parsed = parseTeamFile(text, filePath, dir.source);
        problems.push(...parsed.problems);
        if (parsed.team) found.push(parsed.team);
      }
    }
    const teams: TeamDefinition[] = [];
    const shadowed: ShadowedTeam[] = [];
    for (const team of found) {
      const winner = teams.find((t) => t.name.toLowerCase() === team.name.toLowerCase());
      if (winner) shadowed.push({ team, by: winner });
      else teams.push(team);
    }
    // Watch what exists, and where a folder could appear.
    this.#watcher?.reset(
      // Team files lie flat in their folder.
      dirs.map((d) => ({ path: d.path, recursive: false })),
      [...(project ? [] : [path.join(path.resolve(cwd), '.subagents', 'teams')]), ...(dirs.some((d) => d.source === 'user') ? [] : [user])],
    );
    const changed = JSON.stringify([teams, shadowed, problems, dirs]) !== JSON.stringify([this.#teams, this.#shadowed, this.#problems, this.#dirs]);
    this.#teams = teams;
    this.#shadowed = shadowed;
    this.#problems = problems;
    this.#dirs = dirs;
    if (!changed) return;
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // One faulty listener must not keep the others from hearing.
      }
    }
  }
}
