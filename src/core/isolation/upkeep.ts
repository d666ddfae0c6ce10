import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { currentOwner, type ProcessOwner } from '../processOwner';
import { checkoutDiskBytes } from './diskUse';
import type { Fanout } from './fanout';
import { describeError, git } from './git';
import { moveCheckout } from './move';
import { repoFolderName } from './names';
import { busy, expired, isReady, repoShape, type PooledWorktree } from './pool';
import type { PoolKeeper } from './poolKeeper';
import { adminDirOf, detachHead, scrub } from './recycle';
import { checkoutConfig } from './repo';
import { withRepoLock } from './repoLock';
import type { StateStore } from './stateStore';
import { checkoutWorktree, registerDetached, trashed } from './worktrees';

/**
 * The pool's upkeep: the slow work that keeps isolated spawns fast, done in
 * the background instead of on anyone's way. One pass:
 *
 * 1. cleans the worktrees discards handed back (their untracked and ignored
 *    files deleted, tracked files restored), so the next agent that takes
 *    one only moves it to its base;
 * 2. evicts what the pool should not keep: worktrees unused for a week,
 *    more than a repository's pool size, more than the disk budget (least
 *    recently pooled first, across repositories);
 * 3. deletes what waits in the trash (removed worktrees: tens of thousands
 *    of files, seconds to minutes on some disks);
 * 4. refills each repository where isolated agents ran this week up to its
 *    widest fan-out, counting the worktrees agents hold now (they come back
 *    when discarded or applied), within the budget: new worktrees checked
 *    out at the user's current commit;
 * 5. moves pooled worktrees to the user's current commit, so the next
 *    spawn's move is only the user's uncommitted changes.
 *
 * Any long-lived process may run it (VS Code's extension host, an agent
 * host), when no agent of its own is at work; a short-lived one (the CLI)
 * leaves it to a detached `subagents worktrees maintain`. One pass at a time
 * per storage folder (a lock file); a pass stops between steps when
 * `shouldStop` says so. A pooled worktree being worked on names its
 * worker, so takes skip it and a crash leaves it to the next pass.
 */

export interface UpkeepContext {
  pool: PoolKeeper;
  records: StateStore;
  worktreesRoot: string;
  instance: string;
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
}

export interface UpkeepOptions {
  /** Asked between steps: true stops the pass where it is (an agent started in this process). */
  shouldStop?: () => boolean;
}

export interface UpkeepReport {
  /** Handed-back worktrees made ready. */
  cleaned: number;
  /** Pooled worktrees removed (too old, too many, over the budget). */
  evicted: number;
  /** Folders deleted from the trash. */
  deleted: number;
  /** New pooled worktrees checked out. */
  filled: number;
  /** Pooled worktrees moved to the user's current commit. */
  moved: number;
  /** The pass stopped early (shouldStop). */
  stopped: boolean;
}

/** What one repository's pool should look like now. */
interface RepoPlan {
  commonDir: string;
  repoRoot: string;
  entries: PooledWorktree[];
  /** How many pooled worktrees it keeps. */
  size: number;
  /** The fan-out remembered for it (undefined: never refilled). */
  fanout?: Fanout;
  /** Worktrees agents hold now (in use, or kept with changes). */
  held: number;
}

class Stop extends Error {}

/**
 * A pooled worktree is moved to the user's current commit at idle only when
 * that many paths or more differ (a pull, a branch switch): a spawn moves a
 * few paths at the cost of a few files, so moving them ahead buys nothing.
 */
export const MOVE_AT_IDLE_PATHS = 50;

export class PoolUpkeep {
  readonly #me: ProcessOwner;
  /** Disk a checkout takes, measured once per repository and pass (worktrees of one repository differ by a few files). */
  readonly #measured = new Map<string, number>();

  constructor(private readonly ctx: UpkeepContext) {
    this.#me = currentOwner(ctx.instance);
  }

