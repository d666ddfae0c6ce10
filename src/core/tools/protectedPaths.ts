import { execFile } from 'node:child_process';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { childEnv } from '../childEnv';

/**
 * Files whose change runs code or widens what agents may do, so `acceptEdits`
 * never writes them without asking: hook settings and the scripts
 * beside them (`.claude/`, read by this product and by Claude Code), git's
 * own hooks and config (`core.hooksPath`, `core.fsmonitor` run commands),
 * and whatever folder `core.hooksPath` points git's hooks to,
 * editor folders (`.vscode/tasks.json` can run on folder open, its
 * settings.json can set `subagents.permissionMode`), the CLI's project
 * settings (`.subagents/settings.json`: in a project the user trusts, it sets
 * `permissionMode` and `apiBaseUrl`), and shell and tool
 * start-up files. Agent definitions under `.claude/agents/` stay editable:
 * a file cannot widen the permission mode without the user's consent
 * (modeConsent.ts). Only `bypassPermissions` writes these without asking.
 */

const PROTECTED_DIRS = new Set(['.git', '.claude', '.vscode', '.idea', '.husky', '.subagents']);
/** Inside a protected dir, these sub-folders are ordinary project content. */
const OPEN_SUBDIRS: Record<string, ReadonlySet<string>> = { '.claude': new Set(['agents']) };
const PROTECTED_FILES = new Set([
  '.envrc',
  '.mcp.json',
  '.gitmodules',
  '.gitconfig',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.profile',
]);

/** Why `relative` (a path inside an agent's root, `/`-separated or native) is protected, or null. */
export function protectedReason(relative: string): string | null {
  const parts = relative.split(/[\\/]+/).filter((p) => p && p !== '.');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!.toLowerCase();
    if (PROTECTED_DIRS.has(part)) {
      const next = parts[i + 1]?.toLowerCase();
      if (next !== undefined && OPEN_SUBDIRS[part]?.has(next) && i + 2 < parts.length) {
        i++;
        continue;
      }
      return `it is inside ${parts[i]}/, which holds settings or hooks that run commands`;
    }
  }
  const name = parts.at(-1)?.toLowerCase();
  return name && PROTECTED_FILES.has(name) ? `${parts.at(-1)} runs commands or sets up tools` : null;
}

/**
 * The same for a path a tool is about to write, given as the model wrote it
 * (relative to `root`, or absolute): checked as written and with symlinks
 * resolved, so `docs/link → ../.git/config` is caught too.
 */
export async function protectedTarget(root: string, filePath: string): Promise<string | null> {
  const absolute = path.resolve(root, filePath);
  const lexical = protectedReason(path.relative(root, absolute));
  if (lexical) return lexical;
  const [realRoot, real] = await Promise.all([realpath(root).catch(() => root), realExisting(absolute)]);
  return protectedReason(path.relative(realRoot, real)) ?? (await inGitHooks(real));
}

/**
 * Whether `file` lies in the folder git runs hooks from for its repository:
 * `.git/hooks`, or wherever `core.hooksPath` points (a `.githooks/` in the
 * project, say), asked of git itself so every way of setting it counts
 * (repository, worktree or global config; relative or absolute).
 */
async function inGitHooks(file: string): Promise<string | null> {
  const dir = await existingDir(path.dirname(file));
  if (!dir) return null;
  let hooks: string;
  try {
    // A read-only query: no lock to wait for, so not the worktree code's git runner (a layer above this one).
    hooks = (await run('git', ['rev-parse', '--path-format=absolute', '--git-path', 'hooks'], { cwd: dir, env: childEnv() })).stdout.trim();
  } catch {
    return null; // not in a repository, or no git: git runs no hook here
  }
  if (!hooks) return null;
  const rel = path.relative(await realExisting(hooks), file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return `it is inside ${hooks}, the folder git runs hooks from (core.hooksPath), so a change there runs at your next git command`;
}

const run = promisify(execFile);

/** The nearest existing directory at or above `dir`. */
async function existingDir(dir: string): Promise<string | null> {
  for (let current = dir; ; current = path.dirname(current)) {
    if ((await stat(current).catch(() => null))?.isDirectory()) return current;
    if (path.dirname(current) === current) return null;
  }
}

/** The real path of `file`, resolving symlinks in the part of it that exists. */
async function realExisting(file: string): Promise<string> {
  const tail: string[] = [];
  for (let current = file; ; ) {
    try {
      return path.join(await realpath(current), ...tail.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return file;
      tail.push(path.basename(current));
      current = parent;
    }
  }
}
