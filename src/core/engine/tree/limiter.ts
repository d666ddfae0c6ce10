/**
 * A FIFO counting semaphore: at most `limit` holders; the rest wait in call
 * order. Waiting can be abandoned through an AbortSignal.
 */
export class Semaphore {
  #available: number;
  readonly #queue: Array<{ grant: () => void; reject: (reason: unknown) => void }> = [];

  constructor(readonly limit: number) {
    this.#available = limit;
  }

  get waiting(): number {
    return this.#queue.length;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#available > 0) {
      this.#available--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
      };
      const onAbort = () => {
        const i = this.#queue.indexOf(entry);
        if (i >= 0) this.#queue.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(entry);
    });
  }

  release(): void {
    const next = this.#queue.shift();
    if (next) next.grant();
    else this.#available = Math.min(this.limit, this.#available + 1);
  }
}
