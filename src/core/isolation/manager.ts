import { randomUUID } from 'node:crypto';
import { mkdirSync, watch, type FSWatcher } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { WorktreeInfo } from '../../protocol/runEvents';
import { applyChanges, type ApplyOutcome } from './apply';
import { resolveBase } from './base';
import { commitWork, currentTree } from './changes';
import { IsolationError } from './errors';
import { WorktreeFolders } from './folders';
import { describeError as reason, git } from './git';
import { currentOwner, liveInstances, ownerAlive } from '../processOwner';
import { backupRef, BRANCH_PREFIX, branchName, isInside, worktreeName } from './names';
import { PoolStore } from './pool';
import { checkoutDiskBytes } from './diskUse';
import { FanoutStore } from './fanout';
import { FileLock } from '../fileLock';
import { PoolKeeper, type PoolSizing, type PoolStatus } from './poolKeeper';
import { PoolUpkeep, type UpkeepOptions, type UpkeepReport } from './upkeep';
import { attachBranch } from './recycle';
import { recoverLeftovers, type RecoverReport } from './recover';
import { withRepoLock } from './repoLock';
import { commitConfig, diffStats, locateRepo, type RepoLocation } from './repo';
import { changedFiles, fileAt } from './review';
import { appliedCheck, commitReviewEdits, discardFiles, reviewOf, type DiscardFilesOutcome, type ReviewContext, type WorktreeReview } from './reviewActions';
import { StateStore, type WorktreeRecord } from './stateStore';
import { backupRefsOf, branchTip, createBranch, deleteBranch, deleteRef, pruneWorktrees, TRASH_FOLDER } from './worktrees';

export type { WorktreeRecord, WorktreeState } from './stateStore';
export type { ApplyOutcome, ApplyConflict } from './apply';
export type { RecoverReport } from './recover';
export type { PoolSizing, PoolStatus } from './poolKeeper';
export type { UpkeepReport } from './upkeep';
export type { ChangedFile, FileChangeKind } from './review';
export type { DiscardFilesOutcome, ReviewedFile, WorktreeReview } from './reviewActions';

export type IsolationLogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface WorktreeManagerOptions {
  /** Folder for the per-agent state records (e.g. the extension's global storage + `/worktrees`). */
  stateDir: string;
  /** Folder the worktrees go in; must lie outside every repository it serves. */
  worktreesRoot: string;
  log?: (level: IsolationLogLevel, message: string) => void;
  /**
   * How many finished worktrees each repository keeps for reuse, read each
   * time one finishes (`subagents.worktrees.poolSize`). 0 or absent: none,
   * a finished worktree is deleted.
   */
  poolSize?: () => number;
  /** The pool of a repository grows to the widest fan-out run there (the setting's automatic size). Default: it does not. */
  poolGrows?: () => boolean;
  /** The most disk all pooled worktrees together may take, in bytes (`subagents.worktrees.poolDiskBudgetMB`). Default: no bound. */
  poolBudgetBytes?: () => number;
}

/** A worktree made ready for an agent: `prepared` says whether its folder is new to it (a setup command runs then). */
export type PreparedWorktree = WorktreeRecord & {
  /** `new`: checked out afresh; `reused`: taken from the pool; `existing`: the agent's own folder, as it left it. */
  prepared: 'new' | 'reused' | 'existing';
  /** Files copied in from `.worktreeinclude`. */
  included: string[];
};

export interface CreateOptions {
  cwd: string;
  agentName: string;
  agentId: string;
  /** Where the agent starts: `HEAD` (default: with the user's uncommitted changes) or a branch, tag or commit. */
  baseRef?: string | null;
  /**
   * The run tree the agent belongs to: the most worktrees one tree makes in
   * a repository is its fan-out width, which sizes the pool there. Without
   * it, the worktrees in use at once count.
   */
  group?: string;
}

