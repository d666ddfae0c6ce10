import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { IsolationError } from './errors';
import { git, gitLine } from './git';

/** Where a directory sits in git's view of the world. */
export interface RepoLocation {
  /** Top of the working tree that contains the directory (a linked worktree's own top). */
  toplevel: string;
  /** The directory relative to `toplevel`, `/`-separated, '' at the top. */
  prefix: string;
  /** The repository's common git dir (shared by all its worktrees), real path: the lock key. */
  commonDir: string;
  /** This working tree's index file. */
  indexFile: string;
}

/**
 * Finds the repository around `cwd`. Throws the user-facing IsolationError
 * when there is none.
 */
export async function locateRepo(cwd: string): Promise<RepoLocation> {
  const st = await stat(cwd).catch(() => undefined);
  if (!st?.isDirectory()) {
    throw new IsolationError('bad-directory', `Cannot isolate an agent in ${cwd}: that directory does not exist.`);
  }
  const known = located.get(cwd);
  if (known && (await stillThere(known))) return known.repo;
  const repo = await askGit(cwd);
  located.set(cwd, { repo, link: await gitLink(repo.toplevel) });
  return repo;
}

/**
 * Where git last found each directory's repository. Asking git again costs a
 * process on the way to every isolated agent's first request (10–50 ms on a
 * busy machine), and the answer changes only when the folders do.
 */
const located = new Map<string, { repo: RepoLocation; link: string | null | undefined }>();

/** What the top's `.git` is: a linked worktree's file names its admin folder (its text); a folder is null; nothing there, undefined. */
async function gitLink(toplevel: string): Promise<string | null | undefined> {
  const dotGit = path.join(toplevel, '.git');
  const info = await lstat(dotGit).catch(() => undefined);
  if (!info) return undefined;
  return info.isDirectory() ? null : readFile(dotGit, 'utf8').catch(() => undefined);
}

/**
 * Whether git would still give the same answer: the top's `.git` is what it
 * was (a linked worktree's names the same admin folder), the common dir and
 * the index's folder are there, and no folder between the top and the
 * directory has become a repository of its own (a `git init` or a clone in
 * it). A few `stat`s, no process.
 */
async function stillThere({ repo, link }: { repo: RepoLocation; link: string | null | undefined }): Promise<boolean> {
  if (link === undefined) return false;
  const exists = (p: string) => stat(p).then(() => true, () => false);
  const parts = repo.prefix ? repo.prefix.split('/') : [];
  const nested = parts.map((_, i) => path.join(repo.toplevel, ...parts.slice(0, i + 1), '.git'));
  const [now, common, index, ...inner] = await Promise.all([gitLink(repo.toplevel), exists(repo.commonDir), exists(path.dirname(repo.indexFile)), ...nested.map(exists)]);
  return now === link && common && index && !inner.some(Boolean);
}

async function askGit(cwd: string): Promise<RepoLocation> {
  // One git process (it is on the way to every isolated agent's first request).
  // Inside a `.git` dir or a bare repository `--show-toplevel` fails, or
  // `--is-inside-work-tree` says false: either way, no working tree here.
  const res = await git(
    ['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--show-prefix', '--path-format=absolute', '--git-common-dir', '--git-path', 'index'],
    { cwd, okCodes: [0, 128] },
  );
  const [inside, toplevel, prefix, commonDir, indexFile] = res.stdout.trim().split('\n');
  if (res.code !== 0 || inside !== 'true' || !toplevel || prefix === undefined || !commonDir || !indexFile) {
    throw new IsolationError('not-a-repo', `Worktree isolation needs a git repository, but ${cwd} is not inside one.`);
  }
  return {
    toplevel: path.resolve(toplevel),
    prefix: prefix.replace(/\/$/, ''),
    commonDir: await realpath(commonDir),
    indexFile: path.resolve(indexFile),
  };
}

