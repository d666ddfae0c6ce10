import { lstat, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { git } from './git';

/**
 * The git steps of reusing a worktree: checking whose it is, cleaning it
 * when it goes back to the pool, and moving it to a new base with a checkout
 * that touches only the files that differ. No policy here (manager.ts and
 * pool.ts decide what goes where).
 */

/** The admin folder git keeps for a linked worktree (`<common dir>/worktrees/<id>`), from its `.git` file. */
export async function adminDirOf(worktreePath: string): Promise<string | undefined> {
  const text = await readFile(path.join(worktreePath, '.git'), 'utf8').catch(() => undefined);
  const gitdir = /^gitdir: (.+)$/m.exec(text ?? '')?.[1]?.trim();
  return gitdir ? path.resolve(worktreePath, gitdir) : undefined;
}

/** The branch the worktree has checked out (short name), undefined when detached or not a worktree. */
export async function checkedOutBranch(worktreePath: string): Promise<string | undefined> {
  const res = await git(['symbolic-ref', '-q', 'HEAD'], { cwd: worktreePath, okCodes: [0, 1, 128] }).catch(() => undefined);
  if (!res || res.code !== 0) return undefined;
  return res.stdout.trim().replace(/^refs\/heads\//, '');
}

/**
 * Entries of a worktree's admin folder that a worktree fresh from `git
 * worktree add` and used by an agent has. Anything else (a merge or rebase
 * left half done, bisect state, its own config or sparse-checkout rules,
 * submodules initialised in it) would carry the previous agent's state to
 * the next one: such a worktree is deleted, not pooled.
 */
const KEPT_ADMIN_ENTRIES = ['HEAD', 'commondir', 'gitdir', 'index'];
/** Traces of finished commands: what the previous agent did (its last commit message, its reflog), removed before reuse. */
const LEFTOVER_ADMIN_ENTRIES = ['ORIG_HEAD', 'FETCH_HEAD', 'COMMIT_EDITMSG', 'AUTO_MERGE', 'logs'];

export async function poolable(adminDir: string): Promise<boolean> {
  const entries = await readdir(adminDir).catch(() => null);
  return entries !== null && entries.every((e) => KEPT_ADMIN_ENTRIES.includes(e) || LEFTOVER_ADMIN_ENTRIES.includes(e));
}

/**
 * Makes a worktree hold exactly what a checkout of its HEAD commit holds, so
 * nothing of one agent reaches the next: index flags that make git look
 * away from a file (skip-worktree, assume-unchanged: a file rewritten under
 * one would survive `reset --hard` unseen) cleared; tracked files restored;
 * every untracked and ignored file deleted (build output, copied
 * `.worktreeinclude` files, whatever the agent left), nested repositories
 * too; and the folder of every submodule emptied, as our worktrees never
 * initialise submodules (a repository the agent committed as a gitlink
 * would otherwise live on: git never removes a populated one).
 */
export async function scrub(worktreePath: string): Promise<void> {
  await clearIndexFlags(worktreePath);
  await git(['reset', '--hard', '--quiet', '--no-recurse-submodules'], { cwd: worktreePath });
  await git(['clean', '-ffdxq'], { cwd: worktreePath });
  await emptySubmoduleFolders(worktreePath);
}

/** Paths per update-index call, well within any command line's limit. */
const FLAG_BATCH = 200;

/** Clears the flags of entries `git ls-files -v` marks skip-worktree (`S`, `s`) or assume-unchanged (a lowercase tag). */
async function clearIndexFlags(worktreePath: string): Promise<void> {
  const listed = (await git(['ls-files', '-v', '-z'], { cwd: worktreePath })).stdout.split('\0').filter((e) => e.length > 2 && e[1] === ' ');
  const skipped = listed.filter((e) => e[0]!.toUpperCase() === 'S').map((e) => e.slice(2));
  const assumed = listed.filter((e) => e[0] !== e[0]!.toUpperCase()).map((e) => e.slice(2));
  // One flag per call, the paths as arguments: update-index applies such an option to the paths after it (not to
  // --stdin's), and of two such options only the last counts.
  for (const [option, paths] of [['--no-skip-worktree', skipped], ['--no-assume-unchanged', assumed]] as const) {
    for (let i = 0; i < paths.length; i += FLAG_BATCH) await git(['update-index', option, '--', ...paths.slice(i, i + FLAG_BATCH)], { cwd: worktreePath });
  }
}

/** Every gitlink's folder made empty, as a fresh checkout leaves it (never through a link: its parents are checked first). */
async function emptySubmoduleFolders(worktreePath: string): Promise<void> {
  const staged = (await git(['ls-files', '-s', '-z'], { cwd: worktreePath })).stdout.split('\0');
  const gitlinks = staged.filter((e) => e.startsWith('160000 ')).map((e) => e.slice(e.indexOf('\t') + 1));
  for (const rel of gitlinks) {
    const parts = rel.split('/');
    let real = true;
    for (let i = 1; i < parts.length && real; i++) real = (await lstat(path.join(worktreePath, ...parts.slice(0, i))).catch(() => null))?.isDirectory() ?? false;
    if (!real) continue;
    const folder = path.join(worktreePath, rel);
    const info = await lstat(folder).catch(() => null);
    if (info?.isDirectory() && (await readdir(folder)).length === 0) continue;
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder);
  }
}

/** Detaches the worktree's HEAD at `commit`, so no branch is checked out in it (a pooled worktree is nobody's). */
export async function detachHead(worktreePath: string, commit: string): Promise<void> {
  await git(['update-ref', '--no-deref', '-m', 'subagents: back to the pool', 'HEAD', commit], { cwd: worktreePath, retryOnLock: true });
  // Its reflog, last commit message and the like would show the previous agent's work to the next one.
  const admin = await adminDirOf(worktreePath);
  if (admin) await Promise.all(LEFTOVER_ADMIN_ENTRIES.map((e) => rm(path.join(admin, e), { recursive: true, force: true })));
}

/** Points the worktree's HEAD at `branch` without touching its files or index. */
export async function attachBranch(worktreePath: string, branch: string, reason: string): Promise<void> {
  await git(['symbolic-ref', '-m', reason, 'HEAD', `refs/heads/${branch}`], { cwd: worktreePath, retryOnLock: true });
}