/**
 * Gives agents their own git worktree: created from what the user sees,
 * kept only when the agent changed something, reviewable, appliable and
 * discardable, and recoverable after a crash. Worktrees that are done with
 * go back to a bounded pool per repository and are reused. See the module
 * files for the pieces: base.ts (where an agent starts), snapshot.ts (what
 * "what the user sees" is), pool*.ts and recycle.ts (reuse), include.ts
 * (`.worktreeinclude`), apply.ts (the merge back), recover.ts (leftovers),
 * stateStore.ts (crash-safe records), repoLock.ts (cross-process lock).
 */
export class WorktreeManager {
  private readonly store: StateStore;
  private readonly pool: PoolKeeper;
  private readonly folders: WorktreeFolders;
  private readonly upkeep: PoolUpkeep;
  private readonly upkeepLock: FileLock;
  private readonly records = new Map<string, WorktreeRecord>();
  private readonly instance = randomUUID();
  /** Worktrees each run tree has in each repository (its fan-out so far): `<group>\0<commonDir>` → agent ids. */
  private readonly fanouts = new Map<string, Set<string>>();
  private readonly changeListeners = new Set<() => void>();
  readonly worktreesRoot: string;

  constructor(private readonly opts: WorktreeManagerOptions) {
    this.store = new StateStore(path.resolve(opts.stateDir));
    this.worktreesRoot = path.resolve(opts.worktreesRoot);
    const sizing = (): PoolSizing => ({
      size: Math.max(0, Math.floor(this.opts.poolSize?.() ?? 0)),
      grows: this.opts.poolGrows?.() ?? false,
      budgetBytes: this.opts.poolBudgetBytes?.() ?? Number.POSITIVE_INFINITY,
    });
    const log = (level: IsolationLogLevel, message: string) => this.log(level, message);
    this.pool = new PoolKeeper(new PoolStore(path.join(this.store.dir, 'pool')), new FanoutStore(path.join(this.store.dir, 'fanout')), this.worktreesRoot, sizing, log);
    this.upkeep = new PoolUpkeep({ pool: this.pool, records: this.store, worktreesRoot: this.worktreesRoot, instance: this.instance, log });
    this.upkeepLock = new FileLock(path.join(this.store.dir, 'upkeep.lock'), 'The worktree pool upkeep');
    this.folders = new WorktreeFolders({
      worktreesRoot: this.worktreesRoot,
      instance: this.instance,
      pool: this.pool,
      store: this.store,
      log: (level, message) => this.log(level, message),
      save: (rec) => this.save(rec),
      update: (rec, patch) => this.update(rec, patch),
      track: (rec) => this.track(rec),
    });
    liveInstances.add(this.instance);
  }

  /** Forget this manager as a live owner (its active worktrees become leftovers for recover()). */
  dispose(): void {
    liveInstances.delete(this.instance);
  }

