import * as vscode from 'vscode';
import { diffLines } from 'diff';
import type { PendingApproval } from '../core/tools/approvalInbox';
import type { ApprovalsView } from '../core/runtime/api';
import type { ApprovalPreview } from '../core/tools/approvalPreview';
import type { ModeWidening } from '../core/tools/modeConsent';
import type { ApprovalDecision, ApprovalRequest } from '../core/tools/permissions';
import { approvalHeadline } from '../protocol/approvalText';
import { ANSWER_LABELS, APPROVAL_ANSWERS, type ApprovalAnswer } from '../protocol/webview';
import { NOTIFICATION_MAX_CHARS, notificationText } from './notificationText';

/**
 * Approvals in VS Code: the core's permission inbox, answered from
 * whichever surface the user is on. Every request shows a notification
 * (agents keep running in parallel, the user keeps typing); the Runs view and
 * the chat response of the run show the same question with every answer and
 * what it approves (the whole command, or the diff), and
 * `subagents.answerApproval` is how any of them answers. The first answer
 * settles it everywhere; a stopped agent withdraws its question. Requests of
 * background agents are asked the same way, never silently denied.
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
  readonly #onDidChange = new vscode.EventEmitter<void>();
  /** Fires when a question opens or closes. */
  readonly onDidChange = this.#onDidChange.event;
  readonly #unsubscribe: Array<() => void>;

  /** Opens an approval's command or change whole (the approval editors); set by activation. */
  show: ((approvalId: string) => unknown) | undefined;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    /** The runtime's pending approvals (in the agent host, or in this process). */
    readonly view: ApprovalsView,
    /**
     * Whether this window notifies about an approval: one of its folders'
     * runs (the agent host serves every window and terminal of the user; the
     * Runs view lists the others' approvals without a notification).
     */
    private readonly concerns: (request: ApprovalRequest) => boolean = () => true,
  ) {
    this.#unsubscribe = [
      view.onDidChange((change) => {
        if (change.type === 'settled') {
          const { request } = change.approval;
          const { decision } = change;
          const what = decision.allow ? `allowed${decision.scope && decision.scope !== 'once' ? ` for the ${decision.scope}` : ''}` : 'denied';
          this.log.info(`${request.agentName} (${request.agentId}): ${request.toolName} ${what} (${decision.by ?? 'unknown'})`);
        }
        this.#onDidChange.fire();
      }),
      // What waits already is asked too: a reloaded window shows the question it lost.
      view.addAsker(
        (approval, settled) => {
          if (this.concerns(approval.request)) this.#notify(approval, settled);
        },
        { includePending: true },
      ),
    ];
  }

  get pending(): PendingApproval[] {
    return this.view.pending;
  }

  /** Answers a pending approval; false when it was already settled elsewhere. */
  answer(approvalId: string, answer: ApprovalAnswer, by: string): Promise<boolean> {
    return this.view.answer(approvalId, decisionFor(answer, by));
  }

  /**
   * The notification: the question with real buttons. Everything it would
   * approve is in its message (a notification with buttons is shown
   * expanded) or one click away (Show Command, Show Change: the whole thing
   * in an editor whose title has every answer). A command too long for a
   * notification (VS Code cuts messages at 1,000 characters) gets no Allow
   * there: it can be allowed only where it is shown whole. Closing the
   * notification leaves the question pending: the Runs view, chat and the
   * container's badge still ask. VS Code cannot close a message
   * notification for us, so one answered elsewhere stays until it fades; its
   * buttons then say the question was answered.
   */
  #notify(approval: PendingApproval, _settled: AbortSignal): void {
    const { request } = approval;
    const notice = approvalNotice(request);
    void vscode.window.showWarningMessage(notice.message, ...notice.buttons).then((choice) => {
      if (choice === SHOW_COMMAND || choice === SHOW_CHANGE) return this.show?.(request.id);
      const answer = choice ? BUTTON_ANSWERS[choice] : undefined;
      if (!answer) return undefined;
      return this.answer(request.id, answer, 'notification').then((settled) => {
        if (!settled) void vscode.window.showInformationMessage('That approval was already answered, or its agent has stopped.');
      });
    });
  }

  dispose(): void {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#onDidChange.dispose();
  }
}

