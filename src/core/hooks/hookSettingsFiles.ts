import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { emptyHookSettings, parseHookSettings, type CommandHook, type HookSettings } from './hookSettings';

/**
 * Finds and reads the settings files hooks come from:
 * `~/.claude/settings.json` (user), and for an agent's cwd the nearest
 * ancestor holding `.claude/settings.json` and/or `.claude/settings.local.json`
 * (project; only when project trust allows, src/core/trust/projectTrust.ts).
 *
 * Hooks fire at every agent start and stop, so files are not read each time:
 * each call stats them and reuses the parsed result while inode, size and
 * mtime are unchanged. An edit is therefore seen by the next agent, and a
 * file's problems are logged once per version, not once per agent.
 *
 * The hooks a file held when the session started are its baseline. A hook
 * added since (by the user in an editor, or by an agent that may write
 * files) is not trusted as a command the user configured: it needs the same
 * approval as a shell command. A file first read after it changed in
 * this session has an empty baseline, since what it held before is unknown.
 * A file in an isolated agent's worktree was just checked out, so its own
 * times say nothing: its baseline is that of the same file in the repository
 * the worktree was made from.
 */

export interface SettingsSources {
  /** Where hooks run and what `CLAUDE_PROJECT_DIR` says: the project dir, or the agent's cwd when there is none. */
  projectDir: string;
  /** Parsed files in merge order: user, project, project-local. Missing files are left out. */
  settings: HookSettings[];
  /** The project folder whose settings were left out because it is not trusted, if any. */
  untrustedProjectDir: string | null;
}

interface CacheEntry {
  version: string;
  settings: Promise<HookSettings>;
}

/** Hook commands as a settings file held them when the session started. */
type Baseline = ReadonlySet<string>;

/** An isolated agent's worktree and the repository it was made from. */
export interface WorktreeOrigin {
  path: string;
  repoRoot: string;
}

const CLOCK_MARGIN_MS = 50;

const PROJECT_FILES = ['settings.json', 'settings.local.json'];

export class HookSettingsFiles {
  readonly #home: string;
  readonly #log: (level: 'warn', message: string) => void;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #baselines = new Map<string, Baseline>();
  /** A worktree's settings file → the repository's file whose baseline it has. */
  readonly #origins = new Map<string, string>();
  /** When the session started, in the file system's nanoseconds. */
  readonly #startedNs: bigint;

  constructor(options: { home: string; log: (level: 'warn', message: string) => void; sessionStart?: number }) {
    this.#home = path.resolve(options.home);
    this.#log = options.log;
    // File times are taken from a coarse clock (a scheduler tick, a few ms): a margin keeps a write
    // just after the start from looking older than it.
    this.#startedNs = BigInt((options.sessionStart ?? Date.now()) - CLOCK_MARGIN_MS) * 1_000_000n;
  }

  /** Whether the session started with this hook in its settings file. */
  inBaseline(hook: CommandHook): boolean {
    const file = this.#origins.get(hook.source) ?? hook.source;
    return this.#baselines.get(file)?.has(hook.command) ?? false;
  }

