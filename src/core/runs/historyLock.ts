import { randomBytes, randomUUID } from 'node:crypto';
import { link, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { KeyedMutex } from '../isolation/mutex';
import { currentOwner, liveInstances, ownerAlive, type ProcessOwner } from '../processOwner';

/**
 * A lock on the run history shared by every process that uses it (a VS Code
 * window, another window, the CLI): whoever reads a file to decide what to
 * write holds it until the write is done, so two processes never both act on
 * the same old state. It is a file created exclusively, with its holder
 * already written in it; a holder that died is detected by pid (as for
 * worktrees) and its lock taken over, so a crash never leaves the history
 * locked. Held for a few file operations at a time.
 */

/** Beyond this, a lock whose holder cannot be checked (another host) is taken as abandoned. */
const FOREIGN_LOCK_MS = 30_000;
/** A lock file naming no holder is abandoned once it is this old (a holder writes it in well under that). */
const UNREADABLE_LOCK_MS = 2000;
/** Nobody holds the lock this long while working: a holder that does is stuck. */
const MAX_WAIT_MS = 60_000;

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
      if (await this.#create()) return;
      const holder = await readHolder(this.#file);
      const waited = Date.now() - started;
      if (waited > MAX_WAIT_MS && holder.owner !== 'unreadable') {
        // A holder that is alive but stuck (stopped in a debugger, suspended): fail clearly rather than hang.
        throw new Error(`The run history is locked by process ${holder.owner.pid} on ${holder.owner.host}, which has held it for over ${MAX_WAIT_MS / 1000} s (${this.#file}).`);
      }
      if (holder.text !== null && abandoned(holder, this.#owner, waited)) {
        // Only the lock judged abandoned is removed, not one a faster waiter took meanwhile.
        if ((await readHolder(this.#file)).text === holder.text) await rm(this.#file, { force: true });
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /**
   * Creates the lock file with its holder already in it: written to a temp
   * file, then hard-linked to the lock's name, which fails if the lock
   * exists. A holder killed at any point never leaves an empty lock file.
   * Where hard links are not supported, an exclusive create and a write.
   */
  async #create(): Promise<boolean> {
    const temp = `${this.#file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temp, JSON.stringify(this.#owner), { mode: 0o600 });
    try {
      await link(temp, this.#file);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
      return this.#createWithoutLink();
    } finally {
      await rm(temp, { force: true });
    }
  }

  async #createWithoutLink(): Promise<boolean> {
    try {
      const handle = await open(this.#file, 'wx', 0o600);
      await handle.writeFile(JSON.stringify(this.#owner));
      await handle.close();
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  }
}

function abandoned(holder: { owner: ProcessOwner | 'unreadable'; ageMs: number }, me: ProcessOwner, waitedMs: number): boolean {
  // A lock file without a readable holder (written by something else, or cut short): stale once it is old.
  if (holder.owner === 'unreadable') return holder.ageMs > UNREADABLE_LOCK_MS;
  if (holder.owner.host !== me.host) return waitedMs > FOREIGN_LOCK_MS;
  return !ownerAlive(holder.owner);
}

/** The lock file's text (null when there is none), the holder it names, and how old it is. */
async function readHolder(file: string): Promise<{ text: string | null; owner: ProcessOwner | 'unreadable'; ageMs: number }> {
  let text: string;
  let ageMs = 0;
  try {
    text = await readFile(file, 'utf8');
    ageMs = Date.now() - (await stat(file)).mtimeMs;
  } catch {
    return { text: null, owner: 'unreadable', ageMs };
  }
  try {
    const owner = JSON.parse(text) as ProcessOwner;
    return { text, owner: typeof owner.pid === 'number' && typeof owner.host === 'string' ? owner : 'unreadable', ageMs };
  } catch {
    return { text, owner: 'unreadable', ageMs };
  }
}
