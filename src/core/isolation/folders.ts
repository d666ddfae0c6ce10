import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { IsolationError } from './errors';
import { describeError as reason } from './git';
import { copyIncluded } from './include';
import { ownerAlive } from '../processOwner';
import { BRANCH_PREFIX, repoFolderName } from './names';
import { repoShape, type PooledWorktree } from './pool';
import type { PoolKeeper } from './poolKeeper';
import { moveCheckout } from './move';
import { adminDirOf, attachBranch, checkedOutBranch, detachHead, poolable, scrub } from './recycle';
import { withRepoLock } from './repoLock';
import { checkoutConfig, type RepoLocation } from './repo';
import type { StateStore, WorktreeRecord } from './stateStore';
import { branchTip, checkoutWorktree, deleteBranch, registerWorktree, removeWorktree } from './worktrees';

/**
 * Where an agent's worktree folder comes from and where it goes: taken from
 * the pool or checked out afresh (place), handed back cleaned or removed
 * when the agent is done with it (release). Folders are reused, so none is
 * cleaned, committed in or deleted unless it is still the record's (owns).
 * The records themselves stay the manager's: it passes in how to save them.
 */

export interface FolderContext {
  worktreesRoot: string;
  /** The manager's owner instance (records and release claims name it). */
  instance: string;
  pool: PoolKeeper;
  store: StateStore;
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  save: (rec: WorktreeRecord) => Promise<void>;
  update: (rec: WorktreeRecord, patch: Partial<WorktreeRecord>) => Promise<void>;
  /** Merges a copy read from disk into the one in-memory record. */
  track: (rec: WorktreeRecord) => WorktreeRecord;
}

export class WorktreeFolders {
  constructor(private readonly ctx: FolderContext) {}

  /**
   * Gives a record its folder at `commit` on the first branch `branches`
   * can create (a reopen's existing branch): a pooled worktree moved there, or
   * a new one checked out. The record is saved (`creating`, or its current
   * state for a reopen) before anything changes in git, so a crash leaves a
   * trace recover() follows; the slow part, the checkout, runs outside the
   * repository lock.
   */
  async place(
    repo: RepoLocation,
    draft: (wtPath: string, branch: string) => WorktreeRecord,
    branches: { name: (attempt: number) => string; create: (branch: string) => Promise<boolean>; exhausted: string },
    commit: string,
    agentName: string,
  ): Promise<WorktreeRecord & { prepared: 'new' | 'reused' }> {
    const shape = this.ctx.pool.sizing().size > 0 ? await repoShape(repo.commonDir, repo.toplevel) : null;
    let saved: WorktreeRecord | undefined;
    // Whether the branch of `saved` is this attempt's own: a name found taken is someone else's, never cleaned up.
    let branchMade = false;
    let pooled: PooledWorktree | undefined;
    const rec = await withRepoLock(repo.commonDir, async () => {
      pooled = shape ? await this.ctx.pool.take(repo.commonDir, repo.toplevel, shape) : undefined;
      const wtPath = pooled?.path ?? this.freshPath(repo.commonDir);
      for (let attempt = 0; attempt < 100; attempt++) {
        const branch = branches.name(attempt);
        const r = draft(wtPath, branch);
        await this.ctx.save(r);
        saved = r;
        // A clean pooled worktree's HEAD goes to the branch while the branch is made: two git processes side by side,
        // not one after the other, on the way to the agent's first request. A name that turns out taken leaves HEAD
        // on it only until the next name's attempt moves it (and a failure removes the folder).
        // One still to be cleaned stays detached at its commit until it is (below), so the cleaning restores that commit.
        const attaching = pooled && pooled.ready !== false ? attachBranch(wtPath, branch, `subagents: worktree for ${agentName}`) : undefined;
        // Both settle before a failure is acted on: the clean-up must not race a git process still running here.
        const [created, attached] = await Promise.allSettled([branches.create(branch), attaching]);
        if (created.status === 'rejected') throw created.reason;
        branchMade = created.value;
        if (attached.status === 'rejected') throw attached.reason;
        if (!created.value) continue;
        if (!pooled) await registerWorktree(repo.toplevel, wtPath, branch);
        return r;
      }
      throw new IsolationError('git-failed', `Could not find a free branch name for ${agentName}: ${branches.exhausted}.`);
    }).catch(async (e: unknown) => {
      if (saved) await this.undoCreate(saved, Boolean(pooled), branchMade);
      else if (pooled) await withRepoLock(repo.commonDir, () => removeWorktree(repo.toplevel, pooled!.path, this.ctx.worktreesRoot)).catch(() => undefined);
      throw createFailed(agentName, e);
    });
    try {
      const config = await checkoutConfig(repo.commonDir, repo.toplevel);
      // Handed back and not cleaned yet (the upkeep had no time for it): cleaned here, still far cheaper than a checkout.
      if (pooled?.ready === false) await scrub(rec.path);
      if (pooled) await moveCheckout(rec.path, pooled.head, commit, config);
      else await checkoutWorktree(rec.path, config);
      if (pooled?.ready === false) await attachBranch(rec.path, rec.branch, `subagents: worktree for ${agentName}`);
      await mkdir(rec.cwd, { recursive: true });
    } catch (e) {
      await this.undoCreate(rec, true);
      throw createFailed(agentName, e);
    }
    return Object.assign(rec, { prepared: pooled ? ('reused' as const) : ('new' as const) });
  }

  /** A new folder for a worktree: named for nothing in particular, since another agent may get it from the pool later. */
  private freshPath(commonDir: string): string {
    const dir = path.join(this.ctx.worktreesRoot, repoFolderName(commonDir));
    for (;;) {
      const p = path.join(dir, `wt-${randomBytes(4).toString('hex')}`);
      if (!existsSync(p)) return p;
    }
  }

