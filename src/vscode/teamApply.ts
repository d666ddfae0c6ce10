import path from 'node:path';
import * as vscode from 'vscode';
import { overlapsBefore, overlapWarning, teammatesOf, type ApplyOutcome, type TeammateWork } from '../core/isolation';
import type { RunSnapshot } from '../protocol/runSnapshot';
import { worktreeFileUri } from './review/worktreeContent';
import type { Services } from './services';

/**
 * Applying a team's work: each teammate's changes are on a branch of its
 * own and are applied one teammate at a time. Before an apply would merge
 * one teammate's change over another's (a file both changed), a modal says
 * which files and asks; after an apply that left conflict markers, the
 * first conflicted file opens in VS Code's merge editor (your side, the
 * teammate's side, and the base it started from), the rest are named.
 */

/** Asks before an apply that would merge over another teammate's applied change; true when it may go ahead. */
export async function confirmTeamApply(services: Services, agentId: string): Promise<boolean> {
  const team = teammatesOf(services.store.get(services.store.agent(agentId)?.runId ?? ''), agentId);
  if (!team) return true;
  const warning = overlapWarning(team.target, await overlapsBefore(services.worktrees, team.target, team.teammates));
  if (!warning) return true;
  const go = 'Apply Anyway';
  return (await vscode.window.showWarningMessage(`Apply ${team.target.name}'s changes?`, { modal: true, detail: warning }, go)) === go;
}

/**
 * After an apply that wrote conflict markers: the first such file in the
 * merge editor (VS Code's own, through the command its git support uses),
 * or, where that cannot open, the file itself with its markers.
 */
export async function showApplyConflicts(services: Services, agentId: string, outcome: ApplyOutcome): Promise<void> {
  const marked = outcome.conflictDetails.filter((c) => c.resolution === 'markers');
  const first = marked[0];
  if (!first) return;
  const rec = services.worktrees.get(agentId);
  if (!rec) return;
  const output = vscode.Uri.file(path.join(rec.repoRoot, first.path));
  const name = services.store.agent(agentId)?.member ?? rec.agentName;
  try {
    const review = await services.worktrees.review(agentId);
    const yours = outcome.backupRef ? await services.worktrees.commitOf(agentId, outcome.backupRef) : null;
    if (!yours) throw new Error('no record of your side before the apply');
    await vscode.commands.executeCommand('_open.mergeEditor', {
      base: worktreeFileUri({ agentId, commit: review.baseCommit, path: first.path }),
      input1: { uri: worktreeFileUri({ agentId, commit: yours, path: first.path }), title: 'Yours', description: 'your working tree before the apply' },
      input2: { uri: worktreeFileUri({ agentId, commit: review.headCommit, path: first.path }), title: name, description: `${name}'s change (${rec.branch})` },
      output,
    });
  } catch (error) {
    services.log.warn(`The merge editor did not open for ${first.path} (${error instanceof Error ? error.message : String(error)}); opening the file with its conflict markers.`);
    await vscode.window.showTextDocument(output, { preview: false });
  }
  if (marked.length > 1) void vscode.window.showWarningMessage(`Conflict markers in ${marked.length} files: ${marked.map((c) => c.path).join(', ')}. The first is open in the merge editor.`);
}

/** The teammates of a run whose changes are waiting to be applied, in the order they ended. */
function appliable(services: Services, run: RunSnapshot): TeammateWork[] {
  return Object.values(run.agents)
    .filter((a) => a.member && services.worktrees.get(a.agentId)?.state === 'finished')
    .sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0))
    .map((a) => ({ agentId: a.agentId, name: a.member! }));
}

/**
 * Apply All of a team: every teammate's waiting changes, one after another,
 * in the order they ended. Where one would merge over an earlier one (the
 * same file), a modal names every such file first and asks once. Stops at
 * the first apply that leaves a conflict, with it in the merge editor.
 */
export async function applyTeamCommand(services: Services, runId: unknown, applyOne: (agentId: string) => Promise<ApplyOutcome | null>): Promise<boolean> {
  const run = typeof runId === 'string' ? services.store.get(runId) : undefined;
  if (!run) {
    void vscode.window.showErrorMessage('That run is no longer in the history.');
    return false;
  }
  await services.worktrees.list();
  const queue = appliable(services, run);
  if (queue.length === 0) {
    void vscode.window.showInformationMessage('No teammate of this run has changes waiting to be applied.');
    return false;
  }
  const teammates = Object.values(run.agents)
    .filter((a) => a.member)
    .map((a) => ({ agentId: a.agentId, name: a.member! }));
  const warnings: string[] = [];
  for (const [i, target] of queue.entries()) {
    const warning = overlapWarning(target, await overlapsBefore(services.worktrees, target, teammates, queue.slice(0, i)));
    if (warning) warnings.push(warning);
  }
  if (warnings.length) {
    const go = 'Apply All Anyway';
    const answer = await vscode.window.showWarningMessage(`Apply the changes of ${queue.map((q) => q.name).join(', ')}?`, { modal: true, detail: warnings.join('\n\n') }, go);
    if (answer !== go) return false;
  }
  const done: string[] = [];
  for (const target of queue) {
    const outcome = await applyOne(target.agentId);
    if (!outcome) break;
    done.push(target.name);
    if (outcome.conflicts.length) {
      await showApplyConflicts(services, target.agentId, outcome);
      const rest = queue.slice(done.length).map((q) => q.name);
      void vscode.window.showWarningMessage(`Applied ${done.join(', ')}; ${target.name}'s changes left conflicts to resolve${rest.length ? `, so ${rest.join(', ')} ${rest.length === 1 ? 'waits' : 'wait'}: apply ${rest.length === 1 ? 'it' : 'them'} once they are resolved` : ''}.`);
      return false;
    }
  }
  void vscode.window.showInformationMessage(`Applied the changes of ${done.join(', ')} to your working tree.`);
  return done.length === queue.length;
}