  /**
   * A worktree on a new branch `subagents/<agent>-<id>`, at the base
   * `baseRef` names (default: HEAD plus the user's uncommitted changes),
   * taken from the pool when it has one. `cwd` of the result is the subfolder
   * matching the one the agent was started in.
   */
  async create(opts: CreateOptions): Promise<PreparedWorktree> {
    const { agentName, agentId } = opts;
    const existing = this.get(agentId);
    if (existing && existing.state !== 'discarded') {
      throw new IsolationError('invalid-state', `Agent ${agentId} already has an isolated worktree (${existing.state}) at ${existing.path}.`);
    }
    const repo = await this.repoOf(opts.cwd);
    const base = await resolveBase(repo, opts.baseRef, agentName);
    for (const w of base.warnings) this.log('warn', `Snapshot for ${agentName} left a file out: ${w}`);
    const now = Date.now();
    const draft = (wtPath: string, branch: string): WorktreeRecord => ({
      kind: 'subagents-worktree',
      version: 1,
      agentId,
      agentName,
      repoRoot: repo.toplevel,
      commonDir: repo.commonDir,
      path: wtPath,
      cwd: repo.prefix ? path.join(wtPath, ...repo.prefix.split('/')) : wtPath,
      branch,
      baseCommit: base.commit,
      userHead: base.userHead,
      headCommit: base.commit,
      createdAt: now,
      updatedAt: now,
      state: 'creating',
      owner: currentOwner(this.instance),
    });
    const reason = `subagents: worktree for ${agentName} (${agentId}) from ${base.commit}`;
    const branches = {
      name: (attempt: number) => branchName(worktreeName(agentName, agentId, attempt)),
      create: (branch: string) => createBranch(repo.toplevel, branch, base.commit, reason),
      exhausted: `subagents/${worktreeName(agentName, agentId)} and 99 more are taken`,
    };
    const rec = await this.folders.place(repo, draft, branches, base.commit, agentName);
    const included = await this.folders.include(repo, rec);
    await this.update(rec, { state: 'active' });
    await this.noteFanout(opts, repo);
    this.log('info', `${rec.prepared === 'reused' ? 'Reused' : 'Created'} worktree ${rec.path} on ${rec.branch} from ${base.label}.`);
    this.changed();
    return { ...rec, prepared: rec.prepared, included };
  }

  /** Remembers how wide the agent's run tree fans out in the repository (fanout.ts), which sizes the pool there. */
  private async noteFanout(opts: CreateOptions, repo: RepoLocation): Promise<void> {
    let width: number;
    if (opts.group) {
      const key = `${opts.group}\0${repo.commonDir}`;
      let agents = this.fanouts.get(key);
      if (!agents) this.fanouts.set(key, (agents = new Set()));
      agents.add(opts.agentId);
      width = agents.size;
    } else {
      width = [...this.records.values()].filter((r) => r.commonDir === repo.commonDir && (r.state === 'creating' || r.state === 'active')).length;
    }
    try {
      await this.pool.fanouts.note(repo.commonDir, repo.toplevel, width);
    } catch (e) {
      this.log('debug', `Could not note the fan-out in ${repo.toplevel}: ${reason(e)}`);
    }
  }

  /** Tells the listeners (the background upkeep) that the pool may have work. */
  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  /**
   * Called after anything that may give the pool's upkeep work (a worktree
   * taken, handed back or removed, the pool emptied, leftovers recovered);
   * returns a function that stops the calls.
   */
  onPoolChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /**
   * Calls `listener` when another process changes the pool: a worktree
   * handed back or taken, a wider fan-out noted, a folder put in the trash
   * (a window discarding while the agent host keeps the pool, a CLI run).
   * One watch per folder, no polling; returns a function that stops it.
   */
  watchPool(listener: () => void): () => void {
    const dirs = [path.join(this.store.dir, 'pool'), this.pool.fanouts.dir, this.worktreesRoot, path.join(this.worktreesRoot, TRASH_FOLDER)];
    const watchers: FSWatcher[] = [];
    for (const dir of dirs) {
      try {
        mkdirSync(dir, { recursive: true });
        const watcher = watch(dir, { persistent: false }, () => listener());
        // A folder removed under the watch (a user's clean-up) only ends its events.
        watcher.on('error', () => watcher.close());
        watchers.push(watcher);
      } catch (e) {
        this.log('debug', `Cannot watch ${dir} for other processes' pool changes: ${reason(e)}`);
      }
    }
    return () => watchers.forEach((w) => w.close());
  }

