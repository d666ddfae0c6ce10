import * as vscode from 'vscode';
import { formatBytes, type ApplyOutcome, type WorktreeRecord } from '../core/isolation';
import { shownFiles, type ReviewEditors } from './review/reviewEditors';
import type { Services } from './services';
import { REVIEW_SCHEME } from './review/reviewFiles';
import { confirmTeamApply, showApplyConflicts } from './teamApply';

/**
 * What the user does with an isolated agent's changes: review them in the
 * multi-file diff editor, apply them to the workspace (conflicts reported,
 * nothing overwritten silently), discard them (after a confirmation), or
 * either file by file. Each command takes the agent (an id from the Runs
 * view, chat or a notification), or a file of an open review (its editor's
 * title), or acts on the review in front of the user, or asks which.
 */

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function stats(rec: WorktreeRecord): string {
  return rec.info ? `${rec.info.filesChanged} file${rec.info.filesChanged === 1 ? '' : 's'}, +${rec.info.insertions} −${rec.info.deletions}` : 'changes not summarised yet';
}

type Action = 'review' | 'apply' | 'discard';

/** Worktrees with work kept on them; after recover(), 'active' ones belong to agents still running (here or in another window). */
function actionable(records: WorktreeRecord[], action: Action): WorktreeRecord[] {
  return records.filter((r) => r.state === 'finished' || (action === 'review' && r.state === 'applied'));
}

const PICK_TITLES: Record<Action, string> = {
  review: 'Subagents: Review Changes',
  apply: 'Subagents: Apply Changes',
  discard: 'Subagents: Discard Changes',
};

async function pickWorktree(services: Services, action: Action): Promise<string | undefined> {
  const records = actionable(await services.worktrees.list(), action);
  if (records.length === 0) {
    void vscode.window.showInformationMessage(action === 'review' ? 'No agent has left changes to review.' : `No agent has left changes to ${action}.`);
    return undefined;
  }
  if (records.length === 1) return records[0]!.agentId;
  const picked = await vscode.window.showQuickPick(
    records
      .slice()
      .reverse()
      .map((r) => ({
        label: r.agentName,
        description: `${r.branch}${r.state === 'applied' ? ' · applied' : ''}`,
        detail: `${stats(r)} · ${new Date(r.createdAt).toLocaleString()}`,
        agentId: r.agentId,
      })),
    { title: PICK_TITLES[action], placeHolder: 'Whose changes?' },
  );
  return picked?.agentId;
}

/**
 * The agent an action is for: an id given, the agent of a review file
 * (editor title of a single diff), the review in the active tab (the
 * multi-diff editor's title passes its own URI), or the user's pick.
 */
async function agentFor(services: Services, reviews: ReviewEditors, arg: unknown, action: Action): Promise<string | undefined> {
  if (typeof arg === 'string' && arg) return arg;
  if (arg instanceof vscode.Uri) {
    const file = reviews.fileOf(arg);
    if (file) return file.agentId;
  }
  return reviews.activeAgent ?? pickWorktree(services, action);
}

/** Edited agent-side files of an open review are saved first: what is applied is what the review shows. */
async function saveReviewEdits(reviews: ReviewEditors, agentId: string): Promise<void> {
  const root = reviews.worktreePath(agentId);
  if (!root) return;
  const dirty = vscode.workspace.textDocuments.filter(
    (d) => d.isDirty && ((d.uri.scheme === REVIEW_SCHEME && d.uri.authority === agentId) || (d.uri.scheme === 'file' && d.uri.fsPath.startsWith(root))),
  );
  await Promise.all(dirty.map((d) => d.save()));
}

