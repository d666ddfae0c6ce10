import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, readFile, readlink, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { git } from './git';
import { isInside } from './names';

/**
 * `.worktreeinclude` (Claude Code's file, `.gitignore` syntax, at the top of
 * the user's working tree): files git ignores but the project needs to run —
 * `.env`, local config — copied from the user's tree into an agent's
 * worktree. As in Claude Code, a file is copied only when a pattern matches
 * it **and** git ignores it, so a tracked file is never copied. The patterns
 * are matched by the `ignore` package, which implements git's rules
 * (negation, anchoring, `**`, a folder's rule covering what is inside).
 *
 * Which files git ignores comes from `git ls-files --ignored --directory`,
 * which names a folder git ignores as a whole (`node_modules/`) once instead
 * of every file in it. Such a folder is copied when a pattern matches the
 * folder itself, and looked into only when a pattern names a path inside it
 * (`.vscode/launch.json`), so a pattern like `.env` never makes every spawn
 * walk `node_modules`.
 *
 * In the worktree, a file lands only where git ignores it there too (the
 * base may track that path, or not ignore it): then the agent's commit can
 * never pick it up. Regular files and symlinks are copied (a symlink as a
 * symlink); nothing is written outside the worktree.
 */

export const INCLUDE_FILE = '.worktreeinclude';

export interface IncludeResult {
  copied: string[];
  /** Files that matched but were not copied, with why. */
  skipped: string[];
}

export async function copyIncluded(userRoot: string, worktree: string): Promise<IncludeResult> {
  const text = await readFile(path.join(userRoot, INCLUDE_FILE), 'utf8').catch(() => null);
  if (text === null) return { copied: [], skipped: [] };
  const patterns = text.split(/\r?\n/);
  const matcher = ignore().add(patterns);
  const matched = await matchingIgnored(userRoot, matcher, literalPrefixes(patterns));
  if (matched.length === 0) return { copied: [], skipped: [] };

  const result: IncludeResult = { copied: [], skipped: [] };
  const realWorktree = await realpath(worktree);
  // A folder on the way may be a symlink the base tracks: never write (or make folders) through it out of the worktree.
  const candidates: string[] = [];
  for (const rel of matched) {
    if (await staysInside(path.dirname(path.join(worktree, rel)), realWorktree)) candidates.push(rel);
    else result.skipped.push(`${rel} (its folder leads out of the worktree)`);
  }
  const ignoredThere = new Set(
    candidates.length
      ? (await git(['check-ignore', '-z', '--stdin'], { cwd: worktree, input: candidates.join('\0'), okCodes: [0, 1] })).stdout.split('\0').filter(Boolean)
      : [],
  );
  for (const rel of candidates) {
    if (!ignoredThere.has(rel)) {
      result.skipped.push(`${rel} (the worktree's base tracks it or does not ignore it)`);
      continue;
    }
    const outcome = await copyOne(path.join(userRoot, rel), path.join(worktree, rel));
    if (outcome === true) result.copied.push(rel);
    else result.skipped.push(`${rel} (${outcome})`);
  }
  return result;
}

/** Files (relative, `/`-separated) that git ignores in `root` and the patterns match. */
async function matchingIgnored(root: string, matcher: Ignore, prefixes: string[]): Promise<string[]> {
  const listed = (await git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], { cwd: root })).stdout.split('\0').filter(Boolean);
  const out: string[] = [];
  for (const entry of listed) {
    if (!entry.endsWith('/')) {
      if (matcher.ignores(entry)) out.push(entry);
      continue;
    }
    if (matcher.ignores(entry)) out.push(...(await filesUnder(root, entry.slice(0, -1))));
    else if (prefixes.some((p) => p.startsWith(entry))) {
      for (const file of await filesUnder(root, entry.slice(0, -1))) if (matcher.ignores(file)) out.push(file);
    }
  }
  return out;
}

/**
 * The literal leading folders of the patterns that name a path inside a
 * folder (`.vscode/launch.json` → `.vscode/`, `/config/local/*.json` →
 * `config/local/`): only such patterns make a folder git ignores as a whole
 * worth looking into.
 */
function literalPrefixes(patterns: string[]): string[] {
  const prefixes: string[] = [];
  for (const raw of patterns) {
    const p = raw.trim().replace(/^\//, '');
    if (!p || p.startsWith('#') || p.startsWith('!')) continue;
    const segments = p.split('/');
    let prefix = '';
    for (const segment of segments.slice(0, -1)) {
      if (/[*?[\\]/.test(segment)) break;
      prefix += `${segment}/`;
    }
    if (prefix) prefixes.push(prefix);
  }
  return prefixes;
}

/** Every file and symlink under `rel` (relative to `root`), not following symlinks. */
async function filesUnder(root: string, rel: string): Promise<string[]> {
  const entries = await readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    const child = `${rel}/${e.name}`;
    if (e.isDirectory()) out.push(...(await filesUnder(root, child)));
    else if (e.isFile() || e.isSymbolicLink()) out.push(child);
  }
  return out;
}

/** true, or why it was not copied. */
async function copyOne(from: string, to: string): Promise<true | string> {
  try {
    const st = await lstat(from);
    await mkdir(path.dirname(to), { recursive: true });
    if (st.isSymbolicLink()) await symlink(await readlink(from), to);
    else if (st.isFile()) await copyFile(from, to, constants.COPYFILE_FICLONE);
    else return 'not a regular file';
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
  }
}

/** Whether `dir`, where it exists, resolves inside `realRoot` (what does not exist yet is made as plain folders). */
async function staysInside(dir: string, realRoot: string): Promise<boolean> {
  for (let p = dir; ; p = path.dirname(p)) {
    const real = await realpath(p).catch(() => null);
    if (real !== null) return isInside(real, realRoot);
    if (path.dirname(p) === p) return false;
  }
}
