import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { WorktreeInfo } from '../../protocol/runEvents';
import { applyChanges, type ApplyOutcome } from './apply';
import { commitWork, currentTree } from './changes';
import { IsolationError } from './errors';
import { describeError as reason, git } from './git';
import { currentOwner, liveInstances, ownerAlive } from '../processOwner';
import { KeyedMutex } from '../mutex';
import { backupRef, branchName, isInside, repoFolderName, worktreeName } from './names';
import { recoverLeftovers, type RecoverReport } from './recover';
import { changedFiles, fileAt } from './review';
import { appliedCheck, commitReviewEdits, discardFiles, reviewOf, type DiscardFilesOutcome, type ReviewContext, type WorktreeReview } from './reviewActions';
import { checkoutConfig, commitConfig, diffStats, locateRepo, readHead } from './repo';
import { commitTree, snapshotTree } from './snapshot';
import { StateStore, type WorktreeRecord } from './stateStore';
import { backupRefsOf, branchTip, checkoutWorktree, createBranch, deleteBranch, deleteRef, pruneWorktrees, registerWorktree, removeWorktree } from './worktrees';

export type { WorktreeRecord, WorktreeState } from './stateStore';
export type { ApplyOutcome, ApplyConflict } from './apply';
export type { RecoverReport } from './recover';
export type { ChangedFile, FileChangeKind } from './review';
export type { DiscardFilesOutcome, ReviewedFile, WorktreeReview } from './reviewActions';

export type IsolationLogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface WorktreeManagerOptions {
  /** Folder for the per-agent state records (e.g. the extension's global storage + `/worktrees`). */
  stateDir: string;
  /** Folder the worktrees go in; must lie outside every repository it serves. */
  worktreesRoot: string;
  log?: (level: IsolationLogLevel, message: string) => void;
}

/** One lock per repository, shared by every manager in this process. */
const repoLocks = new KeyedMutex();

/**
 * Gives agents their own git worktree (S5): created from what the user sees,
 * kept only when the agent changed something, reviewable, appliable and
 * discardable, and recoverable after a crash. See the module files for the
 * pieces: snapshot.ts (what "what the user sees" is), apply.ts (the merge
 * back), recover.ts (leftovers), stateStore.ts (crash-safe records).
 */
export class WorktreeManager {
  private readonly store: StateStore;
  private readonly records = new Map<string, WorktreeRecord>();
  private readonly instance = randomUUID();
  readonly worktreesRoot: string;

  constructor(private readonly opts: WorktreeManagerOptions) {
    this.store = new StateStore(path.resolve(opts.stateDir));
    this.worktreesRoot = path.resolve(opts.worktreesRoot);
    liveInstances.add(this.instance);
  }

  /** Forget this manager as a live owner (its active worktrees become leftovers for recover()). */
  dispose(): void {
    liveInstances.delete(this.instance);
  }

