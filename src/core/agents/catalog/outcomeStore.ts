import { readFileSync } from 'node:fs';
import { writeCacheFileSync } from '../../atomicFile';
import type { FileStamp, ListedFile } from '../sources/agentFiles';
import { DEFINITION_DEFAULTS, type AgentDefinition, type DiscoveryWarning } from '../definition';
import type { FileOutcome } from './precedence';

/**
 * Per-file discovery outcomes kept on disk between runs of a short-lived
 * process (`subagents agents`), by dir and file, trusted while the file keeps
 * its stamp (mtime, size, inode): the same rule the in-memory loader cache
 * follows. A fresh process pays V8's warm-up for every file it parses,
 * several times what the parse costs once warm; with the store, a run parses
 * only what changed since the last one.
 *
 * What is stored is what a listing shows: definitions are kept without their
 * system prompt (the bulk of every file), so definitions served from the
 * store have an empty `systemPrompt`. Listings only: anything that runs
 * agents reads files through a catalog instead.
 *
 * Reading the file is a large part of what a warm listing costs, so it is
 * compact (see StoreFile): on 2,000 files 0.69 MB instead of the 2.25 MB of
 * the outcomes written as they are held, parsed in a fresh process in about
 * half the time (6–9 ms against 12–20 ms).
 *
 * The store is a cache: a missing, unreadable or foreign file is an empty
 * store, and a failed write loses nothing but time.
 */

/** What the loader asks of a store (see LoaderOptions.store). `dir` is the loader's key of the dir the file was listed in. */
export interface OutcomeStoreAccess {
  get(dir: string, file: ListedFile): StoredOutcome | undefined;
  set(dir: string, file: ListedFile, stamp: FileStamp, outcome: FileOutcome): void;
}

export interface StoredOutcome {
  stamp: FileStamp;
  outcome: FileOutcome;
}

/**
 * One file: its stamp, its definition (null: skipped) as a Stored definition,
 * and its warnings, each a message when it is about the file itself.
 */
type StoredEntry = [mtimeMs: number, size: number, ino: number, definition: StoredDefinition | null, warnings: Array<string | DiscoveryWarning>, siblings?: StoredDefinition[]];

/** A definition without what the listing gives back (its path, its empty system prompt) and without the fields that hold their TEMPLATE value. */
type StoredDefinition = Partial<AgentDefinition>;

interface StoreFile {
  /** The build that wrote it: outcomes of another parser are not trusted. */
  version: string;
  /** By the loader's dir key, then the file's path relative to the dir. */
  dirs: Record<string, Record<string, StoredEntry>>;
}

/**
 * The parser's defaults: a field that holds its default is left out of the
 * file and put back on reading, from this one object, so every definition
 * read back has one shape (definitions of varying shapes made precedence and
 * rendering polymorphic: a warm listing ran 20 ms slower).
 */
const TEMPLATE = DEFINITION_DEFAULTS;
// Required<AgentDefinition>: a field added to definitions must be given its default there, or the store would drop it.
const FIELDS = Object.keys(TEMPLATE) as Array<keyof AgentDefinition>;

function isEmpty(value: unknown): boolean {
  return Array.isArray(value) ? value.length === 0 : value !== null && typeof value === 'object' && Object.keys(value).length === 0;
}

function sameAsTemplate(key: keyof AgentDefinition, value: unknown): boolean {
  const common = TEMPLATE[key];
  return value === common || (typeof common === 'object' && common !== null && isEmpty(common) && isEmpty(value) && Array.isArray(value) === Array.isArray(common));
}

function storedDefinition(definition: AgentDefinition): StoredDefinition {
  const stored: StoredDefinition = {};
  for (const key of FIELDS) {
    // The path is the listed file's, the system prompt is not kept.
    if (key === 'filePath' || key === 'systemPrompt' || sameAsTemplate(key, definition[key])) continue;
    (stored as Record<string, unknown>)[key] = definition[key];
  }
  // A layer's prompt is the system prompt again (opencode's merge reads it from there): not kept either.
  if (stored.layer && 'prompt' in stored.layer) {
    const { prompt: _prompt, ...layer } = stored.layer;
    stored.layer = layer;
  }
  return stored;
}

function definitionOf(stored: StoredDefinition, filePath: string): AgentDefinition {
  return { ...TEMPLATE, ...stored, filePath };
}

function entryOf(stamp: FileStamp, outcome: FileOutcome): StoredEntry {
  const warnings = outcome.warnings.map((w) => (w.filePath === outcome.filePath ? w.message : w));
  const entry: StoredEntry = [stamp.mtimeMs, stamp.size, stamp.ino, outcome.definition && storedDefinition(outcome.definition), warnings];
  if (outcome.siblings) entry.push(outcome.siblings.map(storedDefinition));
  return entry;
}

function outcomeOf(entry: StoredEntry, file: ListedFile): StoredOutcome {
  const [mtimeMs, size, ino, definition, warnings, siblings] = entry;
  const { filePath, relPath } = file;
  return {
    stamp: { mtimeMs, size, ino },
    outcome: {
      filePath,
      relPath,
      definition: definition && definitionOf(definition, filePath),
      ...(siblings ? { siblings: siblings.map((sibling) => definitionOf(sibling, filePath)) } : {}),
      warnings: warnings.map((w) => (typeof w === 'string' ? { filePath, message: w } : w)),
    },
  };
}

export class OutcomeStore implements OutcomeStoreAccess {
  /** What the next save writes: the entries this run used, so the file cannot grow without bound. */
  private readonly used: StoreFile['dirs'] = Object.create(null) as StoreFile['dirs'];
  private changed = false;

  private constructor(
    private readonly file: string,
    private readonly version: string,
    /** As parsed from the file, looked up in place rather than copied (thousands of entries, each read once). */
    private readonly dirs: StoreFile['dirs'],
  ) {}

  /** Opens the store at `file`; entries written by another `version` are dropped. */
  static open(file: string, version: string): OutcomeStore {
    let dirs: StoreFile['dirs'] = {};
    try {
      const data = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoreFile>;
      if (data.version === version && data.dirs && typeof data.dirs === 'object') dirs = data.dirs;
    } catch {
      // Missing or unreadable: start empty.
    }
    return new OutcomeStore(file, version, dirs);
  }

  get(dir: string, file: ListedFile): StoredOutcome | undefined {
    const entries = Object.hasOwn(this.dirs, dir) ? this.dirs[dir]! : undefined;
    const entry = entries && Object.hasOwn(entries, file.relPath) ? entries[file.relPath] : undefined;
    if (!entry) return undefined;
    this.usedIn(dir)[file.relPath] = entry;
    return outcomeOf(entry, file);
  }

  set(dir: string, file: ListedFile, stamp: FileStamp, outcome: FileOutcome): void {
    this.usedIn(dir)[file.relPath] = entryOf(stamp, outcome);
    this.changed = true;
  }

  /** Writes the store if anything changed or an entry went unused. */
  save(): void {
    if (!this.changed && !this.anyUnused()) return;
    writeCacheFileSync(this.file, JSON.stringify({ version: this.version, dirs: this.used } satisfies StoreFile));
  }

  private usedIn(dir: string): Record<string, StoredEntry> {
    return (this.used[dir] ??= Object.create(null) as Record<string, StoredEntry>);
  }

  private anyUnused(): boolean {
    for (const dir of Object.keys(this.dirs)) {
      if (Object.keys(this.dirs[dir]!).length !== (this.used[dir] ? Object.keys(this.used[dir]).length : 0)) return true;
    }
    return false;
  }
}
