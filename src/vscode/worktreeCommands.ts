import * as vscode from 'vscode';
import { formatBytes, type WorktreeRecord } from '../core/isolation';
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

export interface CleanUpArgs {
  /** Skip the pickers: act on this agent's worktree… */
  agentId?: string;
  /** …with this action (discard still asks unless `confirmed`). */
  action?: 'review' | 'apply' | 'discard';
  confirmed?: boolean;
}

/**
 * Finds leftovers (S5.3) and, run as a whole (no agent named), empties the
 * pool of reusable worktrees; then lets the user pick a kept worktree and
 * what to do with it. Returns the agent ids of the worktrees that still hold
 * changes (after the action), which makes the command scriptable.
 */
export async function cleanUpWorktreesCommand(services: Services, args: CleanUpArgs = {}, poolEmptied?: () => void): Promise<string[] | undefined> {
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
    records = reviewable(await services.worktrees.list());
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not check the worktrees: ${errorText(error)}`);
    return undefined;
  }
  services.keptWorktrees = [];
  const remaining = async () => reviewable(await services.worktrees.list()).map((r) => r.agentId);
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
      { label: '$(diff) Review the changes', action: 'review' as const },
      ...(rec.state === 'applied' ? [] : [{ label: '$(check) Apply them to the workspace', action: 'apply' as const }]),
      { label: '$(trash) Discard them', action: 'discard' as const },
    ];
    action = (await vscode.window.showQuickPick(actions, { title: `${rec.agentName} · ${rec.branch}`, placeHolder: stats(rec) }))?.action;
    if (!action) return remaining();
  }
  if (action === 'review') await reviewWorktreeCommand(services, rec.agentId);
  else if (action === 'apply') await applyWorktreeCommand(services, rec.agentId);
  else await discardWorktreeCommand(services, rec.agentId, { confirmed: args.confirmed });
  return remaining();
}
