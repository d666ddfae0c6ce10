import * as vscode from 'vscode';
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from '../core/tools/permissions';

/**
 * Asks the user before a shell command or file change runs (S7.3), as a
 * non-modal warning notification: agents keep running in parallel, and the
 * user can keep typing. Requests of background agents are asked too (marked
 * as such); a notification that slides into the notification centre still
 * waits there for an answer, it is never a silent denial. When the agent is
 * stopped while its question is open, the question is withdrawn (the engine
 * sees the abort).
 */

const ALLOW = 'Allow';
const ALLOW_RUN = 'Allow for this run';
const DENY = 'Deny';

export interface PendingApproval {
  id: number;
  request: ApprovalRequest;
}

export class VsCodeApprovals implements vscode.Disposable {
  #next = 1;
  readonly #pending = new Map<number, PendingApproval>();
  readonly #onDidChange = new vscode.EventEmitter<void>();
  /** Fires when a question opens or closes (the view lists open ones). */
  readonly onDidChange = this.#onDidChange.event;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  get pending(): PendingApproval[] {
    return [...this.#pending.values()];
  }

  readonly handler: ApprovalHandler = async (request, signal) => {
    if (signal.aborted) return { allow: false, reason: 'the agent was stopped' };
    const id = this.#next++;
    this.#pending.set(id, { id, request });
    this.#onDidChange.fire();
    try {
      return await this.#ask(request, signal);
    } finally {
      this.#pending.delete(id);
      this.#onDidChange.fire();
    }
  };

  async #ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const message = approvalMessage(request);
    const stopped = new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
    const choice = await Promise.race([vscode.window.showWarningMessage(message, ALLOW, ALLOW_RUN, DENY), stopped]);
    if (signal.aborted) return { allow: false, reason: 'the agent was stopped' };
    this.log.info(`${request.agentName} (${request.agentId}): ${request.toolName} ${choice === ALLOW_RUN ? 'allowed for the run' : choice === ALLOW ? 'allowed' : 'denied'}`);
    if (choice === ALLOW) return { allow: true };
    if (choice === ALLOW_RUN) return { allow: true, rememberForRun: true };
    return { allow: false, reason: choice === DENY ? 'denied in VS Code' : 'the question was dismissed without an answer' };
  }

  dispose(): void {
    this.#onDidChange.dispose();
  }
}

/** "test-runner wants to run: npm test" (one line; the summary is already short). */
export function approvalMessage(request: ApprovalRequest): string {
  const who = `${request.agentName}${request.background ? ' (background)' : ''}`;
  return request.kind === 'bash' ? `${who} wants to run: ${request.summary}` : `${who} wants to change: ${request.summary || request.toolName}`;
}