  /** Copies `.worktreeinclude` files in; a problem is logged, never fatal (the agent can still work). */
  async include(repo: RepoLocation, rec: WorktreeRecord): Promise<string[]> {
    try {
      const result = await copyIncluded(repo.toplevel, rec.path);
      if (result.copied.length) this.ctx.log('info', `Copied ${result.copied.length} file(s) from .worktreeinclude into ${rec.path}: ${result.copied.join(', ')}.`);
      for (const s of result.skipped) this.ctx.log('warn', `.worktreeinclude: did not copy ${s} into ${rec.agentName}'s worktree.`);
      return result.copied;
    } catch (e) {
      this.ctx.log('warn', `Could not copy the .worktreeinclude files into ${rec.agentName}'s worktree: ${reason(e)}`);
      return [];
    }
  }

  /**
   * Whether the folder at rec.path is still this agent's: it exists, the pool
   * does not hold it, and it has no other agent's branch checked out (the
   * agent's own, or whatever the agent switched to). Folders are reused, so
   * nothing deletes, cleans or commits in a record's folder without asking.
   */
  async owns(rec: WorktreeRecord): Promise<boolean> {
    if (!existsSync(rec.path) || (await this.ctx.pool.paths()).has(rec.path)) return false;
    const branch = await checkedOutBranch(rec.path);
    return branch === rec.branch || !branch?.startsWith(BRANCH_PREFIX);
  }

  /**
   * The agent is done with its folder: handed to the pool when the pool has
   * room and the worktree holds nothing git's own state would carry over,
   * removed (moved to the trash) otherwise. The branch is deleted unless
   * `keepBranch` (with `expectedTip`, only while it still points there).
   * All of it happens in one short hold of the repository lock, a few git
   * commands and file writes whatever the repository's size, so a discard
   * answers at once: the pooled folder goes in "not ready" and is cleaned
   * (every untracked and ignored file deleted, tracked files restored) by
   * the upkeep in the background, or by the next agent that takes it if
   * that comes first. `then` is saved on the record before the folder joins
   * the pool, so no record that looks alive ever names a pooled folder. A
   * folder that is no longer the agent's (pooled, or given to another agent
   * after an apply) is left alone, as is one another process is releasing
   * right now. False (and a log line) when that failed, unless `strict`.
   */
  async release(
    rec: WorktreeRecord,
    opts: { keepBranch?: boolean; expectedTip?: string; strict?: boolean; underLock?: () => Promise<void>; then?: Partial<WorktreeRecord> },
  ): Promise<boolean> {
    try {
      await withRepoLock(rec.commonDir, async () => {
        const onDisk = this.ctx.store.readSync(rec.agentId);
        if (onDisk) this.ctx.track(onDisk);
        // A process of an earlier version cleaning it outside the lock.
        if (rec.releasing && rec.releasing.instance !== this.ctx.instance && ownerAlive(rec.releasing)) return;
        const ours = await this.owns(rec);
        const admin = ours ? await adminDirOf(rec.path) : undefined;
        const pooled = Boolean(admin) && (await poolable(admin!)) && (await this.ctx.pool.hasRoom(rec.commonDir, rec.repoRoot));
        const head = pooled ? ((await branchTip(rec.path, rec.branch)) ?? rec.headCommit) : '';
        if (pooled) await detachHead(rec.path, head);
        else if (ours) await removeWorktree(rec.repoRoot, rec.path, this.ctx.worktreesRoot);
        if (!opts.keepBranch && (await branchTip(rec.repoRoot, rec.branch))) await deleteBranch(rec.repoRoot, rec.branch, opts.expectedTip);
        await opts.underLock?.();
        await this.ctx.update(rec, { ...opts.then, releasing: undefined });
        if (!pooled) return;
        const now = Date.now();
        await this.ctx.pool.add({
          kind: 'subagents-pooled-worktree',
          version: 1,
          path: rec.path,
          commonDir: rec.commonDir,
          repoRoot: rec.repoRoot,
          head,
          shape: await repoShape(rec.commonDir, rec.repoRoot),
          createdAt: rec.createdAt,
          pooledAt: now,
          ready: false,
        });
      });
      return true;
    } catch (e) {
      if (opts.strict) throw e;
      this.ctx.log('warn', `Could not remove ${rec.path} (${rec.branch}): ${reason(e)}. The next start-up clean-up will retry.`);
      return false;
    }
  }

  /** Rolls back a half-made worktree (and its branch when `branchIsOurs`); on failure the record stays for recover(). */
  private async undoCreate(rec: WorktreeRecord, folderIsOurs: boolean, branchIsOurs = true): Promise<void> {
    try {
      await withRepoLock(rec.commonDir, async () => {
        if (folderIsOurs || (await this.owns(rec))) await removeWorktree(rec.repoRoot, rec.path, this.ctx.worktreesRoot);
        if (branchIsOurs && rec.state === 'creating' && (await branchTip(rec.repoRoot, rec.branch))) await deleteBranch(rec.repoRoot, rec.branch, rec.baseCommit);
      });
      if (rec.state === 'creating') await this.ctx.update(rec, { state: 'discarded' });
    } catch (e) {
      this.ctx.log('warn', `Could not clean up the failed worktree ${rec.path}: ${reason(e)}`);
    }
  }
}

export function createFailed(agentName: string, e: unknown): IsolationError {
  if (e instanceof IsolationError) return e;
  return new IsolationError(
    'git-failed',
    `Could not create an isolated worktree for ${agentName}: ${reason(e)}. Your working tree was not changed.`,
    { cause: e },
  );
}