  /**
   * One pass of the pool's upkeep (upkeep.ts): clean handed-back worktrees,
   * evict what the pool should not keep, delete the trash, refill, move
   * pooled worktrees to the current commit. Null when another process's pass
   * is under way (`wait`: wait for it, then run one).
   */
  async maintain(opts: UpkeepOptions & { wait?: boolean } = {}): Promise<UpkeepReport | null> {
    await mkdir(this.store.dir, { recursive: true });
    for (let pause = 10; ; pause = Math.min(pause * 2, 500)) {
      const outcome = await this.upkeepLock.tryRun(() => this.upkeep.run(opts));
      if (outcome.ran) return outcome.value;
      if (!opts.wait) return null;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /** Whether the pool's upkeep has anything to do. */
  upkeepPending(): Promise<boolean> {
    return this.upkeep.pending();
  }

  /** How big pools may get, as the settings say now. */
  get poolSizing(): PoolSizing {
    return this.pool.sizing();
  }

  /**
   * Ends the agent's work: nothing changed → worktree back to the pool (or
   * removed) and branch deleted, `null`; otherwise everything is committed on
   * the branch and kept. `only`: the files the agent wrote, when the caller
   * knows nothing else can have changed (see commitWork).
   */
  async finish(agentId: string, opts: { commitMessage?: string; only?: readonly string[] } = {}): Promise<WorktreeInfo | null> {
    const rec = this.require(agentId);
    if (rec.state === 'finished' && rec.info) return { ...rec.info };
    if (rec.state === 'discarded') return null;
    if (rec.state !== 'active' && rec.state !== 'finished') {
      throw new IsolationError('invalid-state', `Cannot finish ${rec.agentName}'s worktree: it is ${rec.state}.`);
    }
    const info = await this.settle(rec, opts.commitMessage ?? `subagents: ${rec.agentName} changes`, opts.only);
    this.changed();
    return info ? { ...info } : null;
  }

  /**
   * Makes everything that happened in the worktree so far part of its base
   * (a setup command's output: installed packages a `.gitignore` does not
   * cover, generated files), so the agent's changes — what review, apply and
   * the kept branch show — start after it. `message` names the commit.
   */
  async rebase(agentId: string, message: string): Promise<void> {
    const rec = this.require(agentId);
    if (rec.state !== 'active') throw new IsolationError('invalid-state', `Cannot update ${rec.agentName}'s base: its worktree is ${rec.state}.`);
    const work = await commitWork(rec.path, rec.headCommit, message, await commitConfig(rec.commonDir, rec.repoRoot));
    if (work.changed) await this.update(rec, { baseCommit: work.head, headCommit: work.head });
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
   * the rest. Once every file is applied the worktree folder goes back to
   * the pool (or is removed); the branch stays until discard().
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
    const name = backupName(rec);
    const earlier = rec.backupRef;
    const isApplied = appliedCheck(rec);
    // A whole apply after some files went one by one brings the others.
    const paths = opts.paths ?? (rec.appliedPaths?.length && rec.state !== 'applied' ? (await changedFiles(rec.repoRoot, rec.baseCommit, theirs)).map((f) => f.path).filter((p) => !isApplied(p)) : undefined);
    const outcome = await withRepoLock(repo.commonDir, async () =>
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
      await this.folders.release(rec, { keepBranch: true });
      this.changed();
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

  /** The commit a ref of the agent's repository names (an apply's backup ref), or null when it names none. */
  async commitOf(agentId: string, ref: string): Promise<string | null> {
    const res = await git(['rev-parse', '--verify', '-q', `${ref}^{commit}`], { cwd: this.require(agentId).repoRoot, okCodes: [0, 1, 128] });
    return res.code === 0 ? res.stdout.trim() : null;
  }

  /** A file's text at a commit of the agent's repository (a review's either side), or null when it has no such file. */
  async fileAt(agentId: string, commit: string, file: string): Promise<string | null> {
    return fileAt(this.require(agentId).repoRoot, commit, file);
  }

  private reviewContext(rec: WorktreeRecord): ReviewContext {
    return {
      rec,
      lock: (fn) => withRepoLock(rec.commonDir, fn),
      update: (patch) => this.update(rec, patch),
      retire: async () => {
        await this.update(rec, { state: 'applied' });
        await this.folders.release(rec, { keepBranch: true });
      },
      discardAll: () => this.discard(rec.agentId),
    };
  }

  /**
   * Makes a finished (or applied) agent's worktree its working place again,
   * for a follow-up. When its folder was removed or handed to the pool,
   * the agent gets a worktree (from the pool, or new) on its branch again. A
   * later finish() commits on top and reports base..branch again.
   */
  async reopen(agentId: string): Promise<PreparedWorktree> {
    const rec = this.require(agentId);
    if (rec.state === 'active') return { ...rec, prepared: 'existing', included: [] };
    if (rec.state !== 'finished' && rec.state !== 'applied') {
      throw new IsolationError('invalid-state', `Cannot reopen ${rec.agentName}'s worktree: it is ${rec.state}.`);
    }
    let prepared: PreparedWorktree['prepared'] = 'existing';
    let included: string[] = [];
    if (!(await this.folders.owns(rec))) {
      const tip = await branchTip(rec.repoRoot, rec.branch);
      if (!tip) throw new IsolationError('invalid-state', `Cannot reopen ${rec.agentName}'s worktree: its branch ${rec.branch} no longer exists.`);
      try {
        const repo = await locateRepo(rec.repoRoot);
        const relative = path.relative(rec.path, rec.cwd);
        const placed = await this.folders.place(
          repo,
          (wtPath) => ({ ...rec, path: wtPath, cwd: path.join(wtPath, relative) }),
          // Its branch exists already: the first name is it, and there is nothing to create.
          { name: () => rec.branch, create: async () => true, exhausted: `${rec.branch} cannot be checked out` },
          tip,
          rec.agentName,
        );
        await this.update(rec, { path: placed.path, cwd: placed.cwd });
        prepared = placed.prepared;
        included = await this.folders.include(repo, rec);
      } catch (e) {
        throw new IsolationError('git-failed', `Could not reopen ${rec.agentName}'s worktree: ${reason(e)}. Its work is still on ${rec.branch}.`, { cause: e });
      }
    }
    await this.update(rec, { state: 'active', info: undefined, owner: currentOwner(this.instance) });
    return { ...rec, prepared, included };
  }

  /** Removes the branch and any apply backup, whatever they hold; the folder goes back to the pool (or is removed). */
  async discard(agentId: string): Promise<void> {
    const rec = this.require(agentId);
    if (rec.state === 'discarded') return;
    try {
      await this.folders.release(rec, {
        strict: true,
        underLock: async () => {
          for (const ref of await backupRefsOf(rec.repoRoot, backupName(rec))) await deleteRef(rec.repoRoot, ref);
        },
        then: { state: 'discarded' },
      });
      this.changed();
    } catch (e) {
      throw new IsolationError(
        'git-failed',
        `Could not discard ${rec.agentName}'s worktree: ${reason(e)}. Delete ${rec.path}, then run \`git worktree prune\` and \`git branch -D ${rec.branch}\` in ${rec.repoRoot}.`,
        { cause: e },
      );
    }
  }

  /**
   * Start-up clean-up: leftovers of processes that died are removed (or
   * pooled) when unchanged and kept (committed on their branch) when
   * changed. Worktrees of live processes are left alone.
   */
  async recover(): Promise<RecoverReport> {
    const report = await recoverLeftovers({
      store: this.store,
      pool: this.pool,
      worktreesRoot: this.worktreesRoot,
      instance: this.instance,
      log: (level, msg) => this.log(level, msg),
      isOwnerAlive: (rec) => ownerAlive(rec.owner),
      lock: withRepoLock,
      settle: (rec, message) => this.settle(rec, message),
      remember: (rec) => this.track(rec),
    });
    this.changed();
    return report;
  }

  /** Every recorded worktree, this process's and others', oldest first. */
  async list(): Promise<WorktreeRecord[]> {
    const { records } = await this.store.loadAll();
    for (const rec of records) this.track(rec);
    return [...this.records.values()].sort((a, b) => a.createdAt - b.createdAt).map((r) => ({ ...r }));
  }

  get(agentId: string): WorktreeRecord | undefined {
    const rec = this.current(agentId);
    return rec ? { ...rec } : undefined;
  }

  /** The pooled worktrees per repository and their estimated disk use. */
  poolStatus(): Promise<PoolStatus[]> {
    return this.pool.status();
  }

  /**
   * Deletes every pooled worktree (Clean Up Worktrees); returns how many.
   * Kept worktrees are not touched. Answers once they are in the trash (a
   * rename each); the upkeep deletes their files in the background. The
   * pool is not refilled until an isolated agent starts again.
   */
  async emptyPool(): Promise<number> {
    const n = await this.pool.empty();
    this.changed();
    return n;
  }

  /** About how much disk a kept worktree's files take (its commit's files; see checkoutDiskBytes). */
  async diskBytes(rec: WorktreeRecord): Promise<number> {
    if (!(await this.folders.owns(rec))) return 0;
    const index = await git(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd: rec.path, okCodes: [0, 128] });
    return checkoutDiskBytes(rec.path, 'HEAD', index.code === 0 ? index.stdout.trim() : undefined);
  }

  // ── internals ──

  private async repoOf(cwd: string): Promise<RepoLocation> {
    const repo = await locateRepo(path.resolve(cwd));
    if (isInside(this.worktreesRoot, repo.toplevel)) {
      throw new IsolationError(
        'bad-directory',
        `The worktrees folder ${this.worktreesRoot} is inside the repository ${repo.toplevel}; agents' worktrees would show up in it. Choose a folder outside the repository.`,
      );
    }
    return repo;
  }

  private require(agentId: string): WorktreeRecord {
    const rec = this.current(agentId);
    if (!rec) throw new IsolationError('unknown-agent', `No isolated worktree is recorded for agent ${agentId}.`);
    return rec;
  }

  /**
   * The agent's record as it is now: this manager's own in memory; another
   * process's (the agent host finishing a worktree a window reviews) read
   * again from disk, where that process keeps it current.
   */
  private current(agentId: string): WorktreeRecord | undefined {
    const mine = this.records.get(agentId);
    if (mine?.owner?.instance === this.instance) return mine;
    const disk = this.store.readSync(agentId);
    return disk ? this.track(disk) : mine;
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

  /** Commits the agent's work if any (state finished) or hands back the unchanged worktree (discarded). */
  private async settle(rec: WorktreeRecord, message: string, only?: readonly string[]): Promise<WorktreeInfo | null> {
    if (!(await this.folders.owns(rec))) return this.settleFromBranch(rec);
    let work;
    try {
      work = await commitWork(rec.path, rec.baseCommit, message, await commitConfig(rec.commonDir, rec.repoRoot), only);
    } catch (e) {
      throw new IsolationError(
        'git-failed',
        `Could not record ${rec.agentName}'s changes: ${reason(e)}. The worktree ${rec.path} was kept with the agent's work in it.`,
        { cause: e },
      );
    }
    if (!work.changed) {
      if (!(await this.folders.release(rec, { expectedTip: rec.baseCommit, then: { state: 'discarded', headCommit: work.head } }))) {
        await this.update(rec, { state: 'finished', headCommit: work.head, info: undefined });
      }
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
    await withRepoLock(rec.commonDir, async () => {
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
    // Back on its branch, so the folder is recognised as the agent's (and can go to the pool later).
    await attachBranch(rec.path, rec.branch, "subagents: follow the agent's work");
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

/** The name apply backups of an agent go by: its branch's, which no other agent has (its folder may be reused). */
function backupName(rec: WorktreeRecord): string {
  return rec.branch.startsWith(BRANCH_PREFIX) ? rec.branch.slice(BRANCH_PREFIX.length) : path.basename(rec.path);
}
