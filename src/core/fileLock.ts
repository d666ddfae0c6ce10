import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { link, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { KeyedMutex } from './mutex';
import { currentOwner, liveInstances, ownerAlive, type ProcessOwner } from './processOwner';

/**
 * A lock every process honours (a VS Code window, another window, the CLI):
 * the run history takes one so that whoever reads a file to decide what to
 * write holds it until the write is done; worktree isolation takes one per
 * repository around git's shared worktree bookkeeping and the pool of
 * reusable worktrees. It is a file created exclusively, with its holder
 * already written in it; a holder that died is detected by pid (as for
 * worktrees) and its lock taken over, so a crash never leaves anything
 * locked. Held for a few file or git operations at a time.
 *
 * Taking over must not let two waiters both win: each acquisition writes a
 * token of its own into the lock, the one waiter that creates the claim file
 * for an abandoned lock's token may remove it (after moving it aside and
 * checking it moved that lock), and a holder removes the lock at the end only
 * if it still holds its token.
 */

/** Beyond this, a lock whose holder cannot be checked (another host) is taken as abandoned. */
const FOREIGN_LOCK_MS = 30_000;
/** A lock file naming no holder is abandoned once it is this old (a holder writes it in well under that). */
const UNREADABLE_LOCK_MS = 2000;
/**
 * Nobody holds the lock this long while working: a holder that does is stuck.
 * Counted per holder, so a waiter behind a queue of short holders (32
 * spawns creating worktrees at once) waits its turn rather than failing.
 */
const MAX_HOLD_MS = 60_000;
/**
 * Claims outlive their takeover by this much, so a waiter that judged the
 * same lock abandoned a moment ago finds the claim taken and keeps waiting.
 */
const CLAIM_KEPT_MS = 10 * 60_000;
/** A takeover takes milliseconds: a claim this old on a lock still there was left by a waiter that died. */
const CLAIM_STALE_MS = 5000;

/** Callers in this process queue here first: the lock file itself only tells processes apart. */
const inProcess = new KeyedMutex();

export class FileLock {
  readonly #file: string;
  readonly #owner: ProcessOwner;
  readonly #what: string;
  readonly #maxHoldMs: number;

  /** `what` names the locked thing in the error for a stuck holder ("The run history"); `maxHoldMs` is for tests. */
  constructor(file: string, what = 'This lock', maxHoldMs = MAX_HOLD_MS) {
    this.#file = file;
    this.#what = what;
    this.#maxHoldMs = maxHoldMs;
    const instance = randomUUID();
    liveInstances.add(instance);
    this.#owner = currentOwner(instance);
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    return inProcess.run(this.#file, async () => {
      const text = JSON.stringify({ ...this.#owner, token: randomUUID() });
      await this.#acquire(text);
      try {
        return await fn();
      } finally {
        // A lock taken over from us (judged abandoned) is someone else's now: leave it.
        if ((await readLockFile(this.#file))?.text === text) await rm(this.#file, { force: true });
      }
    });
  }

  /**
   * Runs `fn` holding the lock if nobody else holds it (a holder that died is
   * taken over); otherwise runs nothing and says so. For work that only one
   * process needs to do and any of them may (the pool's upkeep).
   */
  async tryRun<T>(fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    return inProcess.run(this.#file, async () => {
      const text = JSON.stringify({ ...this.#owner, token: randomUUID() });
      for (;;) {
        if (await this.#create(text)) break;
        const holder = await readHolder(this.#file);
        if (!holder.file) continue;
        if (!abandoned(holder, this.#owner, 0)) return { ran: false as const };
        await this.#takeOver(holder.file);
      }
      try {
        return { ran: true as const, value: await fn() };
      } finally {
        if ((await readLockFile(this.#file))?.text === text) await rm(this.#file, { force: true });
      }
    });
  }

  async #acquire(text: string): Promise<void> {
    let seen: string | undefined;
    let seenSince = Date.now();
    for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
      if (await this.#create(text)) return;
      const holder = await readHolder(this.#file);
      if (holder.file?.text !== seen) {
        seen = holder.file?.text;
        seenSince = Date.now();
      }
      const held = Date.now() - seenSince;
      if (held > this.#maxHoldMs && holder.owner !== 'unreadable') {
        // A holder that is alive but stuck (stopped in a debugger, suspended): fail clearly rather than hang.
        throw new Error(`${this.#what} is locked by process ${holder.owner.pid} on ${holder.owner.host}, which has held it for over ${Math.round(this.#maxHoldMs / 1000)} s (${this.#file}).`);
      }
      if (holder.file && abandoned(holder, this.#owner, held)) {
        await this.#takeOver(holder.file);
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /**
   * Removes the abandoned lock `stale`, if this waiter is the one to claim
   * it. The claim file (named for that lock file: text, inode and mtime) is
   * created exclusively, so of the waiters that judged it abandoned one goes
   * on. The lock is moved aside rather than removed, and put back should it
   * not be the one judged (its holder let go and another took it). A claim
   * still there long after it was made, with the lock unchanged, is one
   * whose claimer died in between: it is taken over in turn.
   */
  async #takeOver(stale: LockFile): Promise<void> {
    const claim = `${this.#file}.${createHash('sha256').update(`${stale.ino}:${stale.mtimeNs}:${stale.text}`).digest('hex').slice(0, 16)}.claim`;
    try {
      await writeFile(claim, '', { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const made = await stat(claim).catch(() => null);
      if (!made || Date.now() - made.mtimeMs < CLAIM_STALE_MS) return;
    }
    const aside = `${this.#file}.${process.pid}-${randomBytes(4).toString('hex')}.stale`;
    try {
      await rename(this.#file, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    try {
      if (!sameLockFile(await readLockFile(aside), stale)) await link(aside, this.#file).catch(() => undefined);
    } finally {
      await rm(aside, { force: true });
    }
    await this.#removeOldClaims();
  }

  async #removeOldClaims(): Promise<void> {
    const dir = path.dirname(this.#file);
    const prefix = `${path.basename(this.#file)}.`;
    const names = await readdir(dir).catch(() => [] as string[]);
    await Promise.all(
      names
        .filter((name) => name.startsWith(prefix) && name.endsWith('.claim'))
        .map(async (name) => {
          const file = path.join(dir, name);
          const info = await stat(file).catch(() => null);
          if (info && Date.now() - info.mtimeMs > CLAIM_KEPT_MS) await rm(file, { force: true });
        }),
    );
  }

  /**
   * Creates the lock file with its holder already in it: written to a temp
   * file, then hard-linked to the lock's name, which fails if the lock
   * exists. A holder killed at any point never leaves an empty lock file.
   * Where hard links are not supported, an exclusive create and a write.
   */
  async #create(text: string): Promise<boolean> {
    const temp = `${this.#file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temp, text, { mode: 0o600 });
    try {
      await link(temp, this.#file);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
      return this.#createWithoutLink(text);
    } finally {
      await rm(temp, { force: true });
    }
  }

  async #createWithoutLink(text: string): Promise<boolean> {
    try {
      const handle = await open(this.#file, 'wx', 0o600);
      await handle.writeFile(text);
      await handle.close();
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  }
}

function abandoned(holder: { owner: ProcessOwner | 'unreadable'; ageMs: number }, me: ProcessOwner, heldMs: number): boolean {
  // A lock file without a readable holder (written by something else, or cut short): stale once it is old.
  if (holder.owner === 'unreadable') return holder.ageMs > UNREADABLE_LOCK_MS;
  if (holder.owner.host !== me.host) return heldMs > FOREIGN_LOCK_MS;
  return !ownerAlive(holder.owner);
}

/** A lock file as found: what it says, and what tells it from a later file of the same text. */
interface LockFile {
  text: string;
  ino: bigint;
  mtimeNs: bigint;
}

/** The lock file at `file`, read and stat-ed through one handle (so both are of the same file); null when there is none. */
async function readLockFile(file: string): Promise<LockFile | null> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return null;
  }
  try {
    const [text, info] = await Promise.all([handle.readFile('utf8'), handle.stat({ bigint: true })]);
    return { text, ino: info.ino, mtimeNs: info.mtimeNs };
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

function sameLockFile(a: LockFile | null, b: LockFile): boolean {
  return a !== null && a.text === b.text && a.ino === b.ino && a.mtimeNs === b.mtimeNs;
}

/** The lock file (null when there is none), the holder it names, and how old it is. */
async function readHolder(file: string): Promise<{ file: LockFile | null; owner: ProcessOwner | 'unreadable'; ageMs: number }> {
  const found = await readLockFile(file);
  if (!found) return { file: null, owner: 'unreadable', ageMs: 0 };
  const ageMs = Date.now() - Number(found.mtimeNs / 1_000_000n);
  try {
    const owner = JSON.parse(found.text) as ProcessOwner;
    return { file: found, owner: typeof owner.pid === 'number' && typeof owner.host === 'string' ? owner : 'unreadable', ageMs };
  } catch {
    return { file: found, owner: 'unreadable', ageMs };
  }
}
