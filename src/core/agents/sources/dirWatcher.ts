import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { isDirectorySync } from './agentFiles';

/**
 * The file-system watching behind the catalog, on node's
 * fs.watch (recursive on Linux since Node 20, native on macOS and Windows).
 * Two kinds of watch:
 *
 * - content: an agents dir, recursively; reports each changed path in it.
 * - structure: a path that does not exist yet (a project's `.claude/agents`
 *   created later) or a file outside the agents dirs that changes which dirs
 *   exist (Claude Code's plugin registry), or an agents dir's own entry in
 *   its parent (deleted or replaced). Its deepest existing ancestor is watched
 *   non-recursively, and only events naming the next path segment count.
 *
 * Events are collected and debounced: editors save in bursts (write, rename,
 * chmod), and a `git checkout` touches many files at once.
 */

export interface WatchBatch {
  /** Changed paths per content dir (absolute); null: rescan the whole dir. */
  content: Map<string, Set<string> | null>;
  /** Some structure watch fired: the set of dirs may differ. */
  structural: boolean;
}

/** A folder whose files are watched. */
export interface ContentDir {
  path: string;
  /** Its subfolders too. */
  recursive: boolean;
}

export interface DirWatcherOptions {
  debounceMs: number;
  /** A burst that never pauses is still delivered after this long. */
  maxWaitMs: number;
  onBatch(batch: WatchBatch): void;
}

function deepestExistingAncestor(target: string): string | null {
  let current = path.dirname(target);
  for (;;) {
    if (isDirectorySync(current)) return current;
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

export class DirWatcher {
  private watchers: FSWatcher[] = [];
  private pending: WatchBatch = { content: new Map(), structural: false };
  private timer: NodeJS.Timeout | undefined;
  private firstEventAt: number | null = null;
  private disposed = false;

  constructor(private readonly options: DirWatcherOptions) {}

  /**
   * Replaces every watch with watches on these paths. A content dir that is
   * not recursive (one standing for single files in a project's root) is
   * watched without its subfolders; a folder listed twice is watched once,
   * recursively if either asks for it.
   */
  reset(contentDirs: readonly ContentDir[], structurePaths: readonly string[]): void {
    this.closeWatchers();
    const recursiveByPath = new Map<string, boolean>();
    for (const dir of contentDirs) recursiveByPath.set(dir.path, (recursiveByPath.get(dir.path) ?? false) || dir.recursive);
    for (const [dir, recursive] of recursiveByPath) {
      this.open(dir, recursive, (filename) => this.addContent(dir, filename === null ? null : path.join(dir, filename)));
    }
    const byAncestor = new Map<string, Set<string>>();
    for (const target of [...structurePaths, ...recursiveByPath.keys()]) {
      const ancestor = deepestExistingAncestor(target);
      if (!ancestor) continue;
      const segment = path.relative(ancestor, target).split(path.sep)[0];
      if (!segment) continue;
      const names = byAncestor.get(ancestor) ?? new Set<string>();
      names.add(segment);
      byAncestor.set(ancestor, names);
    }
    for (const [ancestor, names] of byAncestor) {
      this.open(ancestor, false, (filename) => {
        if (filename === null || names.has(filename)) this.addStructural();
      });
    }
  }

  dispose(): void {
    this.disposed = true;
    this.closeWatchers();
    clearTimeout(this.timer);
  }

  private open(target: string, recursive: boolean, onEvent: (filename: string | null) => void): void {
    let watcher: FSWatcher;
    try {
      // Not persistent: a process (the CLI, a test) may exit while a catalog still watches.
      watcher = watch(target, { recursive, persistent: false }, (_event, filename) => onEvent(filename === null ? null : String(filename)));
    } catch {
      // Vanished before we got to it, no permission, or out of inotify watches.
      // Retrying here could spin; the structure watch on the parent sees the
      // dir come back, and refresh() always rescans.
      return;
    }
    // Same reasoning: a failing watcher (its dir deleted) is dropped, and the
    // parent's structure watch reports the deletion.
    watcher.on('error', () => watcher.close());
    this.watchers.push(watcher);
  }

  private closeWatchers(): void {
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
  }

  private addContent(dir: string, filePath: string | null): void {
    const current = this.pending.content.get(dir);
    if (filePath === null) this.pending.content.set(dir, null);
    else if (current !== null) this.pending.content.set(dir, (current ?? new Set()).add(filePath));
    this.schedule();
  }

  private addStructural(): void {
    this.pending.structural = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.disposed) return;
    const now = Date.now();
    this.firstEventAt ??= now;
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.options.debounceMs, this.firstEventAt + this.options.maxWaitMs - now));
    this.timer = setTimeout(() => this.flush(), wait);
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = { content: new Map(), structural: false };
    this.firstEventAt = null;
    if (!this.disposed) this.options.onBatch(batch);
  }
}
