import path from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { listAgentFiles, readAgentFileSync, type FileStamp, type ListedFile } from './agentFiles';
import { parseAgentText } from './parse';
import type { FileOutcome } from './precedence';
import type { AgentDir } from './sources';

/**
 * Reads agents dirs into per-file outcomes, with a parse cache keyed by file
 * path and stamp (mtime, size, inode): re-reading a dir after one file
 * changed parses only that file. Used by one-shot discovery and, kept alive,
 * by the watching catalog.
 */

export interface LoaderHooks {
  /** Called right before a file is opened (tests use it to delete files mid-scan). */
  beforeRead?(filePath: string): void;
  /** Called for each file actually parsed (not served from the cache). */
  onParse?(filePath: string): void;
}

export interface LoaderOptions {
  maxFileBytes: number;
  hooks?: LoaderHooks;
}

export interface DirScan {
  dir: AgentDir;
  files: FileOutcome[];
}

interface CacheEntry {
  stamp: FileStamp;
  outcome: FileOutcome;
}

/** Synchronous reading runs in slices this long, then yields to the event loop. */
const SLICE_MS = 8;

function cacheKey(dir: AgentDir, filePath: string): string {
  return `${dir.source}\0${dir.family ?? ''}\0${filePath}`;
}

function compareRelPath(a: FileOutcome, b: FileOutcome): number {
  return a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0;
}

export class AgentLoader {
  private cache = new Map<string, CacheEntry>();
  private parsedSinceDrain: string[] = [];
  /** Files parsed since creation (not cache hits); for tests and the benchmark. */
  parseCount = 0;

  constructor(private readonly options: LoaderOptions) {}

  /**
   * Lists and reads dirs; listings run concurrently, reads in order. With
   * `prune` (a full scan), cache entries of files no longer listed anywhere
   * are dropped.
   */
  async scanDirs(dirs: readonly AgentDir[], { prune = true }: { prune?: boolean } = {}): Promise<DirScan[]> {
    // Listing is asynchronous (fast-glob), so all dirs are listed at once; reading is synchronous.
    const listings = await Promise.all(dirs.map((dir) => listAgentFiles(dir.path)));
    const scans: DirScan[] = [];
    const live = new Set<string>();
    let sliceStart = performance.now();
    for (const [i, dir] of dirs.entries()) {
      const files: FileOutcome[] = [];
      for (const listed of listings[i] ?? []) {
        live.add(cacheKey(dir, listed.filePath));
        const outcome = this.readFile(dir, listed);
        if (outcome) files.push(outcome);
        if (performance.now() - sliceStart > SLICE_MS) {
          await yieldToEventLoop();
          sliceStart = performance.now();
        }
      }
      scans.push({ dir, files });
    }
    // Forget files that are no longer listed, so the cache cannot grow without bound.
    if (prune) for (const key of this.cache.keys()) if (!live.has(key)) this.cache.delete(key);
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

  private readFile(dir: AgentDir, listed: ListedFile): FileOutcome | null {
    const key = cacheKey(dir, listed.filePath);
    const cached = this.cache.get(key);
    this.options.hooks?.beforeRead?.(listed.filePath);
    const read = readAgentFileSync(listed.filePath, this.options.maxFileBytes, cached?.stamp);
    switch (read.kind) {
      case 'unchanged':
        if (cached) return cached.outcome;
        return null;
      case 'gone':
        // Deleted between listing and reading: not an agent any more, nothing to report.
        this.cache.delete(key);
        return null;
      case 'skipped': {
        const outcome: FileOutcome = {
          filePath: listed.filePath,
          relPath: listed.relPath,
          definition: null,
          warnings: [{ filePath: listed.filePath, message: `skipped ${path.basename(listed.filePath)}: ${read.reason}` }],
        };
        if (read.stamp) this.cache.set(key, { stamp: read.stamp, outcome });
        else this.cache.delete(key);
        return outcome;
      }
      case 'text': {
        this.parseCount++;
        this.parsedSinceDrain.push(listed.filePath);
        this.options.hooks?.onParse?.(listed.filePath);
        const parsed = parseAgentText(read.text, { filePath: listed.filePath, source: dir.source, family: dir.family });
        const outcome: FileOutcome = { filePath: listed.filePath, relPath: listed.relPath, ...parsed };
        this.cache.set(key, { stamp: read.stamp, outcome });
        return outcome;
      }
    }
  }
}
