import type { MailEntry } from './mail';

/** An entry on its way into one agent's conversation. */
export interface InboxItem {
  entry: MailEntry;
  /** Whether the entry is in the mailbox: a result for a parent at work is handed over in memory only. */
  posted: boolean;
  /**
   * Read with the agent's next turn, but no reason for one on its own while
   * the agent waits for others still at work (a teammate going idle tells
   * its lead so; the lead reads all of them once the last one rests).
   */
  quiet?: boolean;
}

/**
 * One running agent's inbox: what arrived for it since its last request
 * (messages, its background children's results), taken at its next turn
 * boundary and never in the middle of a streamed answer. Taken items stay
 * here as delivered-but-unsaved until the transcript holding them is on
 * disk; only then are they acknowledged in the mailbox.
 */
export class Inbox {
  readonly #items: InboxItem[] = [];
  readonly #unsaved: InboxItem[] = [];
  #wake: (() => void) | null = null;

  get size(): number {
    return this.#items.length;
  }

  /** Waiting items that are worth a turn by themselves (not quiet). */
  get urgent(): number {
    return this.#items.filter((i) => !i.quiet).length;
  }

  /** The items waiting (for a surface that says what will be delivered). */
  get items(): readonly InboxItem[] {
    return this.#items;
  }

  /** Wakes the agent if it waits, with nothing new: what it waits on besides its inbox changed (a child ended). */
  nudge(): void {
    this.#wake?.();
  }

  /** Adds an item and wakes the agent if it is waiting for one. */
  push(item: InboxItem): void {
    if (this.#items.some((i) => i.entry.id === item.entry.id)) return;
    this.#items.push(item);
    this.#wake?.();
  }

  /**
   * Takes every waiting item, for delivery now, oldest first (by when each
   * was sent, not when it arrived: another process's messages may reach the
   * mailbox's watcher in any order); they stay unsaved until `saved()`.
   */
  take(): InboxItem[] {
    const taken = this.#items.splice(0).sort((a, b) => a.entry.sentAt - b.entry.sentAt);
    this.#unsaved.push(...taken);
    return taken;
  }

  /** Items that arrived too late for the agent's last turn, taken out undelivered (it has ended). */
  drain(): InboxItem[] {
    return this.#items.splice(0);
  }

  /** Items delivered in the agent's first message (it was continued with them). */
  carried(items: readonly InboxItem[]): void {
    this.#unsaved.push(...items);
  }

  /** The delivered items not yet known to be on disk, handed over for acknowledging once the transcript write that holds them is done. */
  toSave(): InboxItem[] {
    return this.#unsaved.splice(0);
  }

  /**
   * Drops waiting items the agent has had by another way (a child's result
   * it read through TaskOutput or TaskStop): they count as delivered with
   * that tool's result.
   */
  drop(matches: (item: InboxItem) => boolean): void {
    for (let i = this.#items.length - 1; i >= 0; i--) if (matches(this.#items[i]!)) this.#unsaved.push(...this.#items.splice(i, 1));
  }

  /** Resolves at once when an item waits, else at the next item, or when `signal` aborts. */
  wait(signal: AbortSignal): Promise<void> {
    if (this.#items.length) return Promise.resolve();
    return this.next(signal);
  }

  /**
   * Resolves at the next item that arrives (or `nudge`), whatever waits
   * already, or when `signal` aborts: for an agent that waits on something
   * else too (its background children at work).
   */
  next(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#wake = null;
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#wake = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
