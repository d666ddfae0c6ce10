import { approvalLabel, builtinTool } from './tools';
import type { ApprovalKind } from './vocabulary';

/**
 * How every surface words an approval (the notification, the Runs view, chat,
 * the terminal, the preview editor), from the tool registry's verb
 * (`approvalLabel`), so the same write is never a "write" in one place and a
 * "change" in another. Plain functions, bundled into the webview too.
 */

export interface ApprovalWords {
  agentName: string;
  background?: boolean;
  kind: ApprovalKind;
  toolName: string;
  /** The one-line summary (a file path for a file change). */
  summary: string;
}

/** `run a shell command`, `write`, `edit`, `use notes › add_note`: what the agent wants to do. */
export function approvalVerb(a: Pick<ApprovalWords, 'kind' | 'toolName'>): string {
  return approvalLabel(a.kind, a.toolName).verb;
}

/** "docs-writer wants to write RELEASE-NOTES.md", "test-runner (background) wants to run a shell command". */
export function approvalHeadline(a: ApprovalWords): string {
  const who = `${a.agentName}${a.background ? ' (background)' : ''}`;
  const what = approvalVerb(a);
  if (a.kind === 'bash') return `${who} wants to ${what}`;
  // A file tool names its file; another tool that changes things names what it does.
  return builtinTool(a.toolName)?.subject === 'file' ? `${who} wants to ${what} ${a.summary || 'a file'}` : `${who} wants to ${what}${a.summary ? `: ${a.summary}` : ''}`;
}