export async function reviewWorktreeCommand(services: Services, reviews: ReviewEditors, arg?: unknown): Promise<boolean> {
  const agentId = await agentFor(services, reviews, arg, 'review');
  if (!agentId) return false;
  try {
    const review = await reviews.open(agentId);
    if (shownFiles(review).length === 0) {
      void vscode.window.showInformationMessage(`${review.agentName} has no changes left to review on ${review.branch}.`);
      return false;
    }
    return true;
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not show the changes: ${errorText(error)}`);
    return false;
  }
}

function report(services: Services, agentId: string, outcome: ApplyOutcome): void {
  if (outcome.conflicts.length === 0) {
    void vscode.window.showInformationMessage(outcome.message);
    return;
  }
  const details = outcome.conflictDetails.map((c) => `${c.path}: ${c.resolution === 'markers' ? 'conflict markers written' : 'your version kept'} (${c.reason})`);
  services.log.warn(`Apply of ${agentId}: ${outcome.message}\n  ${details.join('\n  ')}`);
  const show = 'Show Details';
  void vscode.window
    .showWarningMessage(`${outcome.message} Conflicts in ${outcome.conflicts.length} file(s): ${outcome.conflicts.slice(0, 5).join(', ')}${outcome.conflicts.length > 5 ? ', …' : ''}.`, show)
    .then((choice) => {
      if (choice === show) services.log.show(true);
    });
}

/**
 * Applies an agent's changes (all, or `paths`); null when nothing was
 * applied (an error said why, or the user declined). A teammate's apply that
 * would merge over another teammate's change asks first (unless `confirmed`,
 * for a team's Apply All, which asked once); conflict markers it leaves open
 * in the merge editor.
 */
export async function applyChangesOf(services: Services, reviews: ReviewEditors, agentId: string, options: { paths?: string[]; confirmed?: boolean } = {}): Promise<ApplyOutcome | null> {
  try {
    await services.worktrees.list();
    if (!options.confirmed && !(await confirmTeamApply(services, agentId))) return null;
    await saveReviewEdits(reviews, agentId);
    const outcome = await services.worktrees.apply(agentId, options.paths ? { paths: options.paths } : {});
    report(services, agentId, outcome);
    await reviews.refresh(agentId);
    if (services.store.agent(agentId)?.member) await showApplyConflicts(services, agentId, outcome);
    return outcome;
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not apply the changes: ${errorText(error)}`);
    return null;
  }
}

async function apply(services: Services, reviews: ReviewEditors, agentId: string, paths?: string[]): Promise<boolean> {
  const outcome = await applyChangesOf(services, reviews, agentId, { paths });
  return outcome !== null && (outcome.applied || outcome.conflicts.length === 0);
}

export async function applyWorktreeCommand(services: Services, reviews: ReviewEditors, arg?: unknown): Promise<boolean> {
  const agentId = await agentFor(services, reviews, arg, 'apply');
  return agentId ? apply(services, reviews, agentId) : false;
}

export async function discardWorktreeCommand(services: Services, reviews: ReviewEditors, arg?: unknown, options: { confirmed?: boolean } = {}): Promise<boolean> {
  const agentId = await agentFor(services, reviews, arg, 'discard');
  if (!agentId) return false;
  await services.worktrees.list();
  const rec = services.worktrees.get(agentId);
  if (!rec) {
    void vscode.window.showErrorMessage(`No worktree is recorded for agent ${agentId}.`);
    return false;
  }
  if (!options.confirmed) {
    const discard = 'Discard';
    const choice = await vscode.window.showWarningMessage(
      `Discard ${rec.agentName}'s changes (${stats(rec)}) on ${rec.branch}?`,
      { modal: true, detail: 'The worktree and the branch are deleted; this cannot be undone. Files you applied already stay in your working tree.' },
      discard,
    );
    if (choice !== discard) return false;
  }
  try {
    await services.worktrees.discard(agentId);
    await reviews.close(agentId);
    void vscode.window.showInformationMessage(`Discarded ${rec.agentName}'s worktree and branch ${rec.branch}.`);
    return true;
  } catch (error) {
    void vscode.window.showErrorMessage(errorText(error));
    return false;
  }
}

/**
 * The files a per-file action is for: the file of a review's single diff
 * (its editor title), given paths, or those the user picks from the
 * agent's files still to apply.
 */
async function filesFor(services: Services, reviews: ReviewEditors, arg: unknown, paths: unknown, action: 'apply' | 'discard'): Promise<{ agentId: string; paths: string[] } | undefined> {
  if (arg instanceof vscode.Uri) {
    const file = reviews.fileOf(arg);
    if (file) return { agentId: file.agentId, paths: [file.path] };
  }
  const agentId = await agentFor(services, reviews, arg, action);
  if (!agentId) return undefined;
  if (Array.isArray(paths) && paths.every((p) => typeof p === 'string') && paths.length) return { agentId, paths: paths as string[] };
  const review = await services.worktrees.review(agentId);
  const files = review.files.filter((f) => !f.applied);
  if (files.length === 0) {
    void vscode.window.showInformationMessage(`${review.agentName} has no changes left to ${action}.`);
    return undefined;
  }
  const counts = (f: (typeof files)[number]) => (f.insertions === null ? 'binary' : `+${f.insertions} −${f.deletions}`);
  const picked = await vscode.window.showQuickPick(
    files.map((f) => ({ label: f.path, description: `${f.kind} · ${counts(f)}`, path: f.path })),
    {
      title: `Subagents: ${action === 'apply' ? 'Apply' : 'Discard'} ${review.agentName}'s Changes to…`,
      placeHolder: action === 'apply' ? 'The files to apply to your working tree; the others stay to review' : 'The files whose changes to drop; the others stay to review',
      canPickMany: true,
    },
  );
  return picked?.length ? { agentId, paths: picked.map((p) => p.path) } : undefined;
}

