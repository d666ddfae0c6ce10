import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { git, GitError, gitLine } from './git';
import { BACKUP_REF_PREFIX, isInside } from './names';

/**
 * The git plumbing of a worktree's life: its branch, its registration and its
 * files. No policy here (what to keep, when to remove); manager.ts decides.
 */

/**
 * Creates `refs/heads/<branch>` at `commit` only if no such branch exists.
 * Returns false when the name is taken (by another agent, an earlier run or
 * the user) so the caller can pick the next name.
 */
export async function createBranch(cwd: string, branch: string, commit: string, reason: string): Promise<boolean> {
  // The empty old value makes update-ref refuse to overwrite: atomic
  // "create if absent", also against other processes. The reflog entry it
  // writes records the base commit, which recover() reads for orphans.
  const res = await git(['update-ref', '--create-reflog', '-m', reason, `refs/heads/${branch}`, commit, ''], {
    cwd,
    retryOnLock: true,
    okCodes: [0, 1, 128],
  });
  if (res.code === 0) return true;
  if (/already exists/.test(res.stderr)) return false;
  throw new GitError(['update-ref', `refs/heads/${branch}`], res.code, res.stderr, cwd);
}

/** Deletes a branch; with `expected`, only while it still points there (so later commits are never dropped). */
export async function deleteBranch(cwd: string, branch: string, expected?: string): Promise<void> {
  const args = ['update-ref', '-d', `refs/heads/${branch}`];
  if (expected) args.push(expected);
  await git(args, { cwd, retryOnLock: true });
}

export async function deleteRef(cwd: string, ref: string): Promise<void> {
  await git(['update-ref', '-d', ref], { cwd, retryOnLock: true });
}

/** The apply backups of one worktree: `<prefix><name>` and `<prefix><name>.<n>`. */
export async function backupRefsOf(cwd: string, name: string): Promise<string[]> {
  const out = (await git(['for-each-ref', '--format=%(refname)', BACKUP_REF_PREFIX], { cwd })).stdout;
  const own = new RegExp(`^${escapeRegExp(BACKUP_REF_PREFIX + name)}(\\.\\d+)?$`);
  return out.split('\n').filter((ref) => own.test(ref));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export async function branchTip(cwd: string, branch: string): Promise<string | undefined> {
  const res = await git(['rev-parse', '--verify', '-q', `refs/heads/${branch}^{commit}`], { cwd, okCodes: [0, 1, 128] });
  return res.code === 0 ? res.stdout.trim() : undefined;
}

/**
 * Registers the worktree without checking files out. The checkout runs
 * separately (checkoutWorktree), outside the repository lock: it is the slow
 * part and touches only the new worktree, so parallel spawns overlap there.
 */
export async function registerWorktree(cwd: string, worktreePath: string, branch: string): Promise<void> {
  await git(['worktree', 'add', '--no-checkout', worktreePath, branch], { cwd, retryOnLock: true });
}

/** Registers a worktree detached at `commit`, files not checked out yet (a refill of the pool; see registerWorktree). */
export async function registerDetached(cwd: string, worktreePath: string, commit: string): Promise<void> {
  await git(['worktree', 'add', '--no-checkout', '--detach', worktreePath, commit], { cwd, retryOnLock: true });
}

/**
 * Fills the worktree's index and files from its branch. `--no-recurse-submodules`:
 * submodules stay uninitialised (empty folders) even when the user set
 * `submodule.recurse`; cloning them per agent would cost minutes. Unlike a
 * plain `git worktree add`, no post-checkout hook runs: the user's hooks
 * (npm installs, LFS lock checks) are not the agent's business.
 */
export async function checkoutWorktree(worktreePath: string, config: readonly string[] = []): Promise<void> {
  await git([...config, 'reset', '--hard', '--quiet', '--no-recurse-submodules'], { cwd: worktreePath });
}

/** Where removed worktrees wait to be deleted, under worktreesRoot (the same file system, so moving one there is a rename). */
export const TRASH_FOLDER = '.trash';

/**
 * Removes a worktree and its registration. The folder is moved to the trash
 * (a rename) and git's registration pruned, which is quick, so callers can do
 * it under the repository lock and answer at once; the files (thousands,
 * slow to delete on some disks) are deleted later by the pool's upkeep
 * (upkeep.ts), in the background, never on the way to a spawn or a
 * command's answer. Falls back to `git worktree remove` where the folder
 * cannot be moved. Only ever deletes inside `worktreesRoot`.
 */
export async function removeWorktree(repoCwd: string, worktreePath: string, worktreesRoot: string): Promise<void> {
  if (!isInside(worktreePath, worktreesRoot) || worktreePath === worktreesRoot) {
    throw new Error(`Refusing to delete ${worktreePath}: it is not inside ${worktreesRoot}.`);
  }
  if (existsSync(worktreePath)) {
    const trash = path.join(worktreesRoot, TRASH_FOLDER, `${path.basename(worktreePath)}-${randomBytes(4).toString('hex')}`);
    try {
      await mkdir(path.dirname(trash), { recursive: true });
      await rename(worktreePath, trash);
    } catch {
      const res = await git(['worktree', 'remove', '--force', worktreePath], { cwd: repoCwd, retryOnLock: true, okCodes: [0, 128] });
      if (res.code === 0) return;
      await rm(worktreePath, { recursive: true, force: true, maxRetries: 3 });
    }
  }
  await pruneWorktrees(repoCwd);
}

/** The folders waiting in the trash. */
export async function trashed(worktreesRoot: string): Promise<string[]> {
  const trash = path.join(worktreesRoot, TRASH_FOLDER);
  return (await readdir(trash).catch(() => [] as string[])).map((name) => path.join(trash, name));
}

/** Drops registrations of worktrees whose folders are gone. */
export async function pruneWorktrees(repoCwd: string): Promise<void> {
  await git(['worktree', 'prune'], { cwd: repoCwd, retryOnLock: true });
}

export interface ListedWorktree {
  path: string;
  head?: string;
  /** Short branch name (without `refs/heads/`); undefined when detached. */
  branch?: string;
  prunable: boolean;
}

/** `git worktree list --porcelain`, parsed. */
export async function listWorktrees(repoCwd: string): Promise<ListedWorktree[]> {
  const out = await gitLine(['worktree', 'list', '--porcelain', '-z'], { cwd: repoCwd });
  const list: ListedWorktree[] = [];
  let current: ListedWorktree | undefined;
  for (const field of out.split('\0')) {
    if (field === '') {
      if (current) list.push(current);
      current = undefined;
      continue;
    }
    const [key = '', ...rest] = field.split(' ');
    const value = rest.join(' ');
    if (key === 'worktree') current = { path: value, prunable: false };
    else if (!current) continue;
    else if (key === 'HEAD') current.head = value;
    else if (key === 'branch') current.branch = value.replace(/^refs\/heads\//, '');
    else if (key === 'prunable') current.prunable = true;
  }
  if (current) list.push(current);
  return list;
}
