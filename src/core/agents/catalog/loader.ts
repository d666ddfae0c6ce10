import path from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { listAgentFiles, readAgentFileSync, readAgentFilesSync, SLICE_MS, sliceClock, type FileRead, type FileStamp, type ListedFile, type ReadRequest } from '../sources/agentFiles';
import { FileWarnings } from '../interpretation/interpret';
import { parseAgentText, type ParsedAgentFile } from '../parsing/parse';
import type { FileOutcome } from './precedence';
import type { OutcomeStoreAccess } from './outcomeStore';
import type { AgentDir } from '../sources/sources';

/**
 * Reads agents dirs into per-file outcomes, with a parse cache keyed by file
 * path and stamp (mtime, size, inode): re-reading a dir after one file
 * changed parses only that file. Used by one-shot discovery and, kept alive,
 * by the watching catalog.
 */

export interface LoaderHooks {
  /** Called right before a file is opened (tests use it to delete files mid-scan). */
  beforeRead?(filePath: string): void;
  /** Called for each file actually parsed (not served from the cache); a throw here counts as that file's parse failing. */
  onParse?(filePath: string): void;
}

export interface LoaderOptions {
  maxFileBytes: number;
  hooks?: LoaderHooks;
  /** Outcomes kept between processes (see OutcomeStore): files whose stamp it holds are not read or parsed again. */
  store?: OutcomeStoreAccess;
}

export interface DirScan {
  dir: AgentDir;
  files: FileOutcome[];
}

interface CacheEntry {
  stamp: FileStamp;
  outcome: FileOutcome;
  /** The full scan that last listed the file; older entries are pruned. */
  seen: number;
}

/** One dir's cache, by file path. The same dir may be listed under two sources. */
function dirKey(dir: AgentDir): string {
  return `${dir.source}\0${dir.family ?? ''}\0${dir.pluginName ?? ''}\0${dir.path}`;
}

function compareRelPath(a: FileOutcome, b: FileOutcome): number {
  return a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0;
}

export class AgentLoader {
  private cache = new Map<string, Map<string, CacheEntry>>();
  private scanNumber = 0;
  private parsedSinceDrain: string[] = [];
  /** Files parsed since creation (not cache hits); for tests and the benchmark. */
  parseCount = 0;

  constructor(private readonly options: LoaderOptions) {}

  /**
   * Lists and reads dirs: the files of all dirs, in precedence order, read
   * in batches (see readAgentFilesSync), yielding to the event loop between
   * batches every SLICE_MS. With `prune` (a full scan), cache entries of
   * files no longer listed anywhere are dropped. `listed`: the dirs' files,
   * when the caller has listed them already (see listAgentDirs).
   */
  async scanDirs(dirs: readonly AgentDir[], { prune = true, listed }: { prune?: boolean; listed?: readonly (readonly ListedFile[])[] } = {}): Promise<DirScan[]> {
    const scan = ++this.scanNumber;
    const listings = listed ?? (await Promise.all(dirs.map((dir) => listAgentFiles(dir.path, dir.rules))));
    const scans: DirScan[] = dirs.map((dir) => ({ dir, files: [] }));
    const caches = dirs.map((dir) => this.dirCache(dir));
    // All dirs' files in one list, so that read batches do not end at every dir.
    const requests: ReadRequest[] = [];
    const owners: number[] = [];
    const listedFiles: ListedFile[] = [];
    const store = this.options.store;
    for (let i = 0; i < listings.length; i++) {
      const cache = caches[i]!;
      const key = store ? dirKey(dirs[i]!) : '';
      for (const file of listings[i]!) {
        // A stored outcome seeds the cache: if the file still has its stamp, it is neither read nor parsed.
        const stored = store && !cache.has(file.filePath) ? store.get(key, file) : undefined;
        if (stored) cache.set(file.filePath, { stamp: stored.stamp, outcome: stored.outcome, seen: scan });
        requests.push({ filePath: file.filePath, previous: cache.get(file.filePath)?.stamp });
        owners.push(i);
        listedFiles.push(file);
      }
    }
    let sliceEnd = sliceClock() + SLICE_MS;
    const slice = async () => {
      if (sliceClock() > sliceEnd) {
        await yieldToEventLoop();
        sliceEnd = sliceClock() + SLICE_MS;
      }
    };
    // Every file is read before any is parsed: system calls run faster back to back than between
    // parses (which evict what the kernel's path lookups keep in the CPU caches), ~15% of a cold scan.
    // The texts are all kept anyway (they are the system prompts).
    const reads: FileRead[] = [];
    while (reads.length < requests.length) {
      // A batch is read and decoded synchronously; only between batches is there an await.
      const batch = readAgentFilesSync(requests, reads.length, { maxBytes: this.options.maxFileBytes, deadline: sliceEnd, beforeRead: this.options.hooks?.beforeRead });
      for (const read of batch.reads) reads.push(read);
      await slice();
    }
    for (let k = 0; k < reads.length; k++) {
      const i = owners[k]!;
      const outcome = this.outcome(dirs[i]!, caches[i]!, listedFiles[k]!, reads[k]!, scan);
      if (outcome) scans[i]!.files.push(outcome);
      // The time is checked every few files: one check costs about what a cached file's outcome does.
      if ((k & 15) === 15) await slice();
    }
    // Forget files that are no longer listed, so the cache cannot grow without bound.
    if (prune) {
      const live = new Set(caches);
      // forEach rather than for-of: no [key, value] pair allocated per file.
      this.cache.forEach((cache, key) => {
        if (!live.has(cache)) this.cache.delete(key);
        else
          cache.forEach((entry, filePath) => {
            if (entry.seen !== scan) cache.delete(filePath);
          });
      });
    }
    return scans;
  }