  /**
   * A worktree on a new branch `subagents/<agent>-<id>`, starting from HEAD plus
   * the user's uncommitted changes. `cwd` of the result is the subfolder
   * matching the one the agent was started in.
   */
  async create(opts: { cwd: string; agentName: string; agentId: string }): Promise<WorktreeRecord> {
    const { agentName, agentId } = opts;
    const existing = this.get(agentId);
    if (existing && existing.state !== 'discarded') {
      throw new IsolationError('invalid-state', `Agent ${agentId} already has an isolated worktree (${existing.state}) at ${existing.path}.`);
    }
    const repo = await locateRepo(path.resolve(opts.cwd));
    if (isInside(this.worktreesRoot, repo.toplevel)) {
      throw new IsolationError(
        'bad-directory',
        `The worktrees folder ${this.worktreesRoot} is inside the repository ${repo.toplevel}; agents' worktrees would show up in it. Choose a folder outside the repository.`,
      );
    }
    const head = await readHead(repo.toplevel);
    const config = await commitConfig(repo.commonDir, repo.toplevel);
    const snap = await snapshotTree(repo.toplevel, repo.indexFile);
    for (const w of snap.warnings) this.log('warn', `Snapshot for ${agentName} left a file out: ${w}`);
    const baseCommit =
      snap.tree === head.tree
        ? head.commit
        : await commitTree(repo.toplevel, snap.tree, head.commit, `subagents: your uncommitted changes, as ${agentName} started`, config);

    const repoDir = path.join(this.worktreesRoot, repoFolderName(repo.commonDir));
    const now = Date.now();
    let saved: WorktreeRecord | undefined;
    const record = await repoLocks.run(repo.commonDir, async () => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const name = worktreeName(agentName, agentId, attempt);
        const wtPath = path.join(repoDir, name);
        if (existsSync(wtPath)) continue;
        const rec: WorktreeRecord = {
          kind: 'subagents-worktree',
          version: 1,
          agentId,
          agentName,
          repoRoot: repo.toplevel,
          commonDir: repo.commonDir,
          path: wtPath,
          cwd: repo.prefix ? path.join(wtPath, ...repo.prefix.split('/')) : wtPath,
          branch: branchName(name),
          baseCommit,
          userHead: head.commit,
          headCommit: baseCommit,
          createdAt: now,
          updatedAt: now,
          state: 'creating',
          owner: currentOwner(this.instance),
        };
        // Written before anything exists in git, so a crash from here on leaves a trace recover() follows.
        await this.save(rec);
        saved = rec;
        const reason = `subagents: worktree for ${agentName} (${agentId}) from ${baseCommit}`;
        if (!(await createBranch(repo.toplevel, rec.branch, baseCommit, reason))) continue;
        await registerWorktree(repo.toplevel, wtPath, rec.branch);
        return rec;
      }
      throw new IsolationError('git-failed', `Could not find a free branch name for ${agentName}: subagents/${worktreeName(agentName, agentId)} and 99 more are taken.`);
    }).catch(async (e: unknown) => {
      const half = saved;
      if (half) await repoLocks.run(repo.commonDir, () => this.undoCreate(half));
      throw this.createFailed(agentName, e);
    });

    try {
      await checkoutWorktree(record.path, await checkoutConfig(repo.commonDir, repo.toplevel));
      await mkdir(record.cwd, { recursive: true });
    } catch (e) {
      await repoLocks.run(repo.commonDir, () => this.undoCreate(record));
      throw this.createFailed(agentName, e);
    }
    await this.update(record, { state: 'active' });
    this.log('info', `Created worktree ${record.path} on ${record.branch} from ${baseCommit === head.commit ? 'HEAD' : 'HEAD + uncommitted changes'}.`);
    return { ...record };
  }

  /**
   * Ends the agent's work: nothing changed → worktree and branch removed,
   * `null`; otherwise everything is committed on the branch and kept.
   */
  async finish(agentId: string, opts: { commitMessage?: string } = {}): Promise<WorktreeInfo | null> {
    const rec = this.require(agentId);
    if (rec.state === 'finished' && rec.info) return { ...rec.info };
    if (rec.state === 'discarded') return null;
    if (rec.state !== 'active' && rec.state !== 'finished') {
      throw new IsolationError('invalid-state', `Cannot finish ${rec.agentName}'s worktree: it is ${rec.state}.`);
    }
    const info = await this.settle(rec, opts.commitMessage ?? `subagents: ${rec.agentName} changes`);
    return info ? { ...info } : null;
  }

  /** Unified diff of the agent's changes: base..branch, or base..working files while it still runs. */
  async diff(agentId: string): Promise<string> {
    const rec = this.require(agentId);
    if (rec.state === 'discarded') throw new IsolationError('invalid-state', `${rec.agentName}'s worktree was discarded; there is nothing to show.`);
    const active = rec.state === 'active' || rec.state === 'creating';
    const cwd = active ? rec.path : rec.repoRoot;
    const to = active ? await currentTree(rec.path) : ((await branchTip(cwd, rec.branch)) ?? rec.headCommit);
    return (await git(['diff', '--no-color', '--no-ext-diff', rec.baseCommit, to], { cwd })).stdout;
  }

  /**
   * Three-way merges the agent's changes into the user's current working tree
   * (see apply.ts for what happens with conflicts). Never commits, never
   * touches the index. With `paths`, only those files (a per-file apply from
   * a review); the others wait on the branch. Edits the user made in the
   * agent's worktree while reviewing are committed first and applied with
   * the rest. Once every file is applied the worktree folder is removed; the
   * branch stays until discard().
   */
  async apply(agentId: string, opts: { paths?: readonly string[] } = {}): Promise<ApplyOutcome> {
    const rec = this.require(agentId);
    if (rec.state === 'active' || rec.state === 'creating') {
      throw new IsolationError('invalid-state', `${rec.agentName} is still working in its worktree; finish it before applying its changes.`);
    }
    if (rec.state === 'discarded') throw new IsolationError('invalid-state', `${rec.agentName}'s changes were discarded; there is nothing to apply.`);
    const repo = await locateRepo(rec.repoRoot);
    await commitReviewEdits(this.reviewContext(rec));
    const theirs = (await branchTip(rec.repoRoot, rec.branch)) ? rec.branch : rec.headCommit;
    const config = await commitConfig(repo.commonDir, repo.toplevel);
    const name = path.basename(rec.path);
    const earlier = rec.backupRef;
    const isApplied = appliedCheck(rec);
    // A whole apply after some files went one by one brings the others.
    const paths = opts.paths ?? (rec.appliedPaths?.length && rec.state !== 'applied' ? (await changedFiles(rec.repoRoot, rec.baseCommit, theirs)).map((f) => f.path).filter((p) => !isApplied(p)) : undefined);
    const outcome = await repoLocks.run(repo.commonDir, async () =>
      applyChanges({
        repoRoot: repo.toplevel,
        indexFile: repo.indexFile,
        base: rec.baseCommit,
        theirs,
        backupRef: backupRef(name, await backupRefsOf(repo.toplevel, name)),
        commitConfig: config,
        paths,
        alreadyApplied: (written) => {
          const again = written.filter(isApplied);
          if (again.length === 0) return null;
          return (
            `${rec.agentName}'s changes were applied already; applying them again would merge them a second time (nesting conflict markers) in ${again.join(', ')}. ` +
            `Resolve what the first apply left there${earlier ? `, or restore a file with \`git restore --source=${earlier} -- <file>\`` : ''}; a follow-up to the agent makes new changes you can apply.`
          );
        },
      }),
    );
    const appliedPaths = [...new Set([...(rec.appliedPaths ?? []), ...outcome.updated])].sort();
    const everything = opts.paths === undefined
      ? outcome.applied || outcome.conflicts.length === 0
      : (await changedFiles(rec.repoRoot, rec.baseCommit, theirs)).every((f) => appliedPaths.includes(f.path));
    if (everything) {
      await this.update(rec, { state: 'applied', backupRef: outcome.backupRef ?? rec.backupRef, appliedPaths });
      await this.removeQuietly(rec, { keepBranch: true });
    } else if (outcome.applied) {
      await this.update(rec, { backupRef: outcome.backupRef ?? rec.backupRef, appliedPaths });
    }
    this.log('info', outcome.message);
    return outcome;
  }

  /** The agent's changed files for a review, each marked once applied (see reviewActions.ts). */
  async review(agentId: string): Promise<WorktreeReview> {
    return reviewOf(this.reviewContext(this.require(agentId)));
  }

  /** Takes the agent's changes to `paths` back off its branch; the whole worktree goes once nothing is left. */
  async discardFiles(agentId: string, paths: readonly string[]): Promise<DiscardFilesOutcome> {
    const outcome = await discardFiles(this.reviewContext(this.require(agentId)), paths);
    this.log('info', outcome.message);
    return outcome;
  }

  /** A file's text at a commit of the agent's repository (a review's either side), or null when it has no such file. */
  async fileAt(agentId: string, commit: string, file: string): Promise<string | null> {
    return fileAt(this.require(agentId).repoRoot, commit, file);
  }

  private reviewContext(rec: WorktreeRecord): ReviewContext {
    return {
      rec,
      lock: (fn) => repoLocks.run(rec.commonDir, fn),
      update: (patch) => this.update(rec, patch),
      retire: async () => {
        await this.update(rec, { state: 'applied' });
        await this.removeQuietly(rec, { keepBranch: true });
      },
      discardAll: () => this.discard(rec.agentId),
    };
  }

  /**
   * Makes a finished (or applied) agent's worktree its working place again,
   * for a follow-up (S4.3). The folder is recreated from the branch if it was
   * removed. A later finish() commits on top and reports base..branch again.
   */
  async reopen(agentId: string): Promise<WorktreeRecord> {
    const rec = this.require(agentId);
    if (rec.state === 'active') return { ...rec };
    if (rec.state !== 'finished' && rec.state !== 'applied') {
      throw new IsolationError('invalid-state', `Cannot reopen ${rec.agentName}'s worktree: it is ${rec.state}.`);
    }
    if (!existsSync(rec.path)) {
      if (!(await branchTip(rec.repoRoot, rec.branch))) {
        throw new IsolationError('invalid-state', `Cannot reopen ${rec.agentName}'s worktree: its branch ${rec.branch} no longer exists.`);
      }
      try {
        await repoLocks.run(rec.commonDir, async () => {
          await pruneWorktrees(rec.repoRoot);
          await registerWorktree(rec.repoRoot, rec.path, rec.branch);
        });
        await checkoutWorktree(rec.path, await checkoutConfig(rec.commonDir, rec.repoRoot));
        await mkdir(rec.cwd, { recursive: true });
      } catch (e) {
        throw new IsolationError('git-failed', `Could not reopen ${rec.agentName}'s worktree: ${reason(e)}. Its work is still on ${rec.branch}.`, { cause: e });
      }
    }
    await this.update(rec, { state: 'active', info: undefined, owner: currentOwner(this.instance) });
    return { ...rec };
  }

  /** Removes the worktree, its branch and any apply backup, whatever they contain. */
  async discard(agentId: string): Promise<void> {
    const rec = this.require(agentId);
    if (rec.state === 'discarded') return;
    try {
      await repoLocks.run(rec.commonDir, async () => {
        await removeWorktree(rec.repoRoot, rec.path, this.worktreesRoot);
        if (await branchTip(rec.repoRoot, rec.branch)) await deleteBranch(rec.repoRoot, rec.branch);
        for (const ref of await backupRefsOf(rec.repoRoot, path.basename(rec.path))) await deleteRef(rec.repoRoot, ref);
      });
    } catch (e) {
      throw new IsolationError(
        'git-failed',
        `Could not discard ${rec.agentName}'s worktree: ${reason(e)}. Delete ${rec.path}, then run \`git worktree prune\` and \`git branch -D ${rec.branch}\` in ${rec.repoRoot}.`,
        { cause: e },
      );
    }
    await this.update(rec, { state: 'discarded' });
  }

  /**
   * Start-up clean-up: leftovers of processes that died are removed when
   * unchanged and kept (committed on their branch) when changed. Worktrees of
   * live processes are left alone.
   */
  async recover(): Promise<RecoverReport> {
    return recoverLeftovers({
      store: this.store,
      worktreesRoot: this.worktreesRoot,
      instance: this.instance,
      log: (level, msg) => this.log(level, msg),
      isOwnerAlive: (rec) => ownerAlive(rec.owner),
      lock: (commonDir, fn) => repoLocks.run(commonDir, fn),
      settle: (rec, message) => this.settle(rec, message),
      remember: (rec) => this.track(rec),
    });
  }

  /** Every recorded worktree, this process's and others', oldest first. */
  async list(): Promise<WorktreeRecord[]> {
    const { records } = await this.store.loadAll();
    for (const rec of records) this.track(rec);
    return [...this.records.values()].sort((a, b) => a.createdAt - b.createdAt).map((r) => ({ ...r }));
  }

  get(agentId: string): WorktreeRecord | undefined {
    const rec = this.records.get(agentId) ?? this.store.readSync(agentId);
    return rec ? { ...rec } : undefined;
  }

  // ── internals ──

  private require(agentId: string): WorktreeRecord {
    const rec = this.records.get(agentId) ?? this.store.readSync(agentId);
    if (!rec) throw new IsolationError('unknown-agent', `No isolated worktree is recorded for agent ${agentId}.`);
    return this.track(rec);
  }

  /**
   * The one in-memory object per agent. Operations in flight hold on to it,
   * so a newer copy read from disk is merged into it rather than replacing it.
   */
  private track(rec: WorktreeRecord): WorktreeRecord {
    const mine = this.records.get(rec.agentId);
    if (!mine) {
      this.records.set(rec.agentId, rec);
      return rec;
    }
    if (mine !== rec && rec.updatedAt > mine.updatedAt) {
      for (const key of Object.keys(mine) as Array<keyof WorktreeRecord>) if (!(key in rec)) delete mine[key];
      Object.assign(mine, rec);
    }
    return mine;
  }

  /** Commits the agent's work if any (state finished) or removes the unchanged worktree (discarded). */
  private async settle(rec: WorktreeRecord, message: string): Promise<WorktreeInfo | null> {
    if (!existsSync(rec.path)) return this.settleFromBranch(rec);
    let work;
    try {
      work = await commitWork(rec.path, rec.baseCommit, message, await commitConfig(rec.commonDir, rec.repoRoot));
    } catch (e) {
      throw new IsolationError(
        'git-failed',
        `Could not record ${rec.agentName}'s changes: ${reason(e)}. The worktree ${rec.path} was kept with the agent's work in it.`,
        { cause: e },
      );
    }
    if (!work.changed) {
      if (await this.removeQuietly(rec, { expectedTip: rec.baseCommit })) await this.update(rec, { state: 'discarded', headCommit: work.head });
      else await this.update(rec, { state: 'finished', headCommit: work.head, info: undefined });
      return null;
    }
    for (const w of work.warnings) this.log('warn', `${rec.agentName}: ${w}`);
    await this.keepBranchOnWork(rec, work.head);
    const stats = await diffStats(rec.path, rec.baseCommit, work.head);
    const info: WorktreeInfo = { path: rec.path, branch: rec.branch, baseCommit: rec.baseCommit, ...stats };
    await this.update(rec, { state: 'finished', headCommit: work.head, info });
    return info;
  }

  /** The worktree folder was deleted by hand: only the branch can still hold work. */
  private async settleFromBranch(rec: WorktreeRecord): Promise<WorktreeInfo | null> {
    const tip = await branchTip(rec.repoRoot, rec.branch);
    await repoLocks.run(rec.commonDir, async () => {
      await pruneWorktrees(rec.repoRoot);
      if (tip === rec.baseCommit) await deleteBranch(rec.repoRoot, rec.branch, tip);
    });
    if (!tip || tip === rec.baseCommit) {
      await this.update(rec, { state: 'discarded' });
      return null;
    }
    const info: WorktreeInfo = { path: rec.path, branch: rec.branch, baseCommit: rec.baseCommit, ...(await diffStats(rec.repoRoot, rec.baseCommit, tip)) };
    await this.update(rec, { state: 'finished', headCommit: tip, info });
    return info;
  }

  /**
   * An agent may switch branches or detach HEAD in its worktree; its work is
   * what HEAD points at, so the subagents branch (what apply, diff and the
   * user see) is moved there.
   */
  private async keepBranchOnWork(rec: WorktreeRecord, head: string): Promise<void> {
    const tip = await branchTip(rec.path, rec.branch);
    if (tip === head) return;
    this.log('warn', `${rec.agentName} left its branch ${rec.branch}; the branch now points at its last commit ${head.slice(0, 12)}.`);
    await git(['update-ref', '-m', "subagents: follow the agent's work", `refs/heads/${rec.branch}`, head, ...(tip ? [tip] : [])], {
      cwd: rec.path,
      retryOnLock: true,
    });
  }

  /** Removes worktree (and branch unless kept); false (and a log line) when that failed. */
  private async removeQuietly(rec: WorktreeRecord, opts: { keepBranch?: boolean; expectedTip?: string }): Promise<boolean> {
    try {
      await removeWorktree(rec.repoRoot, rec.path, this.worktreesRoot);
      if (!opts.keepBranch) await repoLocks.run(rec.commonDir, () => deleteBranch(rec.repoRoot, rec.branch, opts.expectedTip));
      return true;
    } catch (e) {
      this.log('warn', `Could not remove ${rec.path} (${rec.branch}): ${reason(e)}. The next start-up clean-up will retry.`);
      return false;
    }
  }

  /** Rolls back a half-made create; on failure the 'creating' record stays for recover(). */
  private async undoCreate(rec: WorktreeRecord): Promise<void> {
    try {
      await removeWorktree(rec.repoRoot, rec.path, this.worktreesRoot);
      if (await branchTip(rec.repoRoot, rec.branch)) await deleteBranch(rec.repoRoot, rec.branch, rec.baseCommit);
      await this.update(rec, { state: 'discarded' });
    } catch (e) {
      this.log('warn', `Could not clean up the failed worktree ${rec.path}: ${reason(e)}`);
    }
  }

  private createFailed(agentName: string, e: unknown): IsolationError {
    if (e instanceof IsolationError) return e;
    return new IsolationError(
      'git-failed',
      `Could not create an isolated worktree for ${agentName}: ${reason(e)}. Your working tree was not changed.`,
      { cause: e },
    );
  }

  private async update(rec: WorktreeRecord, patch: Partial<WorktreeRecord>): Promise<void> {
    Object.assign(rec, patch, { updatedAt: Date.now() });
    if (patch.info === undefined && 'info' in patch) delete rec.info;
    await this.save(rec);
  }

  private async save(rec: WorktreeRecord): Promise<void> {
    this.records.set(rec.agentId, rec);
    await this.store.save(rec);
  }

  private log(level: IsolationLogLevel, message: string): void {
    this.opts.log?.(level, message);
  }
}
