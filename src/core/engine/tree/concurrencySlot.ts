import type { Semaphore } from './limiter';

/**
 * One agent's place under its run tree's `subagents.maxConcurrency`. A
 * spawned agent takes it before its first request and holds it while it
 * works; while it only waits for its own children (a foreground Task, a
 * blocking TaskOutput) it lends it back, so they can run even when the
 * limit is 1; `close()` gives it up for good, once, however the agent ended.
 * Only this object touches the tree's limiter for the agent, so a place can
 * neither leak nor be released twice. A root agent's slot is empty: the
 * limit counts the agents below a tree's root.
 */
export class ConcurrencySlot {
  readonly #limiter: Semaphore | null;
  readonly #signal: AbortSignal;
  #held = false;
  #waits = 0;
  #closed = false;

  constructor(limiter: Semaphore | null, signal: AbortSignal) {
    this.#limiter = limiter;
    this.#signal = signal;
  }

  /** Whether the agent holds a place now (false while it lends it to its children). */
  get held(): boolean {
    return this.#held;
  }

  /** Waits for a place; rejects with the abort reason when the agent is stopped first. */
  async take(): Promise<void> {
    if (!this.#limiter || this.#held || this.#closed) return;
    await this.#limiter.acquire(this.#signal);
    this.#granted();
  }

  /** Runs `wait` with the place lent back; takes it again afterwards, unless the agent was stopped meanwhile. */
  async whileWaiting<T>(wait: () => Promise<T>): Promise<T> {
    if (this.#waits++ === 0) this.#giveBack();
    try {
      return await wait();
    } finally {
      if (--this.#waits === 0 && this.#limiter && !this.#held && !this.#closed && !this.#signal.aborted) {
        await this.#limiter.acquire(this.#signal);
        this.#granted();
      }
    }
  }

  /** Gives the place back while the agent rests (an idle teammate); `take()` takes it again. */
  lend(): void {
    if (this.#waits === 0) this.#giveBack();
  }

  /** Gives the place up for good; later takes do nothing. */
  close(): void {
    this.#closed = true;
    this.#giveBack();
  }

  /** A place granted after the agent ended goes straight back. */
  #granted(): void {
    if (this.#closed) this.#limiter!.release();
    else this.#held = true;
  }

  #giveBack(): void {
    if (!this.#held) return;
    this.#held = false;
    this.#limiter!.release();
  }
}
