import path from 'node:path';
import { isAgentFileName, isDirectorySync } from '../sources/agentFiles';
import type { AgentDefinition, DiscoveryWarning, ShadowedDefinition } from '../definition';
import { combineScans, createLoader, sourceOptions, type DiscoveryOptions, type DiscoveryResult } from './discovery';
import { DirWatcher, type WatchBatch } from '../sources/dirWatcher';
import type { AgentLoader, DirScan } from './loader';
import { findAgent, getAgent } from './lookup';
import { resolveAgentDirs, type AgentDir } from '../sources/sources';

/**
 * The live set of agents: discovery kept up to date by
 * watching. Every surface and the engine read from one catalog, so a
 * definition edited mid-session is what the next spawn gets.
 *
 * On a change only the changed files are read and parsed again (the loader
 * caches per-file results by path and stamp); precedence is then recomputed
 * over the cached results, which is cheap.
 */

export interface AgentCatalogOptions extends DiscoveryOptions {
  /** Watch the dirs and update on change; default false. */
  watch?: boolean;
  /** Quiet time before a burst of file events is processed; default 50 ms. */
  debounceMs?: number;
}

export interface AgentCatalogChange {
  /** Files parsed again for this change (cache misses). */
  reparsedFiles: string[];
}

type Listener = (change: AgentCatalogChange) => void;

function sameScans(a: readonly DirScan[], b: readonly DirScan[]): boolean {
  return (
    a.length === b.length &&
    a.every((scan, i) => {
      const other = b[i];
      return other !== undefined && scan.dir.path === other.dir.path && scan.dir.source === other.dir.source &&
        scan.files.length === other.files.length && scan.files.every((file, j) => file === other.files[j]);
    })
  );
}

/** Matches what listing skips: dot-folders, names the dir's rules skip, and files that are not agent files. */
function isIgnoredPath(dir: AgentDir, filePath: string): boolean {
  const rel = path.relative(dir.path, filePath);
  if (rel.startsWith('..')) return true;
  const segments = rel.split(path.sep);
  // A dir standing for single files cares about those names alone (dot-files among them: `.roomodes`).
  if (dir.rules?.only) return !dir.rules.only.includes(segments.join('/'));
  if (segments.some((segment) => segment.startsWith('.') || (dir.rules?.skipUnderscore && segment.startsWith('_')))) return true;
  if (dir.rules?.depth !== undefined && segments.length > dir.rules.depth) return true;
  return !isAgentFileName(segments[segments.length - 1] ?? '', dir.rules, segments.length);
}

function holdsKnownFiles(scan: DirScan, folder: string): boolean {
  const prefix = folder + path.sep;
  return scan.files.some((file) => file.filePath.startsWith(prefix));
}

export class AgentCatalog {
  private readonly loader: AgentLoader;
  private readonly listeners = new Set<Listener>();
  private readonly watcher: DirWatcher | null;
  private scans: DirScan[] = [];
  private sourceWarnings: DiscoveryWarning[] = [];
  private candidates: string[] = [];
  private result: DiscoveryResult = { agents: [], shadowed: [], warnings: [], dirs: [], aliases: {} };
  /** Serialises rescans and watch batches: each sees the previous one's state. */
  private queue: Promise<void> = Promise.resolve();
  private disposed = false;

  private constructor(private readonly options: AgentCatalogOptions) {
    this.loader = createLoader(options);
    this.watcher = options.watch
      ? new DirWatcher({
          debounceMs: options.debounceMs ?? 50,
          maxWaitMs: Math.max(500, (options.debounceMs ?? 50) * 10),
          onBatch: (batch) => void this.enqueue(() => this.applyBatch(batch)),
        })
      : null;
  }

  static async create(options: AgentCatalogOptions): Promise<AgentCatalog> {
    const catalog = new AgentCatalog(options);
    await catalog.enqueue(() => catalog.rescan());
    return catalog;
  }

  /** Winners, in precedence order. */
  get agents(): readonly AgentDefinition[] {
    return this.result.agents;
  }

  get shadowed(): readonly ShadowedDefinition[] {
    return this.result.shadowed;
  }

  get warnings(): readonly DiscoveryWarning[] {
    return this.result.warnings;
  }

  /** The dirs searched, in precedence order. */
  get dirs(): readonly AgentDir[] {
    return this.result.dirs;
  }

  /** Files parsed since the catalog was created (cache misses only). */
  get parseCount(): number {
    return this.loader.parseCount;
  }

  find(name: string): AgentDefinition | undefined {
    return findAgent(this.result.agents, name, this.result.aliases);
  }

  /** Throws `UnknownAgentError` (`Unknown agent "x". Available: …`) for an unknown name. */
  get(name: string): AgentDefinition {
    return getAgent(this.result.agents, name, this.result.aliases);
  }

  onDidChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Re-resolves every dir and re-reads what changed; notifies if anything did. */
  refresh(): Promise<void> {
    return this.enqueue(() => this.rescan());
  }

  dispose(): void {
    this.disposed = true;
    this.watcher?.dispose();
    this.listeners.clear();
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(() => (this.disposed ? undefined : task()));
    // A failed task must not wedge the queue; discovery itself does not throw.
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async rescan(): Promise<void> {
    const sources = await resolveAgentDirs(sourceOptions(this.options));
    const scans = await this.loader.scanDirs(sources.dirs);
    const changed =
      !sameScans(scans, this.scans) || JSON.stringify(sources.warnings) !== JSON.stringify(this.sourceWarnings);
    this.scans = scans;
    this.sourceWarnings = sources.warnings;
    this.candidates = sources.candidates;
    // A dir standing for single files (a project root's `.roomodes`) is watched without its subfolders.
    this.watcher?.reset(scans.map((scan) => ({ path: scan.dir.path, recursive: !scan.dir.rules?.only })), this.candidates);
    this.publish(changed);
  }

  private async applyBatch(batch: WatchBatch): Promise<void> {
    const gone = this.scans.some((scan) => !isDirectorySync(scan.dir.path));
    if (batch.structural || gone) return this.rescan();
    let changed = false;
    for (const [dirPath, files] of batch.content) {
      // Several dirs may share a folder (a project root holds `.roomodes` and `opencode.json`): each reads its own files.
      for (const scan of this.scans) {
        if (scan.dir.path !== dirPath) continue;
        // A folder appeared, vanished or moved: which files it held is unknown, so relist the dir.
        const wholeDir = files === null || (!scan.dir.rules?.only && [...files].some((f) => isDirectorySync(f) || holdsKnownFiles(scan, f)));
        if (wholeDir) {
          const [rescanned] = await this.loader.scanDirs([scan.dir], { prune: false });
          if (rescanned && !sameScans([rescanned], [scan])) {
            scan.files = rescanned.files;
            changed = true;
          }
          continue;
        }
        for (const filePath of files) {
          if (isIgnoredPath(scan.dir, filePath)) continue;
          if (this.loader.updateFile(scan, filePath)) changed = true;
        }
      }
    }
    this.publish(changed);
  }

  private publish(changed: boolean): void {
    const reparsedFiles = this.loader.drainParsed();
    if (!changed) return;
    this.result = combineScans(this.scans, this.sourceWarnings);
    for (const listener of [...this.listeners]) {
      try {
        listener({ reparsedFiles });
      } catch {
        // One faulty listener must not stop the others from hearing about the change.
      }
    }
  }
}
