import { existsSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { describeError } from './git';
import { expired, POOL_MAX_AGE_MS, type PooledWorktree, type PoolStore } from './pool';
import { adminDirOf } from './recycle';
import { withRepoLock } from './repoLock';
import { removeWorktree } from './worktrees';

/**
 * The pool's rules: which pooled worktree a spawn gets, when one is too old
 * or of another shape to reuse, how many a repository keeps. Every method
 * that reads and changes the pool runs under the repository's lock, taken by
 * the caller where it says so.
 */

export interface PoolStatus {
  commonDir: string;
  repoRoot: string;
  worktrees: Array<{ path: string; head: string; pooledAt: number; diskBytes: number }>;
  diskBytes: number;
}

export class PoolKeeper {
  constructor(
    private readonly store: PoolStore,
    private readonly worktreesRoot: string,
    private readonly log: (level: 'info' | 'warn', message: string) => void,
  ) {}

  /**
   * Under the repository lock: a pooled worktree of `commonDir` that can be
   * reused under `shape`, taken out of the pool (most recently pooled first:
   * its files are the likeliest in the page cache). Ones that cannot be
   * reused are deleted on the way.
   */
  async take(commonDir: string, repoCwd: string, shape: string): Promise<PooledWorktree | undefined> {
    for (const entry of await this.store.list(commonDir)) {
      await this.store.remove(entry.path);
      const reason = await this.unusable(entry, shape);
      if (!reason) return entry;
      await this.evict(entry, repoCwd, reason);
    }
    return undefined;
  }

  /** Under the repository lock: whether `commonDir` has room for one more pooled worktree; expired ones are deleted first. */
  async hasRoom(commonDir: string, repoCwd: string, size: number): Promise<boolean> {
    if (size <= 0) return false;
    let count = 0;
    for (const entry of await this.store.list(commonDir)) {
      if (expired(entry)) {
        await this.store.remove(entry.path);
        await this.evict(entry, repoCwd, `unused for over ${POOL_MAX_AGE_MS / 86_400_000} days`);
      } else count++;
    }
    return count < size;
  }

  /** Under the repository lock. */
  add(entry: PooledWorktree): Promise<void> {
    return this.store.add(entry);
  }

  /** Deletes every pooled worktree (of one repository, or all); returns how many. Takes each repository's lock itself. */
  async empty(commonDir?: string): Promise<number> {
    const byRepo = new Map<string, PooledWorktree[]>();
    for (const e of await this.store.list(commonDir)) byRepo.set(e.commonDir, [...(byRepo.get(e.commonDir) ?? []), e]);
    let removed = 0;
    for (const [repo, entries] of byRepo) {
      if (!existsSync(repo)) {
        // The repository is gone: its worktrees can only be deleted as folders.
        for (const e of entries) await this.forget(e);
        removed += entries.length;
        continue;
      }
      await withRepoLock(repo, async () => {
        for (const e of await this.store.list(repo)) {
          await this.store.remove(e.path);
          await this.evict(e, existsSync(e.repoRoot) ? e.repoRoot : repo, 'the pool was emptied', 'info');
          removed++;
        }
      });
    }
    return removed;
  }

  /** Pooled worktrees per repository, with their (estimated) disk use. */
  async status(): Promise<PoolStatus[]> {
    const byRepo = new Map<string, PoolStatus>();
    for (const e of await this.store.list()) {
      let s = byRepo.get(e.commonDir);
      if (!s) byRepo.set(e.commonDir, (s = { commonDir: e.commonDir, repoRoot: e.repoRoot, worktrees: [], diskBytes: 0 }));
      const diskBytes = e.diskBytes ?? 0;
      s.worktrees.push({ path: e.path, head: e.head, pooledAt: e.pooledAt, diskBytes });
      s.diskBytes += diskBytes;
    }
    return [...byRepo.values()];
  }

  /** Pooled worktrees whose repository no longer exists, or whose folder is gone: dropped (recover()). */
  async pruneGone(): Promise<void> {
    for (const e of await this.store.list()) {
      if (!existsSync(e.commonDir)) await this.forget(e);
      else if (!existsSync(e.path)) await this.store.remove(e.path);
    }
  }

  /** The paths the pool holds (recover() must not treat them as leftovers). */
  async paths(): Promise<Set<string>> {
    return new Set((await this.store.list()).map((e) => e.path));
  }

  private async unusable(entry: PooledWorktree, shape: string): Promise<string | null> {
    if (expired(entry)) return `unused for over ${POOL_MAX_AGE_MS / 86_400_000} days`;
    if (entry.shape !== shape) return "the repository's checkout settings changed since it was checked out";
    const admin = await adminDirOf(entry.path);
    const common = admin && (await readFile(path.join(admin, 'commondir'), 'utf8').catch(() => null));
    if (!admin || common === null || common === undefined) return 'it is no longer a registered worktree';
    const real = await realpath(path.resolve(admin, common.trim())).catch(() => null);
    if (real !== entry.commonDir) return 'it belongs to another repository now';
    return null;
  }

  private async evict(entry: PooledWorktree, repoCwd: string, reason: string, level: 'info' | 'warn' = 'info'): Promise<void> {
    try {
      await removeWorktree(repoCwd, entry.path, this.worktreesRoot);
      this.log(level, `Deleted the pooled worktree ${entry.path}: ${reason}.`);
    } catch (e) {
      this.log('warn', `Could not delete the pooled worktree ${entry.path} (${reason}): ${describeError(e)}`);
    }
  }

  private async forget(entry: PooledWorktree): Promise<void> {
    await this.store.remove(entry.path);
    if ((await stat(entry.path).catch(() => null))?.isDirectory()) {
      await removeWorktree(entry.commonDir, entry.path, this.worktreesRoot).catch(() => undefined);
    }
  }
}