export async function applyWorktreeFilesCommand(services: Services, reviews: ReviewEditors, arg?: unknown, paths?: unknown): Promise<boolean> {
  try {
    const target = await filesFor(services, reviews, arg, paths, 'apply');
    return target ? apply(services, reviews, target.agentId, target.paths) : false;
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not apply the changes: ${errorText(error)}`);
    return false;
  }
}

export async function discardWorktreeFilesCommand(services: Services, reviews: ReviewEditors, arg?: unknown, paths?: unknown): Promise<boolean> {
  try {
    const target = await filesFor(services, reviews, arg, paths, 'discard');
    if (!target) return false;
    await saveReviewEdits(reviews, target.agentId);
    const outcome = await services.worktrees.discardFiles(target.agentId, target.paths);
    void vscode.window.showInformationMessage(outcome.message);
    await reviews.refresh(target.agentId);
    return true;
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not discard the changes: ${errorText(error)}`);
    return false;
  }
}

export interface CleanUpArgs {
  /** Skip the pickers: act on this agent's worktree… */
  agentId?: string;
  /** …with this action (discard still asks unless `confirmed`). */
  action?: Action;
  confirmed?: boolean;
}

/**
 * Finds leftovers of interrupted runs and, run as a whole (no agent named),
 * empties the pool of reusable worktrees; then lets the user pick a kept
 * worktree and what to do with it. Returns the agent ids of the worktrees
 * that still hold changes (after the action), which makes the command
 * scriptable.
 */
export async function cleanUpWorktreesCommand(services: Services, reviews: ReviewEditors, args: CleanUpArgs = {}, poolEmptied?: () => void): Promise<string[] | undefined> {
  let records: WorktreeRecord[];
  let emptied = '';
  try {
    const report = await services.worktrees.recover();
    if (report.removed.length) services.log.info(`Removed ${report.removed.length} unchanged worktree(s) left by interrupted runs.`);
    if (!args.agentId) {
      const pooled = await services.worktrees.poolStatus();
      const deleted = await services.worktrees.emptyPool();
      poolEmptied?.();
      if (deleted) {
        emptied = `Deleted ${deleted} pooled worktree${deleted === 1 ? '' : 's'} (about ${formatBytes(pooled.reduce((n, p) => n + p.diskBytes, 0))}). `;
        services.log.info(emptied.trim());
      }
    }
    records = actionable(await services.worktrees.list(), 'review');
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not check the worktrees: ${errorText(error)}`);
    return undefined;
  }
  // The Runs view's notice of kept worktrees stays until they are applied or discarded (views.ts), not just looked at.
  const remaining = async () => actionable(await services.worktrees.list(), 'review').map((r) => r.agentId);
  if (records.length === 0) {
    if (!args.agentId) void vscode.window.showInformationMessage(`${emptied}No agent worktrees with changes are left.`);
    return [];
  }
  if (emptied) void vscode.window.showInformationMessage(emptied.trim());
  let rec = args.agentId ? records.find((r) => r.agentId === args.agentId) : undefined;
  if (args.agentId && !rec) {
    void vscode.window.showErrorMessage(`Agent ${args.agentId} has no worktree with changes.`);
    return remaining();
  }
  if (!rec) {
    const picked = await vscode.window.showQuickPick(
      records.map((r) => ({
        label: r.agentName,
        description: `${r.branch}${r.state === 'applied' ? ' · applied' : ''}`,
        detail: `${stats(r)} · from ${r.repoRoot} · ${new Date(r.createdAt).toLocaleString()}`,
        rec: r,
      })),
      { title: 'Subagents: Clean Up Worktrees', placeHolder: 'Worktrees of isolated agents that kept changes: pick one' },
    );
    if (!picked) return remaining();
    rec = picked.rec;
  }
  let action = args.action;
  if (!action) {
    const actions = [
      { label: '$(diff-multiple) Review the changes', action: 'review' as const },
      ...(rec.state === 'applied' ? [] : [{ label: '$(check) Apply them to the workspace', action: 'apply' as const }]),
      { label: '$(trash) Discard them', action: 'discard' as const },
    ];
    action = (await vscode.window.showQuickPick(actions, { title: `${rec.agentName} · ${rec.branch}`, placeHolder: stats(rec) }))?.action;
    if (!action) return remaining();
  }
  if (action === 'review') await reviewWorktreeCommand(services, reviews, rec.agentId);
  else if (action === 'apply') await applyWorktreeCommand(services, reviews, rec.agentId);
  else await discardWorktreeCommand(services, reviews, rec.agentId, { confirmed: args.confirmed });
  return remaining();
}