  get userFile(): string {
    return path.join(this.#home, '.claude', 'settings.json');
  }

  /**
   * The settings files hooks come from for an agent in `cwd`. Project files
   * are read only when `trusted` says their folder may run code (for a
   * worktree, the folder of the repository it was made from); a project
   * folder left out is reported in `untrustedProjectDir`.
   */
  async sources(cwd: string, trusted: (projectDir: string) => boolean, worktree: WorktreeOrigin | null = null): Promise<SettingsSources> {
    const agentCwd = path.resolve(cwd);
    const found = await findProjectHooksDir(agentCwd, this.#home);
    const projectDir = found && trusted(originOf(found, worktree)) ? found : null;
    const files = [this.userFile, ...(projectDir ? PROJECT_FILES.map((f) => path.join(projectDir, '.claude', f)) : [])];
    if (worktree) await Promise.all(files.map((file) => this.#adoptOrigin(file, worktree)));
    const loaded = await Promise.all(files.map((file) => this.#load(file)));
    return {
      projectDir: projectDir ?? agentCwd,
      settings: loaded.filter((s): s is HookSettings => s !== null),
      untrustedProjectDir: found && !projectDir ? originOf(found, worktree) : null,
    };
  }

  /** Gives a worktree's file the baseline of its repository's counterpart (read now if it was not yet). */
  async #adoptOrigin(file: string, worktree: WorktreeOrigin): Promise<void> {
    const rel = path.relative(path.resolve(worktree.path), file);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return;
    const origin = path.join(path.resolve(worktree.repoRoot), rel);
    this.#origins.set(file, origin);
    if (!this.#baselines.has(origin)) await this.#load(origin);
  }

  /** The parsed file, or null when it does not exist. Never throws. */
  async #load(file: string): Promise<HookSettings | null> {
    let version: string;
    let changedInSession: boolean;
    try {
      const info = await stat(file, { bigint: true });
      if (!info.isFile()) return null;
      // Inode catches atomic replace-by-rename; size and mtime catch edits in
      // place; ctime catches a chmod that makes an unreadable file readable.
      version = `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
      // ctime cannot be set back by a write, so a file written in this session always shows it.
      changedInSession = info.ctimeNs > this.#startedNs || info.mtimeNs > this.#startedNs;
    } catch (error) {
      this.#cache.delete(file);
      // Absent at this look: whatever appears there later was not there when the session started.
      if (isMissing(error) && !this.#baselines.has(file)) this.#baselines.set(file, new Set());
      if (!isMissing(error)) this.#log('warn', `Could not read hook settings ${file}: ${describe(error)}; its hooks are ignored.`);
      return null;
    }
    const cached = this.#cache.get(file);
    if (cached?.version === version) return cached.settings;
    // The promise is cached, so concurrent agents share one read and one set of warnings.
    const settings = readFile(file, 'utf8').then(
      (text) => {
        const parsed = parseHookSettings(text, file);
        for (const problem of parsed.problems) this.#log('warn', problem);
        if (!this.#baselines.has(file)) this.#baselines.set(file, changedInSession ? new Set() : commandsOf(parsed));
        return parsed;
      },
      (error: unknown) => {
        this.#log('warn', `Could not read hook settings ${file}: ${describe(error)}; its hooks are ignored.`);
        return emptyHookSettings();
      },
    );
    this.#cache.set(file, { version, settings });
    return settings;
  }
}

/**
 * The nearest ancestor of `start` (itself included) with a project settings
 * file. The home dir is skipped: its `.claude/settings.json` is the user
 * file, and reading it twice would run every user hook twice.
 */
export async function findProjectHooksDir(start: string, home: string): Promise<string | null> {
  const userDir = path.resolve(home);
  for (let dir = path.resolve(start); ; ) {
    if (dir !== userDir) {
      const found = await Promise.all(PROJECT_FILES.map((f) => isFile(path.join(dir, '.claude', f))));
      if (found.some(Boolean)) return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * The project hook commands that would run for an agent in `cwd`, file by
 * file (for project trust's question and warning): only files that hold a
 * hook of an event this product fires.
 */
export async function projectHookFiles(cwd: string, home: string): Promise<Array<{ dir: string; file: string; commands: number }>> {
  const dir = await findProjectHooksDir(cwd, home);
  if (!dir) return [];
  const found: Array<{ dir: string; file: string; commands: number }> = [];
  for (const name of PROJECT_FILES) {
    const file = path.join(dir, '.claude', name);
    // Only regular files are read: a FIFO would never answer.
    const text = (await isFile(file)) ? await readFile(file, 'utf8').catch(() => null) : null;
    if (text === null) continue;
    const commands = commandsOf(parseHookSettings(text, file)).size;
    if (commands > 0) found.push({ dir, file, commands });
  }
  return found;
}

/** Where a folder inside an isolated agent's worktree came from: trust is the repository's. */
function originOf(dir: string, worktree: WorktreeOrigin | null): string {
  if (!worktree) return dir;
  const rel = path.relative(path.resolve(worktree.path), dir);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return dir;
  return path.join(path.resolve(worktree.repoRoot), rel);
}

function commandsOf(settings: HookSettings): Set<string> {
  return new Set(Object.values(settings.events).flatMap((groups) => groups.flatMap((g) => g.hooks.map((h) => h.command))));
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
