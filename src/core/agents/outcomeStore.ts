import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FileStamp } from './agentFiles';
import type { FileOutcome } from './precedence';

/**
 * Per-file discovery outcomes kept on disk between runs of a short-lived
 * process (`subagents agents`), keyed by dir and path and trusted while the
 * file keeps its stamp (mtime, size, inode): the same rule the in-memory
 * loader cache follows. A fresh process pays V8's warm-up for every file it
 * parses, several times what the parse costs once warm; with the store, a
 * run parses only what changed since the last one.
 *
 * What is stored is what a listing shows: definitions are kept without their
 * system prompt (the bulk of every file), so definitions served from the
 * store have an empty `systemPrompt`. Listings only: anything that runs
 * agents reads files through a catalog instead.
 *
 * The store is a cache: a missing, unreadable or foreign file is an empty
 * store, and a failed write loses nothing but time.
 */

export interface StoredOutcome {
  stamp: FileStamp;
  outcome: FileOutcome;
}

/** What the loader asks of a store (see LoaderOptions.store). */
export interface OutcomeStoreAccess {
  get(key: string): StoredOutcome | undefined;
  set(key: string, stamp: FileStamp, outcome: FileOutcome): void;
}

interface StoreFile {
  /** The build that wrote it: outcomes of another parser are not trusted. */
  version: string;
  entries: Record<string, StoredOutcome>;
}

export class OutcomeStore implements OutcomeStoreAccess {
  private readonly used = new Set<string>();
  private changed = false;

  private constructor(
    private readonly file: string,
    private readonly version: string,
    /**
     * As parsed from the file, looked up in place rather than copied (thousands
     * of entries, each read once). Keys hold NUL characters (see the loader's
     * dir key), so none can be an Object.prototype name.
     */
    private readonly entries: Record<string, StoredOutcome>,
  ) {}

  /** Opens the store at `file`; entries written by another `version` are dropped. */
  static open(file: string, version: string): OutcomeStore {
    let entries: Record<string, StoredOutcome> = {};
    try {
      const data = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoreFile>;
      if (data.version === version && data.entries && typeof data.entries === 'object') entries = data.entries;
    } catch {
      // Missing or unreadable: start empty.
    }
    return new OutcomeStore(file, version, entries);
  }

  get(key: string): StoredOutcome | undefined {
    if (!Object.hasOwn(this.entries, key)) return undefined;
    this.used.add(key);
    return this.entries[key];
  }

  set(key: string, stamp: FileStamp, outcome: FileOutcome): void {
    const definition = outcome.definition && { ...outcome.definition, systemPrompt: '' };
    this.entries[key] = { stamp, outcome: { ...outcome, definition } };
    this.used.add(key);
    this.changed = true;
  }

  /** Writes the store if anything changed, keeping only the entries this run used (so it cannot grow without bound). */
  save(): void {
    if (!this.changed && this.used.size === Object.keys(this.entries).length) return;
    const entries: Record<string, StoredOutcome> = {};
    for (const key of this.used) entries[key] = this.entries[key]!;
    const text = JSON.stringify({ version: this.version, entries } satisfies StoreFile);
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      mkdirSync(path.dirname(this.file), { recursive: true });
      writeFileSync(temp, text);
      // Atomic: another process reading the store sees the old file or the new one, never half of one.
      renameSync(temp, this.file);
    } catch {
      rmSync(temp, { force: true });
    }
  }
}
