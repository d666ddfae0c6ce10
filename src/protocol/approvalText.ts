/**
 * How every surface words an approval (the notification, the Runs view, chat,
 * the terminal, the preview editor): one verb per act, so the same write is
 * never a "write" in one place and a "change" in another. Plain functions,
 * bundled into the webview too.
 */

export interface ApprovalWords {
  agentName: string;
  background?: boolean;
  kind: 'edit' | 'bash';
  toolName: string;
  /** The one-line summary (a file path for a file change). */
  summary: string;
}

/** `run a shell command`, `write`, `edit`: what the agent wants to do. */
export function approvalVerb(a: Pick<ApprovalWords, 'kind' | 'toolName'>): string {
  if (a.kind === 'bash') return a.toolName === 'Bash' ? 'run a shell command' : 'run a command';
  return a.toolName === 'Write' ? 'write' : 'edit';
}

/** "docs-writer wants to write NOTES.md", "test-runner (background) wants to run a shell command". */
export function approvalHeadline(a: ApprovalWords): string {
  const who = `${a.agentName}${a.background ? ' (background)' : ''}`;
  const what = approvalVerb(a);
  return a.kind === 'bash' ? `${who} wants to ${what}` : `${who} wants to ${what} ${a.summary || 'a file'}`;
}
