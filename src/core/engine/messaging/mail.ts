import { randomBytes } from 'node:crypto';

/**
 * What reaches an agent while it works, or waits for it until it is
 * continued: a message (from the user through a surface, or from another
 * agent of its run tree with SendMessage), the result of a child that ended
 * when its parent could not take it, or a request to stop. Every entry is
 * posted to a mailbox before anyone is told it was sent, and acknowledged
 * (removed) only once it is in the agent's transcript on disk, so a crash
 * between the two loses nothing: the next continuation of the agent finds
 * it (see docs/messaging.md).
 */
export interface MailEntry {
  id: string;
  /** The agent it is for, and its run. */
  agentId: string;
  runId: string;
  kind: 'message' | 'result' | 'stop';
  /** A message's text as written; a result's notice; a stop's reason. */
  text: string;
  /** Null: the user, through a surface. */
  from: { agentId: string; agentName: string } | null;
  /** The surface it came through (runsView, chat, cli, lm) or `agent`. */
  via: string;
  sentAt: number;
  /** A stop for the agent's whole run, not only the agent and its subtree. */
  wholeRun?: boolean;
  /** A result that continues its ended recipient (the child is `blocking`) rather than waiting for its next continuation. */
  wakes?: boolean;
}

/** Where entries wait until delivered: a folder beside the run history (runs/mailbox.ts), or memory. */
export interface AgentMailbox {
  post(entry: MailEntry): Promise<void>;
  /** Entries for `agentId` not acknowledged yet, oldest first. */
  pending(agentId: string): Promise<MailEntry[]>;
  /** Removes a delivered (or handled) entry; removing one that is gone already is fine. */
  ack(entry: MailEntry): Promise<void>;
}

export function newMailId(): string {
  return `m${randomBytes(6).toString('hex')}`;
}

let lastSentAt = 0;

/**
 * When an entry is sent: the clock's milliseconds, but never the same or
 * earlier than this process's previous entry, so entries sent within one
 * millisecond keep their order (readers sort by it: oldest first).
 */
export function mailTime(): number {
  lastSentAt = Math.max(Date.now(), lastSentAt + 1);
  return lastSentAt;
}

/** A mailbox for an engine without a run history: entries live as long as the process. */
export class MemoryMailbox implements AgentMailbox {
  readonly #entries = new Map<string, MailEntry[]>();

  async post(entry: MailEntry): Promise<void> {
    const list = this.#entries.get(entry.agentId) ?? [];
    list.push(entry);
    this.#entries.set(entry.agentId, list);
  }

  async pending(agentId: string): Promise<MailEntry[]> {
    return [...(this.#entries.get(agentId) ?? [])];
  }

  async ack(entry: MailEntry): Promise<void> {
    const list = this.#entries.get(entry.agentId)?.filter((e) => e.id !== entry.id) ?? [];
    if (list.length) this.#entries.set(entry.agentId, list);
    else this.#entries.delete(entry.agentId);
  }
}

function attribute(value: string): string {
  return value.replace(/[&"<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[c]!);
}

/**
 * The text the agent reads for an entry, as a block of its next user
 * message. It carries the entry's id, so a continuation after a crash can
 * tell an entry already in the transcript from one that never arrived.
 */
export function deliveredText(entry: MailEntry): string {
  if (entry.kind === 'result') return entry.text;
  const from = entry.from ? `from="${attribute(entry.from.agentName)}" agent-id="${attribute(entry.from.agentId)}"` : 'from="user"';
  return `<message ${from} id="${entry.id}">\n${entry.text}\n</message>`;
}

/** Whether a conversation already holds the entry (delivered before a crash kept it from being acknowledged). */
export function alreadyDelivered(conversation: unknown, entry: MailEntry): boolean {
  return JSON.stringify(conversation).includes(`id=\\"${entry.id}\\"`);
}