  /** Whether a pass would do anything: a few small files read, and a `git rev-parse` per repository with a pool (its checkout settings, when they changed). */
  async pending(): Promise<boolean> {
    if ((await trashed(this.ctx.worktreesRoot)).length > 0) return true;
    const repos = await this.#plan();
    const budget = this.ctx.pool.sizing().budgetBytes;
    const all = [...repos.values()].flatMap((r) => r.entries);
    if (this.ctx.pool.diskOf(all) > budget) return true;
    for (const repo of repos.values()) {
      if (repo.entries.some((e) => (!isReady(e) && !busy(e)) || expired(e))) return true;
      const shape = existsSync(repo.repoRoot) ? await repoShape(repo.commonDir, repo.repoRoot).catch(() => undefined) : undefined;
      if (shape && repo.entries.some((e) => e.shape !== shape)) return true;
      if (repo.entries.length > repo.size) return true;
      if (this.#missing(repo) > 0 && this.ctx.pool.diskOf(all) + this.ctx.pool.estimate(repo.commonDir) <= budget) return true;
      if (repo.entries.length > 0 && (await this.#stale(repo))) return true;
    }
    return false;
  }

  /** One pass, as described above. */
  async run(opts: UpkeepOptions = {}): Promise<UpkeepReport> {
    const report: UpkeepReport = { cleaned: 0, evicted: 0, deleted: 0, filled: 0, moved: 0, stopped: false };
    this.#measured.clear();
    const check = () => {
      if (opts.shouldStop?.()) throw new Stop();
    };
    try {
      for (const repo of (await this.#plan()).values()) {
        for (const entry of repo.entries.filter((e) => !isReady(e) && !busy(e))) {
          check();
          if (await this.#clean(entry)) report.cleaned++;
        }
      }
      check();
      report.evicted += await this.#trim();
      for (const folder of await trashed(this.ctx.worktreesRoot)) {
        check();
        await rm(folder, { recursive: true, force: true, maxRetries: 3 }).then(
          () => report.deleted++,
          (e: unknown) => this.ctx.log('warn', `Could not delete ${folder}: ${describeError(e)}; the next upkeep retries.`),
        );
      }
      for (const repo of (await this.#plan()).values()) {
        for (let missing = this.#missing(repo); missing > 0; missing--) {
          check();
          if (!(await this.#fill(repo))) break;
          report.filled++;
        }
      }
      for (const repo of (await this.#plan()).values()) {
        const head = await this.#stale(repo);
        if (!head) continue;
        for (const entry of repo.entries.filter((e) => isReady(e) && e.head !== head)) {
          check();
          if ((await this.#far(repo.repoRoot, entry.head, head)) && (await this.#move(entry, head))) report.moved++;
        }
      }
    } catch (e) {
      if (!(e instanceof Stop)) throw e;
      report.stopped = true;
    }
    return report;
  }

  /** Every repository with a pool or a remembered fan-out, with what its pool should hold. */
  async #plan(): Promise<Map<string, RepoPlan>> {
    const repos = new Map<string, RepoPlan>();
    const repoOf = async (commonDir: string, repoRoot: string) => {
      let repo = repos.get(commonDir);
      if (!repo) repos.set(commonDir, (repo = { commonDir, repoRoot, entries: [], size: await this.ctx.pool.size(commonDir), held: 0 }));
      return repo;
    };
    for (const entry of await this.ctx.pool.list()) {
      if (entry.diskBytes) this.ctx.pool.measured(entry.commonDir, entry.diskBytes);
      (await repoOf(entry.commonDir, entry.repoRoot)).entries.push(entry);
    }
    for (const fanout of await this.ctx.pool.fanouts.list()) {
      if (!existsSync(fanout.commonDir)) continue;
      const repo = await repoOf(fanout.commonDir, fanout.repoRoot);
      repo.fanout = fanout;
      repo.repoRoot = fanout.repoRoot;
    }
    const { records } = await this.ctx.records.loadAll();
    for (const rec of records) {
      const repo = repos.get(rec.commonDir);
      if (repo && (rec.state === 'creating' || rec.state === 'active' || rec.state === 'finished')) repo.held++;
    }
    return repos;
  }

  /** How many worktrees a refill would add: up to the widest fan-out, counting what agents hold and what the pool has. */
  #missing(repo: RepoPlan): number {
    if (!repo.fanout || repo.fanout.paused || !existsSync(repo.repoRoot)) return 0;
    return Math.min(repo.size, repo.fanout.widest) - repo.held - repo.entries.length;
  }

  /**
   * The user's current commit when a ready pooled worktree of the repository
   * is far from it (MOVE_AT_IDLE_PATHS); undefined when none is, or it
   * cannot be read.
   */
  async #stale(repo: RepoPlan): Promise<string | undefined> {
    if (!existsSync(repo.repoRoot)) return undefined;
    const res = await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: repo.repoRoot, okCodes: [0, 1, 128] }).catch(() => null);
    const head = res?.code === 0 ? res.stdout.trim() : undefined;
    if (!head) return undefined;
    for (const e of repo.entries) if (isReady(e) && (await this.#far(repo.repoRoot, e.head, head))) return head;
    return undefined;
  }

  readonly #distance = new Map<string, boolean>();

  /** Whether MOVE_AT_IDLE_PATHS or more paths differ between two commits (remembered per pair). */
  async #far(cwd: string, from: string, to: string): Promise<boolean> {
    if (from === to) return false;
    const key = `${from}..${to}`;
    let far = this.#distance.get(key);
    if (far === undefined) {
      const res = await git(['diff-tree', '-r', '--name-only', '-z', '--no-renames', from, to], { cwd, okCodes: [0, 128] }).catch(() => null);
      // Unreadable (a commit gone): moving it checks everything out, which is what it needs.
      far = !res || res.code !== 0 || res.stdout.split('\0').filter(Boolean).length >= MOVE_AT_IDLE_PATHS;
      this.#distance.set(key, far);
    }
    return far;
  }

  /**
   * Marks `entry` as ours to work on, under the lock, unless it is gone or
   * someone else works on it; runs `work` outside the lock; then, under the
   * lock again, stores what `work` returned as the entry (ready, worker
   * cleared) if the entry is still ours. A failure evicts it.
   */
  async #work(entry: PooledWorktree, what: string, work: (entry: PooledWorktree) => Promise<Partial<PooledWorktree>>): Promise<boolean> {
    const claimed = await withRepoLock(entry.commonDir, async () => {
      const now = await this.ctx.pool.get(entry.path);
      if (!now || (busy(now) && now.worker.instance !== this.#me.instance)) return undefined;
      const mine = { ...now, worker: this.#me };
      await this.ctx.pool.add(mine);
      return mine;
    });
    if (!claimed) return false;
    let patch: Partial<PooledWorktree> | undefined;
    let failure: unknown;
    try {
      patch = await work(claimed);
    } catch (e) {
      failure = e;
    }
    return withRepoLock(entry.commonDir, async () => {
      const now = await this.ctx.pool.get(entry.path);
      // Emptied meanwhile (Clean Up): its folder is in the trash already.
      if (!now || now.worker?.instance !== this.#me.instance) return false;
      if (patch) {
        const ready: PooledWorktree = { ...now, ...patch, ready: true };
        delete ready.worker;
        await this.ctx.pool.add(ready);
        return true;
      }
      await this.ctx.pool.remove(now);
      await this.ctx.pool.evict(now, this.#cwd(now), `${what} failed: ${describeError(failure)}`, 'warn');
      return false;
    });
  }

  #cwd(entry: { repoRoot: string; commonDir: string }): string {
    return existsSync(entry.repoRoot) ? entry.repoRoot : entry.commonDir;
  }

  /** A handed-back worktree made exactly its commit again. */
  #clean(entry: PooledWorktree): Promise<boolean> {
    return this.#work(entry, 'Cleaning it for reuse', async (e) => {
      await scrub(e.path);
      return { diskBytes: await this.#measure(e.path, e.head, e.commonDir) };
    });
  }

  /** A pooled worktree moved to `head`, the user's current commit. */
  #move(entry: PooledWorktree, head: string): Promise<boolean> {
    return this.#work(entry, 'Moving it to the current commit', async (e) => {
      await moveCheckout(e.path, e.head, head, await checkoutConfig(e.commonDir, this.#cwd(e)));
      await detachHead(e.path, head);
      return { head, diskBytes: await this.#measure(e.path, head, e.commonDir) };
    });
  }

  async #measure(worktreePath: string, commit: string, commonDir: string): Promise<number> {
    let bytes = this.#measured.get(commonDir);
    if (bytes === undefined) {
      const admin = await adminDirOf(worktreePath);
      bytes = await checkoutDiskBytes(worktreePath, commit, admin && path.join(admin, 'index'));
      this.#measured.set(commonDir, bytes);
    }
    this.ctx.pool.measured(commonDir, bytes);
    return bytes;
  }

  /**
   * One new pooled worktree for the repository at the user's current
   * commit, if the budget has room for it: registered under the lock with
   * its entry (not ready, ours), checked out outside it. False when there is
   * no room or no commit to check out.
   */
  async #fill(repo: RepoPlan): Promise<boolean> {
    const head = await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: repo.repoRoot, okCodes: [0, 1, 128] });
    if (head.code !== 0) return false;
    const commit = head.stdout.trim();
    if (this.ctx.pool.estimate(repo.commonDir) === 0) this.ctx.pool.measured(repo.commonDir, await checkoutDiskBytes(repo.repoRoot, commit));
    const shape = await repoShape(repo.commonDir, repo.repoRoot);
    const entry = await withRepoLock(repo.commonDir, async () => {
      if (!(await this.ctx.pool.hasRoom(repo.commonDir, repo.repoRoot))) return undefined;
      const wtPath = this.#freshPath(repo.commonDir);
      const now = Date.now();
      const made: PooledWorktree = { kind: 'subagents-pooled-worktree', version: 1, path: wtPath, commonDir: repo.commonDir, repoRoot: repo.repoRoot, head: commit, shape, createdAt: now, pooledAt: now, ready: false, worker: this.#me };
      // The entry first: a crash during the registration or the checkout leaves a trace the next pass (or a take) finishes.
      await this.ctx.pool.add(made);
      try {
        await registerDetached(repo.repoRoot, wtPath, commit);
      } catch (e) {
        await this.ctx.pool.remove(made);
        throw e;
      }
      return made;
    });
    if (!entry) return false;
    const filled = await this.#work(entry, 'Checking it out', async (e) => {
      await checkoutWorktree(e.path, await checkoutConfig(e.commonDir, repo.repoRoot));
      return { diskBytes: await this.#measure(e.path, e.head, e.commonDir) };
    }).catch(() => false);
    return filled;
  }

  #freshPath(commonDir: string): string {
    const dir = path.join(this.ctx.worktreesRoot, repoFolderName(commonDir));
    for (;;) {
      const p = path.join(dir, `wt-${randomBytes(4).toString('hex')}`);
      if (!existsSync(p)) return p;
    }
  }

  /** Evicts what the pool should not keep; returns how many. */
  async #trim(): Promise<number> {
    const repos = await this.#plan();
    const out = new Map<string, { entry: PooledWorktree; why: string }>();
    for (const repo of repos.values()) {
      // Most recently pooled first: the first `size` stay (one being worked on stays whatever its place).
      let keeping = 0;
      const shape = existsSync(repo.repoRoot) ? await repoShape(repo.commonDir, repo.repoRoot).catch(() => undefined) : undefined;
      for (const e of repo.entries) {
        if (busy(e)) keeping++;
        else if (expired(e)) out.set(e.path, { entry: e, why: 'unused for over a week' });
        else if (shape && e.shape !== shape) out.set(e.path, { entry: e, why: "the repository's checkout settings changed since it was checked out" });
        else if (keeping < repo.size) keeping++;
        else out.set(e.path, { entry: e, why: `the pool of this repository keeps ${repo.size}` });
      }
    }
    const budget = this.ctx.pool.sizing().budgetBytes;
    const kept = [...repos.values()].flatMap((r) => r.entries).filter((e) => !out.has(e.path)).sort((a, b) => a.pooledAt - b.pooledAt);
    let total = this.ctx.pool.diskOf(kept);
    for (const e of kept) {
      if (total <= budget) break;
      if (busy(e)) continue;
      out.set(e.path, { entry: e, why: 'the pool is over its disk budget (worktrees.poolDiskBudgetMB)' });
      total -= this.ctx.pool.diskOf([e]);
    }
    let evicted = 0;
    for (const { entry, why } of out.values()) {
      const gone = await withRepoLock(entry.commonDir, async () => {
        const now = await this.ctx.pool.get(entry.path);
        if (!now || busy(now)) return false;
        await this.ctx.pool.remove(now);
        await this.ctx.pool.evict(now, this.#cwd(now), why);
        return true;
      }).catch(() => false);
      if (gone) evicted++;
    }
    return evicted;
  }
}
