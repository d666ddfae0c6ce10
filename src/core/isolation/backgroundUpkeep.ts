import type { WorktreeManager } from './manager';
import type { UpkeepReport } from './upkeep';

/**
 * The pool's upkeep (upkeep.ts) as a service of a long-lived process: the
 * extension host, an agent host. A pass runs a moment after anything gave
 * the pool work (a discard, a fan-out that drained it, leftovers found at
 * start-up) and only while no agent of this process is at work; a pass that
 * an agent interrupts, or that leaves work, is tried again later. Another
 * process's pass under way makes this one wait its turn.
 */

export interface BackgroundUpkeepOptions {
  /** Whether an agent of this process is at work now (the upkeep never competes with one). */
  busy: () => boolean;
  /** Quiet time before a pass, and between tries while busy (default 2 s). */
  delayMs?: number;
  log?: (level: 'info' | 'warn', message: string) => void;
  /** Told after each pass (tests and the log). */
  onPass?: (report: UpkeepReport) => void;
  /**
   * Also hear of other processes' changes to the pool (a window's discard, a
   * CLI run's hand-backs), through the pool's folders: the process that keeps
   * the pool for everyone (the agent host) sets it.
   */
  watchOthers?: boolean;
  /**
   * Also look this often whether the pool has work nobody told of (the
   * user's new commit, new checkout settings: a pool they made unusable is
   * refilled before the next fan-out needs it). One `upkeepPending` check,
   * a few git reads, when nothing else is due.
   */
  recheckMs?: number;
}

export class BackgroundUpkeep {
  #timer: NodeJS.Timeout | undefined;
  #recheck: NodeJS.Timeout | undefined;
  #running: Promise<void> | null = null;
  #disposed = false;
  #waiters: Array<() => void> = [];
  readonly #unsubscribe: Array<() => void>;

  constructor(
    private readonly manager: WorktreeManager,
    private readonly opts: BackgroundUpkeepOptions,
  ) {
    this.#unsubscribe = [manager.onPoolChange(() => this.schedule())];
    // A pass's own writes are seen by its end (upkeepPending), so only what happens between passes counts.
    if (opts.watchOthers) this.#unsubscribe.push(manager.watchPool(() => this.#running || this.schedule()));
    // What a process before this one left (a discard it had no time to clean up after, the trash).
    this.schedule();
    if (opts.recheckMs) {
      this.#recheck = setInterval(() => this.schedule(), opts.recheckMs);
      this.#recheck.unref();
    }
  }

  /** A pass soon, unless one is due already. */
  schedule(delayMs = this.opts.delayMs ?? 2000): void {
    if (this.#disposed || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#running) return void this.#running.then(() => this.schedule(0));
      this.#running = this.#pass().finally(() => {
        this.#running = null;
        this.#settle();
      });
    }, delayMs);
    // A pass waiting to run never keeps the process alive.
    this.#timer.unref();
  }

  async #pass(): Promise<void> {
    if (this.opts.busy()) return this.schedule();
    try {
      // Nothing to do is the common answer to a nudge; it costs no lock and no report.
      if (!(await this.manager.upkeepPending())) return;
      const report = await this.manager.maintain({ shouldStop: this.opts.busy });
      if (!report) {
        // Another process is at it; see afterwards whether anything is left.
        this.schedule((this.opts.delayMs ?? 2000) * 5);
        return;
      }
      this.opts.onPass?.(report);
      const did = report.cleaned + report.evicted + report.deleted + report.filled + report.moved;
      if (did) this.opts.log?.('info', `Worktree pool: ${describe(report)}.`);
      if (report.stopped || (await this.manager.upkeepPending())) this.schedule();
    } catch (error) {
      this.opts.log?.('warn', `The worktree pool's upkeep failed: ${error instanceof Error ? error.message : String(error)}; it is tried again later.`);
      this.schedule((this.opts.delayMs ?? 2000) * 15);
    }
  }

  #settle(): void {
    if (this.#timer || this.#running) return;
    for (const resolve of this.#waiters.splice(0)) resolve();
  }

  /** Resolves once no pass is running or due (for tests, and a clean exit). */
  idle(): Promise<void> {
    if (!this.#timer && !this.#running) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  dispose(): void {
    this.#disposed = true;
    for (const stop of this.#unsubscribe) stop();
    clearTimeout(this.#timer);
    clearInterval(this.#recheck);
    this.#timer = undefined;
    this.#settle();
  }
}

/** "cleaned 2, deleted 3 (trash), refilled 1": what a pass did, for the log. */
export function describe(report: UpkeepReport): string {
  const parts: string[] = [];
  if (report.cleaned) parts.push(`cleaned ${report.cleaned} handed-back worktree(s)`);
  if (report.evicted) parts.push(`removed ${report.evicted} it should not keep`);
  if (report.deleted) parts.push(`deleted ${report.deleted} removed worktree folder(s)`);
  if (report.filled) parts.push(`checked out ${report.filled} new one(s)`);
  if (report.moved) parts.push(`moved ${report.moved} to the current commit`);
  return parts.join(', ') || 'nothing to do';
}