/** Whether `cwd` lies in a git working tree, where an agent can have a worktree of its own. */
export async function inGitRepository(cwd: string): Promise<boolean> {
  try {
    await locateRepo(cwd);
    return true;
  } catch (error) {
    if (error instanceof IsolationError) return false;
    throw error;
  }
}

export interface Head {
  commit: string;
  tree: string;
}

/** HEAD's commit and tree; a clear error for a repository without commits. */
export async function readHead(toplevel: string): Promise<Head> {
  const res = await git(['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}'], { cwd: toplevel, okCodes: [0, 128] });
  const [commit, tree] = res.stdout.trim().split('\n');
  if (res.code !== 0 || !commit || !tree) {
    throw new IsolationError(
      'no-commits',
      `Worktree isolation starts the agent from your current commit, but the repository at ${toplevel} has no commits yet. Make a first commit, then try again.`,
    );
  }
  return { commit, tree };
}

const FALLBACK_IDENTITY = ['-c', 'user.name=Subagents', '-c', 'user.email=subagents@localhost'];
const identityCache = new Map<string, Promise<string[]>>();

/**
 * `-c` options that make commits work where the user has no git identity
 * configured (a fresh container, CI), and never prompt for a signing
 * passphrase. With an identity configured the user's own is used, since the
 * snapshot and the agent's commit are the user's work.
 */
export function commitConfig(commonDir: string, cwd: string): Promise<string[]> {
  let cached = identityCache.get(commonDir);
  if (!cached) {
    cached = (async () => {
      // `git var` fails exactly when `git commit` would ask "Please tell me who you are".
      const checks = await Promise.all(
        ['GIT_AUTHOR_IDENT', 'GIT_COMMITTER_IDENT'].map((v) => git(['var', v], { cwd, okCodes: [0, 1, 128] })),
      );
      const identity = checks.every((r) => r.code === 0) ? [] : FALLBACK_IDENTITY;
      return ['-c', 'commit.gpgSign=false', ...identity];
    })();
    identityCache.set(commonDir, cached);
    cached.catch(() => identityCache.delete(commonDir));
  }
  return cached;
}

const checkoutCache = new Map<string, Promise<string[]>>();

/**
 * How many processes check files out into a new worktree. Creating a worktree
 * is almost all checkout, and git's parallel checkout (2.32+) cuts it several
 * times over on SSDs (measured 5.0 s → 0.3 s for 20,000 files with 4–8
 * workers; see bench/worktree.ts). Git leaves it off by default because it
 * can be slower on spinning disks; a value the user configured wins.
 */
export function checkoutConfig(commonDir: string, cwd: string): Promise<string[]> {
  let cached = checkoutCache.get(commonDir);
  if (!cached) {
    cached = (async () => {
      const configured = await git(['config', '--get', 'checkout.workers'], { cwd, okCodes: [0, 1] });
      if (configured.code === 0) return [];
      return ['-c', `checkout.workers=${checkoutWorkers()}`];
    })();
    checkoutCache.set(commonDir, cached);
    cached.catch(() => checkoutCache.delete(commonDir));
  }
  return cached;
}

export function checkoutWorkers(): number {
  return Math.min(8, Math.max(4, os.availableParallelism()));
}

/** Diff size of `from..to` (trees or commits), as `git diff --shortstat` counts it: binary files are files changed. */
export async function diffStats(
  cwd: string,
  from: string,
  to: string,
): Promise<{ filesChanged: number; insertions: number; deletions: number }> {
  const out = await gitLine(['diff', '--shortstat', '--no-ext-diff', from, to], { cwd });
  return parseShortstat(out);
}

export function parseShortstat(line: string): { filesChanged: number; insertions: number; deletions: number } {
  const num = (re: RegExp) => Number(re.exec(line)?.[1] ?? 0);
  return {
    filesChanged: num(/(\d+) files? changed/),
    insertions: num(/(\d+) insertions?\(\+\)/),
    deletions: num(/(\d+) deletions?\(-\)/),
  };
}

