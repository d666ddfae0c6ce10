import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from './permissions';

/**
 * The permission inbox: where approvals wait for the user when more than one
 * surface can answer (in VS Code: a notification, the Runs view, the chat
 * response of the run, a language-model tool's caller). It is the gate's
 * handler: a request stays pending, nothing is denied while someone could
 * still answer, and the first answer from any surface settles it for all.
 *
 * Surfaces that put a question in front of the user on their own (the
 * notification) register as askers: each is called once per request with a
 * signal that aborts when the request is settled, wherever that happened.
 * Surfaces that only show pending approvals (a view, a chat response) read
 * `pending` and listen for changes.
 */

export interface PendingApproval {
  request: ApprovalRequest;
  requestedAt: number;
}

export type InboxChange =
  | { type: 'requested'; approval: PendingApproval }
  | { type: 'settled'; approval: PendingApproval; decision: ApprovalDecision };

/** Shows a pending approval to the user; `settled` aborts once it is answered anywhere (or withdrawn). */
export type ApprovalAsker = (approval: PendingApproval, settled: AbortSignal) => void;

interface Entry {
  approval: PendingApproval;
  resolve(decision: ApprovalDecision): void;
  settled: AbortController;
}

export class ApprovalInbox {
  readonly #entries = new Map<string, Entry>();
  readonly #askers = new Set<ApprovalAsker>();
  readonly #listeners = new Set<(change: InboxChange) => void>();

  /** Open requests, oldest first. */
  get pending(): PendingApproval[] {
    return [...this.#entries.values()].map((e) => e.approval);
  }

  get(id: string): PendingApproval | undefined {
    return this.#entries.get(id)?.approval;
  }

  /** `includePending`: also asked, at once, about what waits already (a surface that comes later, a reloaded window). */
  addAsker(asker: ApprovalAsker, options: { includePending?: boolean } = {}): () => void {
    this.#askers.add(asker);
    if (options.includePending) for (const entry of this.#entries.values()) ask(asker, entry.approval, entry.settled.signal);
    return () => this.#askers.delete(asker);
  }

  onDidChange(listener: (change: InboxChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The gate's handler: waits until some surface answers, or the agent stops. */
  readonly handler: ApprovalHandler = (request, signal) =>
    new Promise<ApprovalDecision>((resolve) => {
      if (signal.aborted) return resolve({ allow: false, reason: 'the agent was stopped', by: 'stopped' });
      const approval: PendingApproval = { request, requestedAt: Date.now() };
      const withdraw = () => this.#settle(request.id, { allow: false, reason: 'the agent was stopped', by: 'stopped' });
      const entry: Entry = {
        approval,
        settled: new AbortController(),
        resolve: (decision) => {
          signal.removeEventListener('abort', withdraw);
          resolve(decision);
        },
      };
      this.#entries.set(request.id, entry);
      signal.addEventListener('abort', withdraw, { once: true });
      this.#emit({ type: 'requested', approval });
      for (const asker of this.#askers) ask(asker, approval, entry.settled.signal);
    });

  /**
   * Answers a pending request. Returns false when it was already settled (by
   * another surface, or because the agent stopped) or never existed. An
   * allow that reaches further than one call also settles the other pending
   * requests it covers (same kind, protected or not, same agent or same run).
   */
  answer(id: string, decision: ApprovalDecision): boolean {
    const entry = this.#entries.get(id);
    if (!entry) return false;
    this.#settle(id, decision);
    if (decision.allow && (decision.scope === 'agent' || decision.scope === 'run')) {
      const { request } = entry.approval;
      for (const other of [...this.#entries.values()]) {
        const r = other.approval.request;
        // An allowance for ordinary file changes does not cover protected ones (hook settings, .git/), nor the reverse.
        const sameKind = r.kind === request.kind && Boolean(r.protectedReason) === Boolean(request.protectedReason);
        const covered = sameKind && (decision.scope === 'run' ? r.runId === request.runId : r.agentId === request.agentId);
        if (covered) this.#settle(r.id, decision);
      }
    }
    return true;
  }

  #settle(id: string, decision: ApprovalDecision): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    this.#entries.delete(id);
    entry.resolve(decision);
    entry.settled.abort();
    this.#emit({ type: 'settled', approval: entry.approval, decision });
  }

  #emit(change: InboxChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch {
        // A failing surface must not stop the others.
      }
    }
  }
}

function ask(asker: ApprovalAsker, approval: PendingApproval, settled: AbortSignal): void {
  try {
    asker(approval, settled);
  } catch {
    // One surface failing to show the question leaves the others.
  }
}
