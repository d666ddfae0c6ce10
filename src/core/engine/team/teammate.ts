import type { Inbox } from '../messaging/inbox';

/**
 * What makes an agent a teammate: a name in its team, and a life between
 * turns. A teammate whose turn ends goes idle rather than ending; a message
 * in its inbox wakes it with that message as its next turn. It ends when its
 * lead (or the lead's end, or a hook) ends it: at once when idle, after its
 * current turn when it works. Stopping it (an abort) ends it as any agent.
 */
export class Teammate {
  readonly name: string;
  /** Set while it rests between turns (its run's status is `idle`). */
  idle = false;
  #ending: string | null = null;
  #reported = false;
  #interrupt: (() => void) | null = null;

  constructor(name: string) {
    this.name = name;
  }

  /** Why it was asked to end, once it was (null while it may go on). */
  get ending(): string | null {
    return this.#ending;
  }

  /**
   * Ends it: at once when it is idle, at the end of its current turn when
   * it works. `report`: its lead is told how it ended (a hook ended it); an
   * end the lead asked for, or its own end, is no news to it.
   */
  end(reason: string, report = false): void {
    if (this.#ending === null) {
      this.#ending = reason;
      this.#reported = report;
    }
    this.#interrupt?.();
  }

  /** Whether its lead is to be told of its end (see `end`); an agent that ended any other way always reports. */
  get reportsEnd(): boolean {
    return this.#ending === null || this.#reported;
  }

  /**
   * Rests until something arrives in `inbox` (`message`), it is ended
   * (`end`), or `signal` aborts (`aborted`).
   */
  async rest(inbox: Inbox, signal: AbortSignal): Promise<'message' | 'end' | 'aborted'> {
    const stop = new AbortController();
    this.#interrupt = () => stop.abort();
    try {
      while (!signal.aborted && this.#ending === null && inbox.size === 0) await inbox.wait(AbortSignal.any([signal, stop.signal]));
    } finally {
      this.#interrupt = null;
    }
    if (signal.aborted) return 'aborted';
    // A message that came with the end is read by the next continuation: ending wins.
    return this.#ending !== null ? 'end' : 'message';
  }
}
