import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isTempFile } from '../atomicFile';

/**
 * Which run files changed in the runs folder, as another process writes
 * them: a terminal's own-process run (`subagents run --no-host`) or a
 * `send --no-host` that continued an agent, while a long-lived process (the
 * agent host) shows the history to its clients. One fs.watch on the folder;
 * each file's changes are taken together (a write is a temp file and a
 * rename), and files this process wrote itself are told apart by their size
 * and time, so its own writes cost no read.
 */

/** Changes to one file within this time are taken together. */
const SETTLE_MS = 50;

export interface RunFileWatchOptions {
  dir: string;
  /** A run file changed that this process did not write as it is now. */
  changed(runId: string): void;
  log(level: 'warn', message: string): void;
}

export class RunFileWatch {
  readonly #options: RunFileWatchOptions;
  /** What this process's last write of each run left on disk: a change event for it is our own. */
  readonly #own = new Map<string, string>();
  readonly #due = new Map<string, NodeJS.Timeout>();
  #watcher: FSWatcher | null = null;

  constructor(options: RunFileWatchOptions) {
    this.#options = options;
    try {
      this.#watcher = watch(options.dir, { persistent: false }, (_event, name) => {
        if (name) this.#event(String(name));
      });
      this.#watcher.on('error', (error) => {
        this.#options.log('warn', `Stopped watching the run history for other processes' runs: ${error.message}`);
        this.dispose();
      });
    } catch (error) {
      this.#options.log('warn', `Cannot watch the run history for other processes' runs: ${(error as Error).message}`);
    }
  }

  /** Called after this process wrote a run's file: the change it causes is not another's. */
  async wrote(runId: string): Promise<void> {
    const mark = await this.#mark(runId);
    if (mark) this.#own.set(runId, mark);
  }

  #event(name: string): void {
    if (!name.endsWith('.json') || isTempFile(name)) return;
    const runId = name.slice(0, -'.json'.length);
    clearTimeout(this.#due.get(runId));
    this.#due.set(
      runId,
      setTimeout(() => {
        this.#due.delete(runId);
        void this.#settled(runId);
      }, SETTLE_MS).unref(),
    );
  }

  async #settled(runId: string): Promise<void> {
    const mark = await this.#mark(runId);
    // Gone (deleted by retention), or as this process last wrote it.
    if (!mark || mark === this.#own.get(runId)) return;
    this.#own.delete(runId);
    this.#options.changed(runId);
  }

  async #mark(runId: string): Promise<string | null> {
    try {
      const s = await stat(path.join(this.#options.dir, `${runId}.json`), { bigint: true });
      return `${s.size}:${s.mtimeNs}:${s.ino}`;
    } catch {
      return null;
    }
  }

  dispose(): void {
    this.#watcher?.close();
    this.#watcher = null;
    for (const timer of this.#due.values()) clearTimeout(timer);
    this.#due.clear();
  }
}
