import { randomUUID } from 'node:crypto';
import { open, readFile, rm } from 'node:fs/promises';
import { KeyedMutex } from '../isolation/mutex';
import { currentOwner, liveInstances, ownerAlive, type ProcessOwner } from '../processOwner';

/**
 * A lock on the run history shared by every process that uses it (a VS Code
 * window, another window, the CLI): whoever reads a file to decide what to
 * write holds it until the write is done, so two processes never both act on
 * the same old state. It is a file created exclusively (`wx`) holding its
 * holder; a holder that died is detected by pid (as for worktrees) and its
 * lock taken over, so a crash never leaves the history locked. Held for a
 * few file operations at a time.
 */

/** Beyond this, a lock whose holder cannot be checked (another host) is taken as abandoned. */
const FOREIGN_LOCK_MS = 30_000;

/** Callers in this process queue here first: the lock file itself only tells processes apart. */
const inProcess = new KeyedMutex();

export class HistoryLock {
  readonly #file: string;
  readonly #owner: ProcessOwner;

  constructor(file: string) {
    this.#file = file;
    const instance = randomUUID();
    liveInstances.add(instance);
    this.#owner = currentOwner(instance);
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    return inProcess.run(this.#file, async () => {
      await this.#acquire();
      try {
        return await fn();
      } finally {
        await rm(this.#file, { force: true });
      }
    });
  }

  async #acquire(): Promise<void> {
    const started = Date.now();
    for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
      try {
        const handle = await open(this.#file, 'wx', 0o600);
        await handle.writeFile(JSON.stringify(this.#owner));
        await handle.close();
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = await readHolder(this.#file);
      if (holder.text !== null && abandoned(holder.owner, this.#owner, Date.now() - started)) {
        // Only the lock judged abandoned is removed, not one a faster waiter took meanwhile.
        if ((await readHolder(this.#file)).text === holder.text) await rm(this.#file, { force: true });
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

function abandoned(holder: ProcessOwner | 'unreadable', me: ProcessOwner, waitedMs: number): boolean {
  // An empty or torn lock file: its holder died while writing it (or is writing it this instant).
  if (holder === 'unreadable') return waitedMs > 2000;
  if (holder.host !== me.host) return waitedMs > FOREIGN_LOCK_MS;
  return !ownerAlive(holder);
}

/** The lock file's text (null when there is none) and the holder it names. */
async function readHolder(file: string): Promise<{ text: string | null; owner: ProcessOwner | 'unreadable' }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { text: null, owner: 'unreadable' };
  }
  try {
    const owner = JSON.parse(text) as ProcessOwner;
    return { text, owner: typeof owner.pid === 'number' && typeof owner.host === 'string' ? owner : 'unreadable' };
  } catch {
    return { text, owner: 'unreadable' };
  }
}
