import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { FileLock } from '../fileLock';

/**
 * The lock around one repository's shared worktree state: git's
 * `.git/worktrees/` bookkeeping (a `git worktree add` in one process reads
 * every other worktree's admin folder, which another process may be writing
 * just then), the subagents branches, and the pool of reusable worktrees.
 * Every process takes it — two VS Code windows and a CLI drawing on one
 * repository are the normal case — so it is a lock file inside the common git
 * dir, the one place all of them share whatever their own storage folders.
 * Held for a few git commands at a time; checkouts run outside it.
 */

/** Our folder inside the common git dir: the lock and its short-lived companions (git ignores unknown entries there). */
export const LOCK_FOLDER = 'subagents';

const locks = new Map<string, FileLock>();

export async function withRepoLock<T>(commonDir: string, fn: () => Promise<T>): Promise<T> {
  let lock = locks.get(commonDir);
  if (!lock) {
    lock = new FileLock(path.join(commonDir, LOCK_FOLDER, 'worktrees.lock'), `The worktrees of ${commonDir}`);
    locks.set(commonDir, lock);
  }
  // Not recursive: a repository that is gone must fail here, not be recreated as an empty folder.
  await mkdir(path.join(commonDir, LOCK_FOLDER)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return lock.run(fn);
}
