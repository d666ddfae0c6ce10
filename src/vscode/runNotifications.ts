import * as vscode from 'vscode';
import type { AgentResult } from '../core/engine/tree/agentRun';
import type { RunSnapshot } from '../protocol/runSnapshot';
import { notificationText } from './notificationText';

/**
 * When a run the user started ends, its answer goes where the user looks:
 * with the Runs view in sight, the run's row is shown with its Result line
 * unfolded (the keyboard stays where it is); out of sight, a notification
 * with the answer's first line and Show Result. Changes to review always
 * notify (they need the user wherever they look). Never one per nested agent:
 * only the runs a command started announce. Chat never does: its response
 * ends with the answer (it starts runs on the engine, not through the
 * command); a caller of `subagents.runAgent` that tells the user itself
 * passes `notify: false`.
 */

export interface EndNotice {
  level: 'info' | 'error';
  text: string;
  buttons: string[];
}

export const SHOW_IN_RUNS = 'Show in Runs';
export const SHOW_RESULT = 'Show Result';
export const SHOW_TRANSCRIPT = 'Show Transcript';
export const REVIEW_CHANGES = 'Review Changes';

type Ended = Pick<AgentResult, 'status' | 'agentName' | 'error' | 'worktree'> & { output?: string | null };

/** Changes an agent of the run left in its worktree, to review. */
export interface LeftChanges {
  agentId: string;
  agentName: string;
  filesChanged: number;
  branch: string;
}

/** Every agent of a run that left changes to review (a nested docs-writer's too, not only the root's). */
export function changesOf(run: RunSnapshot | undefined): LeftChanges[] {
  if (!run) return [];
  return Object.values(run.agents)
    .filter((node) => (node.worktree?.filesChanged ?? 0) > 0)
    .map((node) => ({ agentId: node.agentId, agentName: node.agentName, filesChanged: node.worktree!.filesChanged, branch: node.worktree!.branch }));
}

/**
 * The first line of an answer that says something, for a one-line
 * notification: a heading ("## Summary") names a part rather than saying
 * anything, so the first line of prose after it is taken; Markdown's marks
 * (list bullets, emphasis, code ticks) are dropped, as a notification shows
 * them raw.
 */
export function gist(output: string | null | undefined): string {
  const lines = (output ?? '').split('\n').filter((l) => /\w/.test(l));
  const line = lines.find((l) => !/^\s*#{1,6}\s/.test(l)) ?? lines[0] ?? '';
  const text = line
    .replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)*/, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/`([^`]+)`/g, '$1')
    .trim();
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

export function endNotice(result: Ended, runsViewVisible: boolean, left: readonly LeftChanges[] = []): EndNotice | null {
  if (result.status === 'cancelled') return null;
  const own = result.worktree && result.worktree.filesChanged > 0 ? result.worktree : null;
  const changes = own ? [{ agentName: result.agentName, filesChanged: own.filesChanged, branch: own.branch }] : left;
  if (changes.length === 0 && runsViewVisible) return null;
  const ok = result.status === 'completed';
  const fileCount = changes.reduce((n, c) => n + c.filesChanged, 0);
  const where = own ? `on ${own.branch}` : changes.length === 1 ? `from ${notificationText(changes[0]!.agentName)} on ${changes[0]!.branch}` : `from ${changes.length} agents`;
  const files = changes.length ? ` with ${fileCount} changed file${fileCount === 1 ? '' : 's'} ${where} to review` : '';
  const answer = ok ? gist(result.output) : '';
  // Every part from outside (names, the answer, errors) is escaped for a notification.
  const name = notificationText(result.agentName);
  const text = ok
    ? `${name} finished${files}${answer ? `: ${notificationText(answer)}` : '.'}`
    : `${name} ${result.status === 'budget_exceeded' ? 'stopped at its budget' : 'failed'}${files}: ${notificationText(result.error ?? 'no details')}`;
  const buttons = changes.length ? [REVIEW_CHANGES, SHOW_IN_RUNS] : ok && answer ? [SHOW_RESULT, SHOW_TRANSCRIPT] : [SHOW_IN_RUNS, SHOW_TRANSCRIPT];
  return { level: ok ? 'info' : 'error', text, buttons };
}

let runsViewVisible: () => boolean = () => false;

/** The sidebar registers how to tell whether the Runs view is in sight. */
export function setRunsViewVisibility(visible: () => boolean): void {
  runsViewVisible = visible;
}

/** Tells the user how a run they started ended (see endNotice), with ways to it; `run` is its snapshot (for the changes its agents left). */
export function announceRunEnd(result: AgentResult, run?: RunSnapshot): void {
  const left = changesOf(run);
  const visible = runsViewVisible();
  if (visible && result.status !== 'cancelled') {
    void vscode.commands.executeCommand('subagents.showRun', { runId: result.runId, agentId: result.agentId, showResult: true, preserveFocus: true });
  }
  const notice = endNotice(result, visible, left);
  if (!notice) return;
  const show = notice.level === 'info' ? vscode.window.showInformationMessage : vscode.window.showErrorMessage;
  void show(notice.text, ...notice.buttons).then((choice) => {
    if (choice === SHOW_IN_RUNS) void vscode.commands.executeCommand('subagents.showRun', { runId: result.runId, agentId: result.agentId });
    if (choice === SHOW_RESULT) void vscode.commands.executeCommand('subagents.showRun', { runId: result.runId, agentId: result.agentId, showResult: true });
    if (choice === SHOW_TRANSCRIPT) void vscode.commands.executeCommand('subagents.showTranscript', result.agentId);
    // The root's own changes, else the one agent that left some; with several, the command asks whose.
    const whose = result.worktree?.filesChanged ? result.agentId : left.length === 1 ? left[0]!.agentId : undefined;
    if (choice === REVIEW_CHANGES) void vscode.commands.executeCommand('subagents.reviewWorktree', whose);
  });
}
