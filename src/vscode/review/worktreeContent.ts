import * as vscode from 'vscode';
import type { WorktreeManager } from '../../core/isolation';

/**
 * The read-only side of a review: a file as it is at one commit of an
 * agent's repository (the commit the agent started from, or its branch tip
 * when its worktree is gone). `subagents-worktree:/<agentId>/<commit>/<path>`;
 * a commit never changes, so neither does the document.
 */

export const WORKTREE_SCHEME = 'subagents-worktree';

export interface WorktreeFileRef {
  agentId: string;
  commit: string;
  /** Repository-relative, `/`-separated. */
  path: string;
}

export function worktreeFileUri(ref: WorktreeFileRef): vscode.Uri {
  return vscode.Uri.from({ scheme: WORKTREE_SCHEME, path: `/${ref.agentId}/${ref.commit}/${ref.path}` });
}

export function parseWorktreeFileUri(uri: vscode.Uri): WorktreeFileRef | undefined {
  if (uri.scheme !== WORKTREE_SCHEME) return undefined;
  const m = /^\/([^/]+)\/([0-9a-f]{7,64})\/(.+)$/.exec(uri.path);
  return m ? { agentId: m[1]!, commit: m[2]!, path: m[3]! } : undefined;
}

export class WorktreeContent implements vscode.TextDocumentContentProvider {
  constructor(private readonly worktrees: Pick<WorktreeManager, 'fileAt'>) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const ref = parseWorktreeFileUri(uri);
    if (!ref) throw new Error(`Not a worktree file: ${uri.toString()}`);
    // A side the file does not exist on reads as empty (a new or deleted file).
    return (await this.worktrees.fileAt(ref.agentId, ref.commit, ref.path)) ?? '';
  }
}