export const SHOW_COMMAND = 'Show Command';
export const SHOW_CHANGE = 'Show Change';
const BUTTON_ANSWERS: Record<string, ApprovalAnswer> = { [ANSWER_LABELS.allow]: 'allow', [ANSWER_LABELS.deny]: 'deny' };
/** Room left in a notification's message for the command after the headline and notes. */
const COMMAND_ROOM = NOTIFICATION_MAX_CHARS - 200;

type NoticeRequest = Pick<ApprovalRequest, 'agentName' | 'kind' | 'summary' | 'toolName' | 'protectedReason' | 'preview'> & { background?: boolean };

/**
 * The notification of an approval: its message (every part from outside
 * escaped for a notification, see notificationText.ts) and its buttons.
 */
export function approvalNotice(request: NoticeRequest): { message: string; buttons: string[] } {
  const headline = notificationText(approvalHeadline(request));
  const protectedNote = request.protectedReason ? ` (protected: ${notificationText(request.protectedReason)})` : '';
  const preview = request.preview;
  if (request.kind === 'bash') {
    const command = preview?.kind === 'command' ? preview.command : request.summary;
    const shown = notificationText(command);
    if (shown.length <= COMMAND_ROOM) return { message: `${headline}: ${shown}${protectedNote}`, buttons: [ANSWER_LABELS.allow, ANSWER_LABELS.deny] };
    // Too long to show whole here: allowed only where it is shown whole.
    const lines = command.split('\n').length;
    return {
      message: `${headline} of ${command.length.toLocaleString('en-US')} characters${lines > 1 ? ` on ${lines} lines` : ''}, too long to show here: open it to read it all before you allow it.${protectedNote}`,
      buttons: [SHOW_COMMAND, ANSWER_LABELS.deny],
    };
  }
  const change = preview?.kind === 'file' ? ` (${changeSize(preview)})` : '';
  return { message: `${headline}${change}${protectedNote}`, buttons: preview ? [SHOW_CHANGE, ANSWER_LABELS.allow, ANSWER_LABELS.deny] : [ANSWER_LABELS.allow, ANSWER_LABELS.deny] };
}

/** "new file, 12 lines", "+3 −1 lines". */
function changeSize(preview: Extract<ApprovalPreview, { kind: 'file' }>): string {
  const lines = (text: string) => (text ? text.replace(/\n$/, '').split('\n').length : 0);
  if (preview.before === null) return `new file, ${lines(preview.after)} line${lines(preview.after) === 1 ? '' : 's'}`;
  const d = diffLines(preview.before, preview.after);
  const added = d.filter((p) => p.added).reduce((n, p) => n + (p.count ?? 0), 0);
  const removed = d.filter((p) => p.removed).reduce((n, p) => n + (p.count ?? 0), 0);
  return `+${added} −${removed} lines`;
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
  const asks = request.rules
    ? `${where} lets it run calls without asking (${request.rules.join('; ')}), as ${MODE_WORDS[request.requested]} would; without your consent they are asked about as ${MODE_WORDS[request.current]} says. `
    : `${where} asks for ${MODE_WORDS[request.requested]}; without your consent it runs under ${MODE_WORDS[request.current]}. `;
  const choice = await vscode.window.showWarningMessage(
    request.rules ? `Agent "${request.agentName}" may run some calls without asking.` : `Agent "${request.agentName}" asks to run with permission mode ${request.requested}.`,
    {
      modal: true,
      detail: `${asks}Allow it only if you trust this file. The answer is remembered until the file changes.`,
    },
    allow,
    request.rules ? 'Ask As Usual' : `Run Under ${request.current}`,
  );
  return choice === allow && !signal.aborted;
}

/**
 * `subagents.answerApproval(approvalId, answer, by?)`. Returns whether this
 * answer settled the question; one already answered elsewhere (or withdrawn
 * because its agent stopped) says so instead of pretending to act.
 */
export async function answerApprovalCommand(services: { approvals: VsCodeApprovals }, approvalId: unknown, answer: unknown, by: unknown): Promise<boolean> {
  if (typeof approvalId !== 'string' || !(APPROVAL_ANSWERS as readonly unknown[]).includes(answer)) {
    void vscode.window.showErrorMessage(`Subagents: answerApproval needs an approval id and one of ${APPROVAL_ANSWERS.join(', ')}.`);
    return false;
  }
  const settled = await services.approvals.answer(approvalId, answer as ApprovalAnswer, typeof by === 'string' && by ? by : 'command');
  if (!settled) void vscode.window.showInformationMessage('That approval was already answered, or its agent has stopped.');
  return settled;
}
