import * as vscode from 'vscode';
import type { AgentResult } from '../core/engine/agentRun';

/**
 * When a run the user started ends, say so only where it adds something: a
 * notification when the Runs view is not in sight, or when the run left
 * changes to review (those need the user wherever they look). Never one per
 * nested agent: only the runs a command started announce. Chat never does:
 * its response ends with how the run went (it starts runs on the engine, not
 * through the command); a caller of `subagents.runAgent` that tells the user
 * itself passes `notify: false`.
 */

export interface EndNotice {
  level: 'info' | 'error';
  text: string;
  buttons: string[];
}

export const SHOW_IN_RUNS = 'Show in Runs';
export const SHOW_TRANSCRIPT = 'Show Transcript';
export const REVIEW_CHANGES = 'Review Changes';

type Ended = Pick<AgentResult, 'status' | 'agentName' | 'error' | 'worktree'>;

export function endNotice(result: Ended, runsViewVisible: boolean): EndNotice | null {
  if (result.status === 'cancelled') return null;
  const changes = result.worktree && result.worktree.filesChanged > 0 ? result.worktree : null;
  if (!changes && runsViewVisible) return null;
  const ok = result.status === 'completed';
  const files = changes ? ` with ${changes.filesChanged} changed file${changes.filesChanged === 1 ? '' : 's'} on ${changes.branch} to review` : '';
  const text = ok
    ? `${result.agentName} finished${files}.`
    : `${result.agentName} ${result.status === 'budget_exceeded' ? 'stopped at its budget' : 'failed'}${files}: ${result.error ?? 'no details'}`;
  return { level: ok ? 'info' : 'error', text, buttons: changes ? [REVIEW_CHANGES, SHOW_IN_RUNS] : [SHOW_IN_RUNS, SHOW_TRANSCRIPT] };
}

let runsViewVisible: () => boolean = () => false;

/** The sidebar registers how to tell whether the Runs view is in sight. */
export function setRunsViewVisibility(visible: () => boolean): void {
  runsViewVisible = visible;
}

/** Tells the user how a run they started ended (see endNotice), with ways to it. */
export function announceRunEnd(result: AgentResult): void {
  const notice = endNotice(result, runsViewVisible());
  if (!notice) return;
  const show = notice.level === 'info' ? vscode.window.showInformationMessage : vscode.window.showErrorMessage;
  void show(notice.text, ...notice.buttons).then((choice) => {
    if (choice === SHOW_IN_RUNS) void vscode.commands.executeCommand('subagents.showRun', { runId: result.runId, agentId: result.agentId });
    if (choice === SHOW_TRANSCRIPT) void vscode.commands.executeCommand('subagents.showTranscript', result.agentId);
    if (choice === REVIEW_CHANGES) void vscode.commands.executeCommand('subagents.reviewWorktree', result.agentId);
  });
}
