import { IsolationError } from './errors';
import { git } from './git';
import { commitWork, currentTree } from './changes';
import { commitConfig, diffStats } from './repo';
import { changedFiles, checkedOutOn, revertPaths, syncWorktreePaths, type ChangedFile } from './review';
import type { WorktreeRecord } from './stateStore';
import { branchTip } from './worktrees';

/**
 * Reviewing an agent's changes file by file: what changed (each file marked
 * once applied), the user's own edits made while reviewing (in the agent's
 * worktree, which a review shows editable) kept as part of the change, and
 * one file's change taken back off the branch. The manager owns the record
 * and the locks and hands them in (ReviewContext).
 */

export interface ReviewedFile extends ChangedFile {
  /** Already written into the user's working tree by an earlier apply. */
  applied: boolean;
}

export interface WorktreeReview {
  agentId: string;
  agentName: string;
  branch: string;
  repoRoot: string;
  baseCommit: string;
  /** The branch tip the review shows (the worktree's files, when `worktreePath` is set, may be newer: the user's edits). */
  headCommit: string;
  /**
   * The agent's worktree when it is still a checkout of its branch: a review
   * may show (and the user edit) the agent's version there. Null when only
   * the branch is left (after an apply, or once the folder was reused).
   */
  worktreePath: string | null;
  state: WorktreeRecord['state'];
  files: ReviewedFile[];
}

export interface DiscardFilesOutcome {
  /** Files taken back off the branch. */
  discarded: string[];
  /** Files still waiting to be applied or discarded. */
  remaining: number;
  /** Nothing was left: the worktree and branch went (or, if some files were applied, the record is `applied`). */
  finished: boolean;
  message: string;
}

export interface ReviewContext {
  /** The manager's record of the agent (updated in place by `update`). */
  rec: WorktreeRecord;
  lock<T>(fn: () => Promise<T>): Promise<T>;
  update(patch: Partial<WorktreeRecord>): Promise<void>;
  /** Every change is applied: the record becomes `applied`, the worktree folder goes, the branch stays. */
  retire(): Promise<void>;
  /** Nothing is left to apply: worktree and branch go (discard). */
  discardAll(): Promise<void>;
}

/** Which files earlier applies wrote: all of them once the record is `applied` (records from before per-file applies list none). */
export function appliedCheck(rec: WorktreeRecord): (file: string) => boolean {
  if (rec.state === 'applied') return () => true;
  const applied = new Set(rec.appliedPaths ?? []);
  return (file) => applied.has(file);
}

async function tipOf(rec: WorktreeRecord): Promise<string> {
  return (await branchTip(rec.repoRoot, rec.branch)) ?? rec.headCommit;
}

function requireReviewable(rec: WorktreeRecord, what: string): void {
  if (rec.state === 'active' || rec.state === 'creating') {
    throw new IsolationError('invalid-state', `${rec.agentName} is still working in its worktree; ${what} once it has finished.`);
  }
  if (rec.state === 'discarded') throw new IsolationError('invalid-state', `${rec.agentName}'s changes were discarded; there is nothing to ${what.split(' ')[0]}.`);
}

/** The files of a finished (or applied) agent's change, as they stand now: edits the user made in its worktree while reviewing included. */
export async function reviewOf(ctx: ReviewContext): Promise<WorktreeReview> {
  const { rec } = ctx;
  requireReviewable(rec, 'review its changes');
  const tip = await tipOf(rec);
  const live = rec.state === 'finished' && (await checkedOutOn(rec.path, rec.branch));
  // A live worktree's files are what the review shows on the agent's side, so the list is measured against them.
  const to = live ? await currentTree(rec.path) : tip;
  const isApplied = appliedCheck(rec);
  const files = (await changedFiles(live ? rec.path : rec.repoRoot, rec.baseCommit, to)).map((f) => ({ ...f, applied: isApplied(f.path) }));
  return {
    agentId: rec.agentId,
    agentName: rec.agentName,
    branch: rec.branch,
    repoRoot: rec.repoRoot,
    baseCommit: rec.baseCommit,
    headCommit: tip,
    worktreePath: live ? rec.path : null,
    state: rec.state,
    files,
  };
}

