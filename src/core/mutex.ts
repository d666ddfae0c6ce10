/**
 * An in-process async mutex per key, shared by the layers that serialise work
 * on one resource: worktree git operations run under the lock of the
 * repository's common git dir (so parallel spawns queue up instead of failing
 * on git's lock files), and the run history under its folder's. Other
 * processes are handled by each user's own cross-process step (git's lock
 * retry, the history's lock file).
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
