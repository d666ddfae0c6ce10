/**
 * An in-process async mutex per key: callers in one process queue here in
 * arrival order. FileLock (the run history's lock, and the worktree lock of
 * each repository) builds on it, one queue per lock file, so only one caller
 * per process at a time competes for the file with other processes.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      // Forget the key once nobody queues behind us, so the map does not grow
      // with every repository ever touched.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Whether someone holds or waits for `key` (for tests). */
  isBusy(key: string): boolean {
    return this.tails.has(key);
  }
}
