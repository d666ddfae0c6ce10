import * as vscode from 'vscode';
import type { WorktreeRecord } from '../core/isolation';
import type { Services } from './services';

/**
 * Clean Up Worktrees and the per-agent worktree actions (S5.2, S5.3):
 * review the diff, apply it to the workspace (conflicts reported, nothing
 * overwritten silently), discard it (after a confirmation).
 */

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function stats(rec: WorktreeRecord): string {
  return rec.info ? `${rec.info.filesChanged} file(s), +${rec.info.insertions} −${rec.info.deletions}` : 'changes not summarised yet';
}

export async function reviewWorktreeCommand(services: Services, agentId: string): Promise<boolean> {
  try {
    await services.worktrees.list();
    const diff = await services.worktrees.diff(agentId);
    const rec = services.worktrees.get(agentId);
    const header = rec ? `# ${rec.agentName}: ${rec.branch} (${stats(rec)})\n# Apply with "Subagents: Clean Up Worktrees" or the Agents view.\n` : '';
    const doc = await vscode.workspace.openTextDocument({ language: 'diff', content: diff ? `${header}${diff}` : `${header}# No changes.\n` });
    await vscode.window.showTextDocument(doc, { preview: true });
    return true;
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not show the changes: ${errorText(error)}`);
    return false;
  }
}

export async function applyWorktreeCommand(services: Services, agentId: string): Promise<boolean> {
  try {
    await services.worktrees.list();
    const outcome = await services.worktrees.apply(agentId);
    if (outcome.conflicts.length) {
      const details = outcome.conflictDetails.map((c) => `${c.path}: ${c.resolution === 'markers' ? 'conflict markers written' : 'your version kept'} (${c.reason})`);
      services.log.warn(`Apply of ${agentId}: ${outcome.message}\n  ${details.join('\n  ')}`);
      const show = 'Show Details';
      void vscode.window
        .showWarningMessage(`${outcome.message} Conflicts in ${outcome.conflicts.length} file(s): ${outcome.conflicts.slice(0, 5).join(', ')}${outcome.conflicts.length > 5 ? ', …' : ''}.`, show)
        .then((choice) => {
          if (choice === show) services.log.show(true);
        });
      return outcome.applied;
    }
    void vscode.window.showInformationMessage(outcome.message);
    return true;
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not apply the changes: ${errorText(error)}`);
    return false;
  }
}

export async function discardWorktreeCommand(services: Services, agentId: string, options: { confirmed?: boolean } = {}): Promise<boolean> {
  await services.worktrees.list();
  const rec = services.worktrees.get(agentId);
  if (!rec) {
    void vscode.window.showErrorMessage(`No worktree is recorded for agent ${agentId}.`);
    return false;
  }
  if (!options.confirmed) {
    const discard = 'Discard';
    const choice = await vscode.window.showWarningMessage(
      `Discard ${rec.agentName}'s changes (${stats(rec)}) on ${rec.branch}? The worktree and the branch are deleted; this cannot be undone.`,
      { modal: true },
      discard,
    );
    if (choice !== discard) return false;
  }
  try {
    await services.worktrees.discard(agentId);
    void vscode.window.showInformationMessage(`Discarded ${rec.agentName}'s worktree and branch ${rec.branch}.`);
    return true;
  } catch (error) {
    void vscode.window.showErrorMessage(errorText(error));
    return false;
  }
}

/**
 * Worktrees worth showing: ones with work kept on them. After recover(),
 * 'active' ones belong to agents still running (here or in another window).
 */
function reviewable(records: WorktreeRecord[]): WorktreeRecord[] {
  return records.filter((r) => r.state === 'finished' || r.state === 'applied');
}

export async function cleanUpWorktreesCommand(services: Services): Promise<void> {
  let records: WorktreeRecord[];
  try {
    const report = await services.worktrees.recover();
    if (report.removed.length) services.log.info(`Removed ${report.removed.length} unchanged worktree(s) left by interrupted runs.`);
    records = reviewable(await services.worktrees.list());
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not check the worktrees: ${errorText(error)}`);
    return;
  }
  services.keptWorktrees = [];
  if (records.length === 0) {
    void vscode.window.showInformationMessage('No agent worktrees with changes are left.');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    records.map((rec) => ({
      label: rec.agentName,
      description: `${rec.branch}${rec.state === 'applied' ? ' · applied' : ''}`,
      detail: `${stats(rec)} · from ${rec.repoRoot} · ${new Date(rec.createdAt).toLocaleString()}`,
      rec,
    })),
    { title: 'Subagents: Clean Up Worktrees', placeHolder: 'Worktrees of isolated agents that kept changes: pick one' },
  );
  if (!picked) return;
  const actions = [
    { label: '$(diff) Review the changes', action: 'review' as const },
    ...(picked.rec.state === 'applied' ? [] : [{ label: '$(check) Apply them to the workspace', action: 'apply' as const }]),
    { label: '$(trash) Discard them', action: 'discard' as const },
  ];
  const action = await vscode.window.showQuickPick(actions, { title: `${picked.rec.agentName} · ${picked.rec.branch}`, placeHolder: stats(picked.rec) });
  if (!action) return;
  if (action.action === 'review') await reviewWorktreeCommand(services, picked.rec.agentId);
  else if (action.action === 'apply') await applyWorktreeCommand(services, picked.rec.agentId);
  else await discardWorktreeCommand(services, picked.rec.agentId);
}