  /** The files parsed since the last call. */
  drainParsed(): string[] {
    const parsed = this.parsedSinceDrain;
    this.parsedSinceDrain = [];
    return parsed;
  }

  /**
   * Re-reads one file of a scanned dir in place (added, edited or deleted).
   * Returns whether the dir's outcomes changed.
   */
  updateFile(scan: DirScan, filePath: string): boolean {
    const relPath = path.relative(scan.dir.path, filePath).split(path.sep).join('/');
    const index = scan.files.findIndex((f) => f.filePath === filePath);
    const before = index === -1 ? undefined : scan.files[index];
    const after = this.readFile(scan.dir, { filePath, relPath });
    if (after === before) return false;
    if (index !== -1) scan.files.splice(index, 1);
    if (after) {
      const at = scan.files.findIndex((f) => compareRelPath(after, f) < 0);
      scan.files.splice(at === -1 ? scan.files.length : at, 0, after);
    }
    return true;
  }

  private dirCache(dir: AgentDir): Map<string, CacheEntry> {
    const key = dirKey(dir);
    let cache = this.cache.get(key);
    if (!cache) {
      cache = new Map();
      this.cache.set(key, cache);
    }
    return cache;
  }

  private readFile(dir: AgentDir, listed: ListedFile): FileOutcome | null {
    const cache = this.dirCache(dir);
    const cached = cache.get(listed.filePath);
    this.options.hooks?.beforeRead?.(listed.filePath);
    const read = readAgentFileSync(listed.filePath, this.options.maxFileBytes, cached?.stamp);
    return this.outcome(dir, cache, listed, read, cached?.seen ?? this.scanNumber);
  }

  /**
   * parseAgentText never throws by design; should a file still find a way
   * (a bug), it is that file that is skipped, not the whole discovery.
   */
  private parse(dir: AgentDir, filePath: string, relPath: string, text: string, hasCarriageReturn: boolean): ParsedAgentFile {
    try {
      this.options.hooks?.onParse?.(filePath);
      return parseAgentText(text, { filePath, relPath, source: dir.source, family: dir.family, pluginName: dir.pluginName ?? null, hasCarriageReturn });
    } catch (error) {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return new FileWarnings(filePath).skip(`reading it failed unexpectedly (${reason}); please report this with the file`);
    }
  }

  /** The outcome of one read, through the cache; `seen` marks the entry as listed by that scan. */
  private outcome(dir: AgentDir, cache: Map<string, CacheEntry>, listed: ListedFile, read: FileRead, seen: number): FileOutcome | null {
    const { filePath, relPath } = listed;
    switch (read.kind) {
      case 'unchanged': {
        const cached = cache.get(filePath);
        if (!cached) return null;
        cached.seen = seen;
        return cached.outcome;
      }
      case 'gone':
        // Deleted between listing and reading: not an agent any more, nothing to report.
        cache.delete(filePath);
        return null;
      case 'skipped': {
        const outcome: FileOutcome = {
          filePath,
          relPath,
          definition: null,
          warnings: [{ filePath, message: `skipped ${path.basename(filePath)}: ${read.reason}` }],
        };
        if (read.stamp) {
          cache.set(filePath, { stamp: read.stamp, outcome, seen });
          this.options.store?.set(dirKey(dir), listed, read.stamp, outcome);
        } else {
          cache.delete(filePath);
        }
        return outcome;
      }
      case 'text': {
        this.parseCount++;
        this.parsedSinceDrain.push(filePath);
        const parsed = this.parse(dir, filePath, relPath, read.text, read.hasCarriageReturn);
        const outcome: FileOutcome = { filePath, relPath, definition: parsed.definition, ...(parsed.siblings ? { siblings: parsed.siblings } : {}), warnings: parsed.warnings };
        cache.set(filePath, { stamp: read.stamp, outcome, seen });
        this.options.store?.set(dirKey(dir), listed, read.stamp, outcome);
        return outcome;
      }
    }
  }
}
