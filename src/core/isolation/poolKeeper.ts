import { existsSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { checkoutDiskBytes } from './diskUse';
import type { FanoutStore } from './fanout';
import { describeError } from './git';
import { busy, expired, isReady, POOL_MAX_AGE_MS, type PooledWorktree, type PoolStore } from './pool';
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
  worktrees: Array<{ path: string; head: string; pooledAt: number; diskBytes: number; ready: boolean }>;
  diskBytes: number;
  /** How many pooled worktrees the repository keeps now (see PoolKeeper.size). */
  size: number;
  /** The widest fan-out remembered for it, if any. */
  widest?: number;
}

/** How big pools may get: the settings, read each time they matter. */
export interface PoolSizing {
  /** Pooled worktrees each repository keeps (at least, when `grows`); 0: no pool at all. */
  size: number;
  /** The pool grows to the widest fan-out run in the repository. */
  grows: boolean;
  /** The most disk all pooled worktrees together may take, in bytes. */
  budgetBytes: number;
}

export class PoolKeeper {
  constructor(
    private readonly store: PoolStore,
    readonly fanouts: FanoutStore,
    private readonly worktreesRoot: string,
    readonly sizing: () => PoolSizing,
    private readonly log: (level: 'info' | 'warn', message: string) => void,
  ) {}

  /**
   * How many pooled worktrees `commonDir` keeps: the setting, or, when the
   * pool grows, as many as the widest fan-out remembered there if that is
   * more. The disk budget bounds what is actually kept (hasRoom).
   */
  async size(commonDir: string): Promise<number> {
    const { size, grows } = this.sizing();
    if (size <= 0) return 0;
    const widest = grows ? ((await this.fanouts.get(commonDir))?.widest ?? 0) : 0;
    return Math.max(size, widest);
  }

  /**
   * Under the repository lock: a pooled worktree of `commonDir` that can be
   * reused under `shape`, taken out of the pool: a ready one first (most
   * recently pooled first: its files are the likeliest in the page cache),
   * else one still to be cleaned that nobody works on (the caller makes it
   * ready: cheaper than a checkout). Ones that cannot be reused are deleted
   * on the way.
   */
  async take(commonDir: string, repoCwd: string, shape: string): Promise<PooledWorktree | undefined> {
    const entries = await this.store.list(commonDir);
    for (const entry of [...entries.filter(isReady), ...entries.filter((e) => !isReady(e) && !busy(e))]) {
      await this.store.remove(entry.path);
      const reason = await this.unusable(entry, shape);
      if (!reason) return entry;
      await this.evict(entry, repoCwd, reason);
    }
    return undefined;
  }

  /**
   * Under the repository lock: whether `commonDir` has room for one more
   * pooled worktree, within its size and the disk budget (counting every
   * repository's pool, and `diskBytes` for the newcomer); expired ones are
   * deleted first.
   */
  async hasRoom(commonDir: string, repoCwd: string, diskBytes?: number): Promise<boolean> {
    const size = await this.size(commonDir);
    if (size <= 0) return false;
    const entries: PooledWorktree[] = [];
    for (const entry of await this.store.list()) {
      if (entry.commonDir === commonDir && expired(entry)) {
        await this.store.remove(entry.path);
        await this.evict(entry, repoCwd, `unused for over ${POOL_MAX_AGE_MS / 86_400_000} days`);
        continue;
      }
      if (entry.diskBytes) this.measured(entry.commonDir, entry.diskBytes);
      entries.push(entry);
    }
    const count = entries.filter((e) => e.commonDir === commonDir).length;
    return count < size && this.diskOf(entries) + (diskBytes ?? this.estimate(commonDir)) <= this.sizing().budgetBytes;
  }

  /** What `entries` take on disk, estimated for those not measured yet. */
  diskOf(entries: readonly PooledWorktree[]): number {
    return entries.reduce((n, e) => n + (e.diskBytes ?? this.estimate(e.commonDir)), 0);
  }

  readonly #checkoutBytes = new Map<string, number>();

  /** About how much disk one checkout of the repository takes, as last measured here (0 before any was). */
  estimate(commonDir: string): number {
    return this.#checkoutBytes.get(commonDir) ?? 0;
  }

  /** Remembers a measured checkout size, for budget checks before the next is measured. */
  measured(commonDir: string, diskBytes: number): void {
    if (diskBytes > 0) this.#checkoutBytes.set(commonDir, diskBytes);
  }

  /** The pool's entries (of one repository, or all), most recently pooled first. */
  list(commonDir?: string): Promise<PooledWorktree[]> {
    return this.store.list(commonDir);
  }

  /** The pool's entry for one worktree, if it holds it. */
  get(worktreePath: string): Promise<PooledWorktree | undefined> {
    return this.store.get(worktreePath);
  }

  /** Under the repository lock: takes an entry out without deleting its folder (its new keeper does). */
  remove(entry: PooledWorktree): Promise<void> {
    return this.store.remove(entry.path);
  }

  /** Under the repository lock. */
  add(entry: PooledWorktree): Promise<void> {
    if (entry.diskBytes) this.measured(entry.commonDir, entry.diskBytes);
    return this.store.add(entry);
  }

  /**
   * Deletes every pooled worktree (of one repository, or all); returns how
   * many. Takes each repository's lock itself. Refills stop until an
   * isolated agent starts there again: the user wanted the disk back.
   */
  async empty(commonDir?: string): Promise<number> {
    await this.fanouts.pause(commonDir);
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

  /** Pooled worktrees per repository, with their (estimated) disk use and the size each pool keeps. */
  async status(): Promise<PoolStatus[]> {
    const byRepo = new Map<string, PoolStatus>();
    for (const e of await this.store.list()) {
      let s = byRepo.get(e.commonDir);
      if (!s) {
        const widest = (await this.fanouts.get(e.commonDir))?.widest;
        s = { commonDir: e.commonDir, repoRoot: e.repoRoot, worktrees: [], diskBytes: 0, size: await this.size(e.commonDir), ...(widest ? { widest } : {}) };
        byRepo.set(e.commonDir, s);
      }
      // One handed back and not measured yet, before anything was measured in this process: measured now (one ls-tree).
      if (!e.diskBytes && !this.estimate(e.commonDir)) this.measured(e.commonDir, await checkoutDiskBytes(e.path, e.head).catch(() => 0));
      const diskBytes = e.diskBytes ?? this.estimate(e.commonDir);
      s.worktrees.push({ path: e.path, head: e.head, pooledAt: e.pooledAt, diskBytes, ready: isReady(e) });
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

  /** Under the repository lock: deletes a pooled worktree already taken out of the store. */
  async evict(entry: PooledWorktree, repoCwd: string, reason: string, level: 'info' | 'warn' = 'info'): Promise<void> {
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