/**
 * Commits what the user changed in the agent's worktree while reviewing (a
 * reverted hunk, a fix of their own) onto the branch, so an apply or a
 * discard works on what the review showed. Nothing to do without a live
 * worktree or without such edits.
 */
export async function commitReviewEdits(ctx: ReviewContext): Promise<void> {
  const { rec } = ctx;
  if (rec.state !== 'finished' || !(await checkedOutOn(rec.path, rec.branch))) return;
  const work = await commitWork(rec.path, rec.baseCommit, `subagents: edits made while reviewing ${rec.agentName}'s changes`, await commitConfig(rec.commonDir, rec.repoRoot));
  if (!work.changed || !work.committed) return;
  const stats = await diffStats(rec.path, rec.baseCommit, work.head);
  await ctx.update({ headCommit: work.head, info: { path: rec.path, branch: rec.branch, baseCommit: rec.baseCommit, ...stats } });
}

/**
 * Takes the agent's change to `paths` back off its branch (a commit on top,
 * so the change stays in the branch's history until the whole worktree is
 * discarded) and out of its worktree. Files already applied are refused:
 * they are in the user's working tree now. When nothing is left the
 * worktree is finished with: discarded, or `applied` if some files were.
 */
export async function discardFiles(ctx: ReviewContext, paths: readonly string[]): Promise<DiscardFilesOutcome> {
  const { rec } = ctx;
  requireReviewable(rec, 'discard its changes');
  if (rec.state === 'applied') throw new IsolationError('invalid-state', `${rec.agentName}'s changes were applied already; there is nothing left to discard file by file.`);
  if (paths.length === 0) throw new IsolationError('invalid-state', 'Name at least one file to discard.');
  await commitReviewEdits(ctx);
  const isApplied = appliedCheck(rec);
  const already = paths.filter(isApplied);
  if (already.length) {
    const restore = rec.backupRef ? ` To take it out of your working tree, restore your version with \`git restore --source=${rec.backupRef} -- <file>\`.` : '';
    throw new IsolationError('invalid-state', `${already.join(', ')} ${already.length === 1 ? 'was' : 'were'} applied to your working tree already; discarding ${already.length === 1 ? 'it' : 'them'} here would change nothing.${restore}`);
  }
  const config = await commitConfig(rec.commonDir, rec.repoRoot);
  const tip = await tipOf(rec);
  const changed = new Set((await changedFiles(rec.repoRoot, rec.baseCommit, tip)).map((f) => f.path));
  const discarded = paths.filter((p) => changed.has(p));
  if (discarded.length === 0) throw new IsolationError('invalid-state', `${rec.agentName} did not change ${paths.join(', ')}.`);
  const message = `subagents: discard ${rec.agentName}'s changes to ${discarded.join(', ')}`;
  const next = await revertPaths(rec.repoRoot, rec.baseCommit, tip, discarded, message, config);
  await ctx.lock(() => git(['update-ref', '-m', message, `refs/heads/${rec.branch}`, next, tip], { cwd: rec.repoRoot, retryOnLock: true }));
  if (await checkedOutOn(rec.path, rec.branch)) await syncWorktreePaths(rec.path, next, discarded);
  const left = (await changedFiles(rec.repoRoot, rec.baseCommit, next)).filter((f) => !isApplied(f.path));
  const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
  if (left.length === 0) {
    const anyApplied = (rec.appliedPaths ?? []).length > 0;
    await ctx.update({ headCommit: next });
    if (anyApplied) await ctx.retire();
    else await ctx.discardAll();
    return {
      discarded,
      remaining: 0,
      finished: true,
      message: `Discarded ${rec.agentName}'s changes to ${discarded.join(', ')}; ${anyApplied ? 'the rest was applied already' : `nothing is left, so the worktree and ${rec.branch} are gone`}.`,
    };
  }
  const stats = await diffStats(rec.repoRoot, rec.baseCommit, next);
  await ctx.update({ headCommit: next, info: { path: rec.path, branch: rec.branch, baseCommit: rec.baseCommit, ...stats } });
  return {
    discarded,
    remaining: left.length,
    finished: false,
    message: `Discarded ${rec.agentName}'s changes to ${discarded.join(', ')}; ${files(left.length)} still to review on ${rec.branch} (the discarded version stays in its history until you discard the whole worktree).`,
  };
}
