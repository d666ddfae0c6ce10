import path from 'node:path';
import * as vscode from 'vscode';
import type { ApprovalPreview } from '../core/tools/approvalPreview';
import type { ApprovalsView } from '../core/runtime/api';
import { approvalHeadline } from '../protocol/approvalText';

/**
 * An approval, opened whole in an editor: the shell command in a read-only
 * document (every line, scrollable), or the change as a diff (the file now
 * against what the call would write; empty on the left for a new file). The
 * editor's title carries the answers (package.json `editor/title` on this
 * scheme), and the editor closes once the question is settled anywhere.
 * `subagents-approval:/<approvalId>/<command|before|after>/<name>`.
 */

export const APPROVAL_SCHEME = 'subagents-approval';

type Side = 'command' | 'before' | 'after';

function uriFor(approvalId: string, side: Side, name: string): vscode.Uri {
  return vscode.Uri.from({ scheme: APPROVAL_SCHEME, path: `/${approvalId}/${side}/${name}` });
}

/** The approval an editor of this scheme shows. */
export function approvalIdOf(uri: vscode.Uri | undefined): string | undefined {
  if (uri?.scheme !== APPROVAL_SCHEME) return undefined;
  return /^\/([^/]+)\//.exec(uri.path)?.[1];
}

function sideText(preview: ApprovalPreview | null | undefined, side: Side): string | undefined {
  if (!preview) return undefined;
  if (side === 'command') return preview.kind === 'command' ? preview.command : undefined;
  if (preview.kind !== 'file') return undefined;
  return side === 'before' ? (preview.before ?? '') : preview.after;
}

export class ApprovalEditors implements vscode.TextDocumentContentProvider, vscode.Disposable {
  readonly #unsubscribe: () => void;

  constructor(private readonly inbox: ApprovalsView) {
    this.#unsubscribe = inbox.onDidChange((change) => {
      if (change.type === 'settled') void this.#close(change.approval.request.id);
    });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const id = approvalIdOf(uri) ?? '';
    const side = uri.path.split('/')[2] as Side;
    const text = sideText(this.inbox.get(id)?.request.preview, side);
    return text ?? 'This approval was answered, or its agent stopped; there is nothing to show any more.\n';
  }

  /** Opens the command or the change of a pending approval; false when it is no longer pending or shows nothing more. */
  async show(approvalId: string): Promise<boolean> {
    const pending = this.inbox.get(approvalId);
    const preview = pending?.request.preview;
    if (!pending || !preview) {
      void vscode.window.showInformationMessage(pending ? 'There is nothing more to show for this approval.' : 'That approval was already answered, or its agent has stopped.');
      return false;
    }
    const { request } = pending;
    if (preview.kind === 'command') {
      const doc = await vscode.workspace.openTextDocument(uriFor(approvalId, 'command', `${request.agentName} command.sh`));
      await vscode.window.showTextDocument(doc, { preview: false });
      return true;
    }
    const name = path.basename(preview.path) || 'file';
    const title = `${approvalHeadline(request)}${preview.before === null ? ' (new file)' : ''} — Allow?`;
    await vscode.commands.executeCommand('vscode.diff', uriFor(approvalId, 'before', name), uriFor(approvalId, 'after', name), title, { preview: false });
    return true;
  }

  async #close(approvalId: string): Promise<void> {
    const ours = (uri: unknown) => uri instanceof vscode.Uri && approvalIdOf(uri) === approvalId;
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => (t.input instanceof vscode.TabInputText && ours(t.input.uri)) || (t.input instanceof vscode.TabInputTextDiff && ours(t.input.modified)));
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true).then(undefined, () => undefined);
  }

  dispose(): void {
    this.#unsubscribe();
  }
}
