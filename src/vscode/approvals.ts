import * as vscode from 'vscode';
import { ApprovalInbox, type PendingApproval } from '../core/tools/approvalInbox';
import type { ModeWidening } from '../core/tools/modeConsent';
import type { ApprovalDecision, ApprovalRequest } from '../core/tools/permissions';
import { approvalLabel } from '../protocol/tools';
import { ANSWER_LABELS, APPROVAL_ANSWERS, type ApprovalAnswer } from '../protocol/webview';

/**
 * Approvals in VS Code (S7.3): the core's permission inbox, answered from
 * whichever surface the user is on. Every request shows a notification with
 * every answer (agents keep running in parallel, the user keeps typing); the
 * Runs view and the chat response of the run show the same question with the
 * same answers as buttons, and `subagents.answerApproval` is how any of them
 * answers. The first answer settles it everywhere (the notification closes
 * itself); a stopped agent withdraws its question. Requests of background
 * agents are asked the same way, never silently denied.
 */

export function decisionFor(answer: ApprovalAnswer, by: string): ApprovalDecision {
  switch (answer) {
    case 'allow':
      return { allow: true, scope: 'once', by };
    case 'allowAgent':
      return { allow: true, scope: 'agent', by };
    case 'allowRun':
      return { allow: true, scope: 'run', by };
    case 'deny':
      return { allow: false, reason: `denied in VS Code (${by})`, by };
  }
}

export class VsCodeApprovals implements vscode.Disposable {
  readonly inbox = new ApprovalInbox();
  readonly #onDidChange = new vscode.EventEmitter<void>();
  /** Fires when a question opens or closes. */
  readonly onDidChange = this.#onDidChange.event;
  readonly #unsubscribe: Array<() => void>;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.#unsubscribe = [
      this.inbox.onDidChange((change) => {
        if (change.type === 'settled') {
          const { request } = change.approval;
          const { decision } = change;
          const what = decision.allow ? `allowed${decision.scope && decision.scope !== 'once' ? ` for the ${decision.scope}` : ''}` : 'denied';
          this.log.info(`${request.agentName} (${request.agentId}): ${request.toolName} ${what} (${decision.by ?? 'unknown'})`);
        }
        this.#onDidChange.fire();
      }),
      this.inbox.addAsker((approval, settled) => this.#notify(approval, settled)),
    ];
  }

  get handler() {
    return this.inbox.handler;
  }

  get pending(): PendingApproval[] {
    return this.inbox.pending;
  }

  /** Answers a pending approval; false when it was already settled elsewhere. */
  answer(approvalId: string, answer: ApprovalAnswer, by: string): boolean {
    return this.inbox.answer(approvalId, decisionFor(answer, by));
  }

  /**
   * The notification is a progress notification with the answers as links:
   * unlike a message with buttons, it can be closed when the question is
   * settled elsewhere (the Runs view, chat), so a stale question never stays
   * on screen. Its Cancel button denies.
   */
  #notify(approval: PendingApproval, settled: AbortSignal): void {
    const { request } = approval;
    const link = (answer: ApprovalAnswer) =>
      `[${ANSWER_LABELS[answer]}](command:subagents.answerApproval?${encodeURIComponent(JSON.stringify([request.id, answer, 'notification']))})`;
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: approvalMessage(request), cancellable: true },
      (progress, token) => {
        progress.report({ message: APPROVAL_ANSWERS.map(link).join(' · ') });
        return new Promise<void>((resolve) => {
          if (settled.aborted) return resolve();
          const cancel = token.onCancellationRequested(() => this.answer(request.id, 'deny', 'notification'));
          // Answered here or anywhere else (the deny above included): the notification closes.
          settled.addEventListener(
            'abort',
            () => {
              cancel.dispose();
              resolve();
            },
            { once: true },
          );
        });
      },
    );
  }

  dispose(): void {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#onDidChange.dispose();
  }
}

/** "test-runner wants to run: npm test" (one line; the summary is already short), and why a protected file asks even under acceptEdits. */
export function approvalMessage(request: Pick<ApprovalRequest, 'agentName' | 'background' | 'kind' | 'summary' | 'toolName' | 'protectedReason'>): string {
  const who = `${request.agentName}${request.background ? ' (background)' : ''}`;
  const what = `${who} wants to ${approvalLabel(request.kind).verb}: ${request.summary || request.toolName}`;
  return request.protectedReason ? `${what} (protected: ${request.protectedReason})` : what;
}

const MODE_WORDS: Record<ModeWidening['requested'], string> = {
  plan: 'plan mode (read-only)',
  default: 'default (asks before shell commands and file changes)',
  acceptEdits: 'acceptEdits (file changes without asking)',
  bypassPermissions: 'bypassPermissions (shell commands and file changes without asking)',
};

/**
 * An agent file asks for a wider permission mode than the agent would run
 * under (a cloned repository's `permissionMode: bypassPermissions`): a modal
 * question, since it decides what runs unasked. The answer is remembered for
 * the file as it is now; any change to it asks again.
 */
export async function askModeWidening(request: ModeWidening, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  const allow = 'Allow for This File';
  const where = request.filePath ? vscode.workspace.asRelativePath(request.filePath) : 'no file';
  const choice = await vscode.window.showWarningMessage(
    `Agent "${request.agentName}" asks to run with permission mode ${request.requested}.`,
    {
      modal: true,
      detail:
        `${where} asks for ${MODE_WORDS[request.requested]}; without your consent it runs under ${MODE_WORDS[request.current]}. ` +
        'Allow it only if you trust this file. The answer is remembered until the file changes.',
    },
    allow,
    `Run Under ${request.current}`,
  );
  return choice === allow && !signal.aborted;
}

/**
 * `subagents.answerApproval(approvalId, answer, by?)`. Returns whether this
 * answer settled the question; one already answered elsewhere (or withdrawn
 * because its agent stopped) says so instead of pretending to act.
 */
export function answerApprovalCommand(services: { approvals: VsCodeApprovals }, approvalId: unknown, answer: unknown, by: unknown): boolean {
  if (typeof approvalId !== 'string' || !(APPROVAL_ANSWERS as readonly unknown[]).includes(answer)) {
    void vscode.window.showErrorMessage(`Subagents: answerApproval needs an approval id and one of ${APPROVAL_ANSWERS.join(', ')}.`);
    return false;
  }
  const settled = services.approvals.answer(approvalId, answer as ApprovalAnswer, typeof by === 'string' && by ? by : 'command');
  if (!settled) void vscode.window.showInformationMessage('That approval was already answered, or its agent has stopped.');
  return settled;
}
