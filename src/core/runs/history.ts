import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { isActiveStatus } from '../../protocol/runEvents';
import { agentOf, type AgentNode, type RunSnapshot } from '../../protocol/runSnapshot';
import { isTempFile, moveAside, writeFileAtomic } from '../atomicFile';
import { teamRecordOf, type AgentArchive, type ArchivedAgent } from '../engine/tree/archive';
import { EngineError } from '../engine/errors';
import { currentOwner, liveInstances, pidAlive, sameOwner, type ProcessOwner } from '../processOwner';
import { FileLock } from '../fileLock';
import type { MailEntry } from '../engine/messaging/mail';
import { KeyedMutex } from '../mutex';
import { Mailbox } from './mailbox';
import { NewerVersion } from '../persistence';
import { active, busyElsewhere, markInterrupted, ownedByLiveOther, readRunFile, readRunFileSync, runFileText, writeRunFileText, type RunFile } from './runFiles';
import { IndexedRun, RunIndex, summarize, type RunSummary } from './runIndex';
import { RunFileWatch } from './runFileWatch';
import type { RunStore } from './runStore';
import { TranscriptStore } from './transcripts';

/**
 * Run history on disk: every run tree (status, usage, outputs, tool
 * rows) as one JSON file, written atomically and debounced; every agent's
 * conversation as an NDJSON transcript. On open: leftovers of interrupted
 * writes are removed, unreadable files are moved aside (`*.corrupt-<epoch>`)
 * and the rest loads, agents whose process died while they ran are marked
 * `interrupted`, and runs past the retention window or the cap are deleted
 * (their ids remembered, so a follow-up says "expired" rather than
 * "unknown"). An index of every run's summary (runIndex.ts) is what open
 * reads; only the newest runs (`loadRuns`) and the ones that may still be
 * at work are read whole, so a history of thousands of runs opens as fast
 * as one of a few; any other run is read when asked for (a listing by id,
 * a follow-up).
 *
 * Several processes share one history (VS Code windows, the CLI). Each run
 * file names the process that works on it (runFiles.ts); a run another live
 * process works on is never marked interrupted, deleted or written here, and
 * an agent of it cannot be continued here. Every read that decides a write
 * happens under the history's lock file (fileLock.ts).
 */

export interface RunHistoryOptions {
  dir: string;
  retentionDays: number;
  maxRuns: number;
  /** Quiet time before changed runs are written; default 300 ms. */
  debounceMs?: number;
  now?: () => number;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** Told after each run file written (the benchmark counts them). */
  onWrite?: (runId: string) => void;
  /**
   * Hold each run this process begins until `release` lets it go (the CLI,
   * whose process ends with its run): until then a message for one of its
   * agents is queued for this process, which delivers it before it lets go.
   */
  holdRuns?: boolean;
  /**
   * The attached store keeps each ended run as its summary once its file has
   * it whole, and reads it whole again when asked (`readWhole`) or when it
   * changes: for a process that holds a long history for hours (the agent
   * host). Default false: the store holds every run whole.
   */
  summarizeEnded?: boolean;
  /**
   * How many of the newest runs are read whole at open (what `runs` holds
   * and `attach` puts in the store), besides the runs that may still be at
   * work; default: all. Every run stays listed (summaries) and readable.
   */
  loadRuns?: number;
  /** This process is the agent host: its runs' files say so, and a message queued for it names it. */
  role?: 'host';
}

const EXPIRED_IDS_KEPT = 5000;
/** The pause before a failed run file is written again, doubling up to the second value. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 60_000;
const DAY_MS = 86_400_000;

export class RunHistory implements AgentArchive {
  readonly transcripts: TranscriptStore;
  /** Messages and results waiting for agents of these runs, written by any process that shares the history. */
  readonly mailbox: Mailbox;
  readonly problems: string[] = [];
  readonly #options: RunHistoryOptions;
  readonly #runsDir: string;
  readonly #expiredFile: string;
  readonly #lock: FileLock;
  readonly #index: RunIndex;
  /** Every run on disk, by id: what the index says, kept current by this process's writes. */
  readonly #summaries = new Map<string, IndexedRun>();
  readonly #instance = randomUUID();
  readonly #owner: ProcessOwner;
  #loaded: RunSnapshot[] = [];
  #expired: string[] = [];
  #store: RunStore | null = null;
  readonly #written = new Map<string, number>();
  readonly #pending = new Set<string>();
  readonly #removed: RunSnapshot[] = [];
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();
  /** A drain that was asked for and has not started yet: later callers share it. */
  #queued: Promise<void> | null = null;
  /** Runs written since the index was last appended to. */
  #indexed: string[] = [];
  /** Runs left unwritten because another live process works on them, with that process. */
  readonly #busy = new Map<string, ProcessOwner>();
  /**
   * Runs this process last wrote as active: no other process writes a run
   * its live owner works on, so their files need no reading before the
   * next write.
   */
  readonly #heldActive = new Set<string>();
  /** Runs this process holds though no agent of them may be at work (see holdRuns, claim). */
  readonly #held = new Set<string>();
  /** Whole runs are read one request at a time: a window asking for its whole history at once never holds it all in memory. */
  readonly #reads = new KeyedMutex();
  /** Runs other processes write, followed into the store (followOthers). */
  #watch: RunFileWatch | null = null;

  private constructor(options: RunHistoryOptions) {
    this.#options = { ...options };
    this.#runsDir = path.join(options.dir, 'runs');
    this.#expiredFile = path.join(options.dir, 'expired.json');
    this.transcripts = new TranscriptStore(path.join(options.dir, 'transcripts'));
    this.mailbox = new Mailbox(path.join(options.dir, 'mailbox'), (level, message) => this.#log(level, message));
    this.#lock = new FileLock(path.join(options.dir, 'history.lock'), 'The run history');
    this.#index = new RunIndex(path.join(options.dir, 'index.ndjson'));
    liveInstances.add(this.#instance);
    this.#owner = currentOwner(this.#instance, options.role);
  }

  /**
   * Opens the history. With `loadRuns` 0 (a process that shows no old runs:
   * the CLI) it answers before the index is read; see ready().
   */
  static async open(options: RunHistoryOptions): Promise<RunHistory> {
    const history = new RunHistory(options);
    await mkdir(history.#runsDir, { recursive: true });
    history.#expired = await history.#readExpired();
    if (options.loadRuns !== 0) await history.ready();
    return history;
  }

  #ready: Promise<void> | null = null;

  /**
   * Reads the index (once) and applies retention; resolves when done. With
   * `loadRuns` 0 nothing is read until something needs it (a listing, an old
   * run, a follow-up) or the process calls this at its end: reading
   * thousands of summaries is main-thread work a first request must not
   * wait behind.
   */
  ready(): Promise<void> {
    this.#ready ??= this.#readRuns().then(() => this.#applyRetention());
    return this.#ready;
  }

  /** The runs read at open (the newest `loadRuns`, and any that may still be at work), newest first; once a store is attached, the store's (it holds them now). */
  get runs(): readonly RunSnapshot[] {
    return this.#store?.list() ?? this.#loaded;
  }

  /**
   * The runs of the history, summed up, newest first (no run file read):
   * the newest `limit`, and with `atWork` also every run that may still be
   * at work, whatever its age.
   */
  summaries(limit = Number.POSITIVE_INFINITY, options: { atWork?: boolean } = {}): RunSummary[] {
    const newest = [...this.#summaries.values()].sort((a, b) => b.startedAt - a.startedAt);
    const picked = newest.filter((run, i) => i < limit || (options.atWork && run.active));
    return picked.map((run) => run.summary()).filter((s): s is RunSummary => s !== null);
  }

  /** One run's summary (no file read). */
  summaryOf(runId: string): RunSummary | null {
    return this.#summaries.get(runId)?.summary() ?? null;
  }

  /** The run with this id, or the run of the agent with this id, read whole (from its file when not held here). */
  async read(runOrAgentId: string): Promise<RunSnapshot | null> {
    await this.ready();
    const runId = this.#summaries.has(runOrAgentId) ? runOrAgentId : this.#runOfAgent(runOrAgentId);
    // A run the store holds as its summary is read from its file.
    const held = (runId && !this.#store?.isSummary(runId) && this.#store?.get(runId)) || this.#loaded.find((r) => r.runId === runId || agentOf(r, runOrAgentId));
    if (held) return held;
    if (!runId) return null;
    return (await readRunFile(this.#file(runId), runId).catch(() => null))?.run ?? null;
  }

  #runOfAgent(agentId: string): string | undefined {
    const quoted = JSON.stringify(agentId);
    for (const run of this.#summaries.values()) {
      if (run.mentions(quoted) && Object.hasOwn(run.summary()?.agents ?? {}, agentId)) return run.runId;
    }
    return undefined;
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }

  #log(level: 'info' | 'warn' | 'error', message: string): void {
    if (level !== 'info') this.problems.push(message);
    this.#options.log?.(level, message);
  }

  #file(runId: string): string {
    return path.join(this.#runsDir, `${runId}.json`);
  }

  async #readExpired(): Promise<string[]> {
    let text: string;
    try {
      text = await readFile(this.#expiredFile, 'utf8');
    } catch {
      return [];
    }
    try {
      const ids = JSON.parse(text) as unknown;
      if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) throw new Error('not a list of ids');
      return ids;
    } catch (error) {
      const aside = await moveAside(this.#expiredFile, this.#now()).catch(() => null);
      this.#log('warn', `The list of expired runs could not be read (${(error as Error).message}); ${aside ? `moved it to ${aside}` : 'could not move it aside'}.`);
      return [];
    }
  }

  /**
   * The index, checked against the folder: files it does not know are read
   * (and added), entries without a file dropped. Then the runs that may be
   * at work are read whole (one whose process died is marked interrupted),
   * and the newest `loadRuns`.
   */
  async #readRuns(): Promise<void> {
    const indexed = await this.#index.read();
    const orphaned: string[] = [];
    const onDisk = new Set<string>();
    const unknown: string[] = [];
    for (const name of await readdir(this.#runsDir)) {
      if (isTempFile(name)) {
        orphaned.push(path.join(this.#runsDir, name));
        continue;
      }
      if (!name.endsWith('.json')) continue;
      const runId = name.slice(0, -'.json'.length);
      onDisk.add(runId);
      if (!indexed.has(runId)) unknown.push(runId);
    }
    const loaded = new Map<string, RunSnapshot>();
    const readWhole = async (runId: string): Promise<RunSnapshot | null> => {
      try {
        const read = await readRunFile(this.#file(runId), runId);
        if (read) loaded.set(runId, read.run);
        return read?.run ?? null;
      } catch (error) {
        if (error instanceof NewerVersion) {
          // Another build sharing the history wrote it: not ours to read, nor to move.
          this.#log('warn', `Run history file ${runId}.json is not shown: ${error.message}.`);
          return null;
        }
        const aside = await moveAside(this.#file(runId), this.#now()).catch(() => null);
        this.#log('warn', `Run history file ${runId}.json is unreadable (${firstLine(error)}); ${aside ? `moved it to ${path.basename(aside)}` : 'could not move it aside'} and continued without it.`);
        return null;
      }
    };
    const added: IndexedRun[] = [];
    for (const runId of unknown) {
      const run = await readWhole(runId);
      if (run) added.push(IndexedRun.of(summarize(run, active(run))));
    }
    const dropped = [...indexed.keys()].filter((runId) => !onDisk.has(runId));
    for (const runId of dropped) indexed.delete(runId);
    for (const summary of added) indexed.set(summary.runId, summary);
    // The lock's temp files live beside it.
    const lockTemps = (await readdir(this.#options.dir)).filter(isTempFile).map((name) => path.join(this.#options.dir, name));
    await removeDeadTempFiles([...orphaned, ...lockTemps]);
    const newest = [...indexed.values()].sort((a, b) => b.startedAt - a.startedAt);
    const wanted = new Set(newest.filter((s, i) => s.active || i < (this.#options.loadRuns ?? Number.POSITIVE_INFINITY)).map((s) => s.runId));
    // A few at a time: the reads overlap, the parses do not block for long.
    const toRead = [...wanted].filter((runId) => !loaded.has(runId));
    for (let i = 0; i < toRead.length; i += 8) await Promise.all(toRead.slice(i, i + 8).map(readWhole));
    const interrupted = [...loaded.values()].filter(active);
    if (interrupted.length) {
      await this.#lock.run(async () => {
        const changed: RunSummary[] = [];
        for (const run of interrupted) {
          const fresh = await this.#takeOverIfDead(run.runId);
          if (fresh) loaded.set(run.runId, fresh);
          if (fresh && !active(fresh)) changed.push(summarize(fresh, false));
        }
        await this.#index.append(changed).catch(() => undefined);
      });
    }
    for (const run of loaded.values()) indexed.set(run.runId, IndexedRun.of(summarize(run, active(run))));
    for (const [runId, summary] of indexed) this.#summaries.set(runId, summary);
    if (added.length || dropped.length || this.#index.bloated(indexed.size)) {
      await this.#lock.run(() => this.#rewriteIndex()).catch((error: unknown) => this.#log('warn', `Could not update the run history's index: ${firstLine(error)}`));
    }
    const runs = [...loaded.values()].filter((run) => wanted.has(run.runId) || active(run));
    for (const run of runs) this.#written.set(run.runId, run.version);
    this.#loaded = runs.sort((a, b) => b.startedAt - a.startedAt);
  }

  /**
   * Under the lock: the index rewritten from what is on disk now, read
   * afresh (another process may have appended since this one read it), with
   * what this process knows.
   */
  async #rewriteIndex(): Promise<void> {
    const now = await this.#index.read();
    const names = new Set((await readdir(this.#runsDir)).filter((n) => n.endsWith('.json') && !isTempFile(n)).map((n) => n.slice(0, -'.json'.length)));
    for (const [runId, summary] of this.#summaries) if (!now.has(runId)) now.set(runId, summary);
    for (const runId of [...now.keys()]) if (!names.has(runId)) now.delete(runId);
    await this.#index.rewrite(now.values());
  }

  /**
   * Under the lock: when the run's owner died while it was active, marks
   * its agents interrupted and writes it as this process's. Returns the run
   * as it is on disk now (null when it is gone).
   */
  async #takeOverIfDead(runId: string): Promise<RunSnapshot | null> {
    const file = await readRunFile(this.#file(runId), runId).catch(() => null);
    if (!file || ownedByLiveOther(file, this.#owner) || sameOwner(file.owner ?? undefined, this.#owner)) return file?.run ?? null;
    if (markInterrupted(file.run, this.#now())) {
      await this.#writeRunFile(runId, runFileText(file.run, this.#owner));
    }
    return file.run;
  }

  /** Deletes the runs past retention that the attached store does not hold (the store's removals delete those). */
  async #applyRetention(): Promise<void> {
    const newest = [...this.#summaries.values()].sort((a, b) => b.startedAt - a.startedAt);
    const drop = [...this.#pastRetention(newest, (s) => s.active)].filter((s) => !this.#store?.get(s.runId));
    if (drop.length === 0) return;
    const ids = new Set(drop.map((s) => s.runId));
    this.#loaded = this.#loaded.filter((run) => !ids.has(run.runId));
    // Their agents' transcripts go too: a summary names them; one that cannot be read is read from its file.
    const runs = await Promise.all(drop.map(async (s) => ({ runId: s.runId, agents: s.summary()?.agents ?? (await readRunFile(this.#file(s.runId), s.runId).catch(() => null))?.run.agents ?? {} })));
    await this.#delete(runs);
  }

  /** Of `runs` (newest first), the finished ones older than the retention window or beyond the cap. */
  #pastRetention<T extends { startedAt: number; endedAt: number | null }>(runs: readonly T[], isActive: (run: T) => boolean): Set<T> {
    const cutoff = this.#now() - this.#options.retentionDays * DAY_MS;
    const drop = new Set<T>();
    let kept = 0;
    for (const run of runs) {
      const old = (run.endedAt ?? run.startedAt) < cutoff;
      if (!isActive(run) && (old || kept >= this.#options.maxRuns)) drop.add(run);
      else kept++;
    }
    return drop;
  }

  /**
   * New retention settings apply at once: finished runs now past them leave
   * the attached store, which deletes them here with their transcripts (so a
   * follow-up to one says it expired).
   */
  setLimits(limits: Partial<Pick<RunHistoryOptions, 'retentionDays' | 'maxRuns'>>): void {
    Object.assign(this.#options, limits);
    if (!this.#store) return;
    for (const run of this.#pastRetention(this.#store.list(), active)) this.#store.remove(run.runId);
    // Runs on disk that the store does not hold (older than what was read whole at open).
    void this.#applyRetention().catch((error: unknown) => this.#log('error', `Could not delete old runs: ${firstLine(error)}`));
  }

  /** Deletes runs with their transcripts and remembers their agents as expired; runs another live process works on stay. */
  async #delete(runs: ReadonlyArray<{ runId: string; agents: Record<string, unknown> }>): Promise<void> {
    await this.#lock.run(async () => {
      const expired: string[] = [];
      const deleted: string[] = [];
      for (const run of runs) {
        this.#written.delete(run.runId);
        const file = await readRunFile(this.#file(run.runId), run.runId).catch(() => null);
        if (busyElsewhere(file, this.#owner)) continue;
        await rm(this.#file(run.runId), { force: true });
        deleted.push(run.runId);
        this.#summaries.delete(run.runId);
        for (const agentId of Object.keys(run.agents)) {
          await this.transcripts.remove(agentId);
          await this.mailbox.removeAgent(agentId);
          expired.push(agentId);
        }
      }
      await this.#index.append([], deleted).catch((error: unknown) => this.#log('warn', `Could not update the run history's index: ${firstLine(error)}`));
      // Merged with what other processes expired since this one read the list.
      const merged = [...new Set([...(await this.#readExpired()), ...this.#expired, ...expired])];
      this.#expired = merged.slice(-EXPIRED_IDS_KEPT);
      await writeFileAtomic(this.#expiredFile, JSON.stringify(this.#expired));
    });
  }

  /**
   * Under the lock: writes the run unless another live process works on it
   * (then its file is left as that process wrote it, and the run is noted as
   * busy). A run another process merely owns, but has finished with, is
   * taken over: work on it here (a follow-up) is newer.
   */
  async #write(run: RunSnapshot): Promise<void> {
    const version = run.version;
    const held = this.#held.has(run.runId);
    const text = runFileText(run, this.#owner, held);
    const stillActive = active(run) || held;
    if (!this.#heldActive.has(run.runId)) {
      const busy = busyElsewhere(await readRunFile(this.#file(run.runId), run.runId).catch(() => null), this.#owner);
      if (busy) {
        this.#busy.set(run.runId, busy);
        return;
      }
      this.#busy.delete(run.runId);
    }
    await this.#writeRunFile(run.runId, text);
    this.#written.set(run.runId, version);
    this.#summaries.set(run.runId, IndexedRun.of(summarize(run, stillActive)));
    this.#indexed.push(run.runId);
    if (stillActive) this.#heldActive.add(run.runId);
    else this.#heldActive.delete(run.runId);
    if (!stillActive && this.#options.summarizeEnded) this.#store?.summarize(run.runId, version);
  }

  /**
   * The attached store's runs that it holds as summaries, read whole from
   * their files (runs it holds whole are not read: `RunStore.whole` gives
   * them). A file another process has written since is newer: the store
   * takes it (every copy of the store with it). Unreadable files are left
   * out, and said.
   */
  readWhole(runIds: readonly string[]): Promise<Map<string, RunSnapshot>> {
    return this.#reads.run('whole', () => this.#readWhole(runIds));
  }

  async #readWhole(runIds: readonly string[]): Promise<Map<string, RunSnapshot>> {
    const read = new Map<string, RunSnapshot>();
    const store = this.#store;
    if (!store) return read;
    for (const runId of runIds) {
      if (!store.isSummary(runId)) continue;
      try {
        const file = await readRunFile(this.#file(runId), runId);
        if (!file) continue;
        const held = store.get(runId);
        if (held && held.version !== file.run.version && store.isSummary(runId)) {
          this.#written.set(runId, file.run.version);
          store.restore(file.run);
          store.summarize(runId, file.run.version);
        }
        read.set(runId, file.run);
      } catch (error) {
        this.#log('warn', `Run history file ${runId}.json is unreadable (${firstLine(error)}); the run is shown without its tool rows.`);
      }
    }
    return read;
  }

  /** A summarized run whole, for a change to it (RunStore.readWholeWith). */
  #readWholeSync(runId: string): RunSnapshot | null {
    try {
      return readRunFileSync(this.#file(runId), runId)?.run ?? null;
    } catch (error) {
      this.#log('warn', `Run history file ${runId}.json is unreadable (${firstLine(error)}); the run goes on without its earlier tool rows.`);
      return null;
    }
  }

  /**
   * Loads the history into `store` and from then on writes what changes
   * there: changed runs after a quiet moment, removed runs deleted.
   */
  attach(store: RunStore): () => void {
    this.#store = store;
    store.load(this.#loaded);
    if (this.#options.summarizeEnded) {
      store.readWholeWith((runId) => this.#readWholeSync(runId));
      for (const run of this.#loaded) if (!active(run)) store.summarize(run.runId, this.#written.get(run.runId) ?? -1);
    }
    // The store holds them from now on.
    this.#loaded = [];
    const schedule = () => (this.#timer ??= setTimeout(() => void this.#drain(), this.#options.debounceMs ?? 300));
    const unsubscribe = store.subscribe((changed) => {
      for (const runId of changed) this.#pending.add(runId);
      schedule();
    });
    const unwatch = store.onRemove((run) => {
      this.#removed.push(run);
      schedule();
    });
    return () => {
      unsubscribe();
      unwatch();
    };
  }

  /**
   * From now on, what other processes write of a run reaches the attached
   * store as they write it (a terminal's own-process run, a send that
   * continued an agent there): a new run is listed, a run they finish shows
   * finished. Returns the function that stops following. Runs they delete
   * stay listed until this process applies its own retention.
   */
  followOthers(): () => void {
    const watch = new RunFileWatch({
      dir: this.#runsDir,
      changed: (runId) => void this.#reads.run('whole', () => this.#takeOthers(runId)),
      log: (level, message) => this.#log(level, message),
    });
    this.#watch = watch;
    return () => {
      watch.dispose();
      if (this.#watch === watch) this.#watch = null;
    };
  }

  /** A run file another process wrote: the store takes it when it differs from what the store holds. */
  async #takeOthers(runId: string): Promise<void> {
    const store = this.#store;
    if (!store) return;
    const file = await readRunFile(this.#file(runId), runId).catch(() => null);
    if (!file || sameOwner(file.owner ?? undefined, this.#owner) || store.get(runId)?.version === file.run.version) return;
    const ended = !active(file.run) && !file.held;
    this.#written.set(runId, file.run.version);
    this.#heldActive.delete(runId);
    this.#summaries.set(runId, IndexedRun.of(summarize(file.run, !ended)));
    if (store.isSummary(runId)) store.restore(file.run);
    else store.load([file.run]);
    if (ended && this.#options.summarizeEnded) store.summarize(runId, file.run.version);
  }

  /**
   * Writes a run's file as this process: every write goes through here, so
   * the watch of other processes' writes knows each of this process's own
   * (a takeover of a dead owner's run included) and never reads it back.
   */
  async #writeRunFile(runId: string, text: string): Promise<void> {
    await writeRunFileText(this.#file(runId), text);
    await this.#watch?.wrote(runId);
    this.#options.onWrite?.(runId);
  }

  /** Writes what is pending now; calls that come while a drain waits to start share it. */
  #drain(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#queued ??= this.#writing.then(() => {
      this.#queued = null;
      return this.#drainPending();
    });
    this.#writing = this.#queued.catch(() => undefined);
    return this.#queued;
  }

  async #drainPending(): Promise<void> {
    const ids = [...this.#pending];
    this.#pending.clear();
    const removed = this.#removed.splice(0);
    const changed = ids.map((id) => this.#store?.get(id)).filter((run): run is RunSnapshot => Boolean(run && this.#written.get(run.runId) !== run.version));
    const failed: string[] = [];
    if (changed.length) {
      await this.#lock
        .run(async () => {
          for (const run of changed) {
            try {
              await this.#write(run);
            } catch (error) {
              failed.push(run.runId);
              if (!this.#unsaved.has(run.runId)) this.#log('error', `Could not save run ${run.runId}: ${firstLine(error)}. It is tried again until it is saved.`);
              this.#unsaved.set(run.runId, firstLine(error));
            }
          }
          await this.#appendIndex();
        })
        .catch((error: unknown) => {
          failed.push(...changed.map((run) => run.runId));
          this.#log('error', `Could not save the run history: ${firstLine(error)}`);
        });
    }
    for (const run of changed) {
      if (failed.includes(run.runId) || !this.#unsaved.delete(run.runId)) continue;
      this.#log('info', `Run ${run.runId} is saved now.`);
    }
    // Not saved: tried again after a pause, whether or not the run changes meanwhile.
    if (failed.length) this.#retryLater(failed);
    if (removed.length) await this.#delete(removed).catch((error: unknown) => this.#log('error', `Could not delete old runs: ${firstLine(error)}`));
  }

  /**
   * Under the lock: the summaries of the runs written since the last append,
   * in one append; a failure only costs a read of those files at the next open.
   */
  async #appendIndex(): Promise<void> {
    const written = this.#indexed.splice(0).map((id) => this.#summaries.get(id)?.summary()).filter((s): s is RunSummary => Boolean(s));
    await this.#index.append(written).catch((error: unknown) => this.#log('warn', `Could not update the run history's index: ${firstLine(error)}`));
  }

  /** Runs whose last write failed, with why; retried with a growing pause. */
  readonly #unsaved = new Map<string, string>();
  #retryTimer: NodeJS.Timeout | null = null;
  #retryDelayMs = RETRY_FIRST_MS;

  #retryLater(runIds: readonly string[]): void {
    for (const runId of runIds) this.#pending.add(runId);
    if (this.#retryTimer) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      void this.#drain().then(() => {
        this.#retryDelayMs = this.#unsaved.size ? Math.min(this.#retryDelayMs * 2, RETRY_MAX_MS) : RETRY_FIRST_MS;
      });
    }, this.#retryDelayMs);
    // The retry does not keep a process alive: close() flushes (and tries once more) before it ends.
    this.#retryTimer.unref();
  }

  /** Runs that could not be saved yet, with the reason of their last failed write. */
  get unsaved(): ReadonlyMap<string, string> {
    return this.#unsaved;
  }

  /** Writes everything pending now (on shutdown). */
  async flush(): Promise<void> {
    this.#store?.flush();
    await this.#drain();
    await this.transcripts.flush();
  }

  /** Flushes, then stops owning anything: this process's runs become another's to take over. */
  async close(): Promise<void> {
    await this.flush();
    // Nothing is held past the process: what release() did not let go (a command that failed early) is written as free.
    for (const runId of [...this.#held]) await this.release(runId, () => false).catch(() => undefined);
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    this.#watch?.dispose();
    liveInstances.delete(this.#instance);
  }

  /**
   * Before an agent's first request: its run's record is on disk, so
   * a billed request is never forgotten, and this process owns the run.
   * Throws when another live process works on the run.
   */
  async begin(runId: string): Promise<void> {
    if (this.#options.holdRuns) this.#held.add(runId);
    // The store's snapshot is current already; only its listeners are told later (coalesced).
    this.#pending.add(runId);
    await this.#drain();
    const busy = this.#busy.get(runId);
    if (busy) {
      if (!this.#heldActive.has(runId)) this.#held.delete(runId);
      throw new EngineError(`Run ${runId} is in use by ${describeOwner(busy)}; wait for it to finish there, or stop it there.`);
    }
    // A run taken to continue an agent (queueOrClaim) is written as at work now: the hold has done its part, and a
    // process that does not hold its runs to its end (the agent host) lets the run go when its agents end.
    if (!this.#options.holdRuns) this.#held.delete(runId);
  }

  /**
   * A message for an agent of a run this process does not work on, in one
   * step under the lock: queued in the mailbox when another live process
   * works on (or holds) the run, which then delivers it before it lets the
   * run go; otherwise the run is taken for this process (held, see
   * `release`) so that whoever sends next queues to it, and the caller
   * continues the agent here.
   */
  async queueOrClaim(entry: MailEntry): Promise<{ queued: string } | { claimed: true }> {
    return this.#lock.run(async () => {
      const file = await readRunFile(this.#file(entry.runId), entry.runId).catch(() => null);
      const busy = busyElsewhere(file, this.#owner);
      if (busy) {
        await this.mailbox.post(entry);
        return { queued: describeOwner(busy) };
      }
      this.#held.add(entry.runId);
      if (file) {
        // Another process's file as it is now is what this process continues from; this process's own runs it holds
        // already (newer, maybe, than their file: a change waiting to be written).
        const mine = sameOwner(file.owner ?? undefined, this.#owner);
        if (!mine) {
          this.#heldActive.delete(file.run.runId);
          // The store holds the runs once attached; before, the runs read at open do.
          if (this.#store) this.#store.load([file.run]);
          else this.#loaded = [file.run, ...this.#loaded.filter((r) => r.runId !== file.run.runId)];
        }
        await this.#writeRunFile(entry.runId, runFileText(file.run, this.#owner, true));
        if (!mine) this.#written.set(file.run.runId, file.run.version);
        this.#heldActive.add(file.run.runId);
        // Held: the index says it may be at work, so the next opener reads it whole.
        this.#summaries.set(file.run.runId, IndexedRun.of(summarize(file.run, true)));
        this.#indexed.push(file.run.runId);
        await this.#appendIndex();
      }
      return { claimed: true as const };
    });
  }

  /** A run taken by queueOrClaim whose continuation failed before it began: written as free again (a process that holds its runs lets them go at its end). */
  async unclaim(runId: string): Promise<void> {
    if (this.#options.holdRuns || !this.#held.has(runId)) return;
    await this.release(runId, () => false);
  }

  /**
   * Another process's message for an agent of a run it found busy: queued,
   * under the lock, if the run is still another live process's (returns
   * which); null when it is free now (the caller continues the agent).
   */
  async queueIfBusy(entry: MailEntry): Promise<string | null> {
    return this.#lock.run(async () => {
      const busy = busyElsewhere(await readRunFile(this.#file(entry.runId), entry.runId).catch(() => null), this.#owner);
      if (!busy) return null;
      await this.mailbox.post(entry);
      return describeOwner(busy);
    });
  }

  /**
   * Lets a held run go, in one step with the last look at the mailbox:
   * under the lock, what waits for the run's agents (messages, results that
   * wake their agent, stops) is handed to `deliver`; when that starts work
   * here (it returns true) the run stays held and false is returned;
   * otherwise the run is written as no longer held and true is returned. A
   * sender queues under the same lock (queueOrClaim), so its message either
   * reaches this look or finds the run let go and continues the agent itself:
   * no message is left behind, and no send is refused.
   */
  async release(runId: string, deliver: (entries: MailEntry[]) => boolean): Promise<boolean> {
    return this.#lock.run(async () => {
      // A run the store holds as its summary is written from its file, never from the summary.
      const run = (this.#store?.isSummary(runId) ? undefined : this.#store?.get(runId)) ?? (await readRunFile(this.#file(runId), runId).catch(() => null))?.run;
      const waiting: MailEntry[] = [];
      for (const agentId of Object.keys(run?.agents ?? {})) {
        for (const entry of await this.mailbox.pending(agentId)) if (entry.kind !== 'result' || entry.wakes) waiting.push(entry);
      }
      if (waiting.length && deliver(waiting.sort((a, b) => a.sentAt - b.sentAt))) return false;
      if (!this.#held.delete(runId) || !run) return true;
      try {
        await this.#write(run);
      } catch (error) {
        this.#log('error', `Could not save run ${runId}: ${firstLine(error)}`);
      }
      await this.#appendIndex();
      return true;
    });
  }

  /**
   * An agent's node and conversation for a follow-up, as they are on disk
   * now (another process may have continued it since this one read the
   * history); 'expired' or null when it cannot be continued.
   */
  async load(agentId: string): Promise<ArchivedAgent | 'expired' | null> {
    await this.ready().catch(() => undefined);
    const known = this.#store?.agent(agentId) ?? findNode(this.#loaded, agentId) ?? (await this.#nodeFromFile(agentId));
    if (!known) return this.#expired.includes(agentId) ? 'expired' : null;
    const file = await this.#lock.run(async () => {
      await this.#takeOverIfDead(known.runId);
      const found = await readRunFile(this.#file(known.runId), known.runId).catch(() => null);
      // Removed since by another process's retention: continuing from the prompt alone would lose the conversation.
      return !found && (await this.#readExpired()).includes(agentId) ? ('expired' as const) : found;
    });
    if (file === 'expired') return file;
    let node: AgentNode = known;
    if (file && !sameOwner(file.owner ?? undefined, this.#owner)) {
      this.#heldActive.delete(file.run.runId);
      // The file is newer than what this process holds: take it as it is.
      this.#store?.load([file.run]);
      this.#written.set(file.run.runId, file.run.version);
      node = agentOf(file.run, agentId) ?? known;
    }
    const transcript = await this.transcripts.load(agentId).catch((error: unknown) => ({ messages: [], problems: [`the file ${this.transcripts.path(agentId)} cannot be read (${firstLine(error)})`] }));
    const busy = busyElsewhere(file, this.#owner);
    const run = file?.run ?? this.#store?.get(known.runId) ?? this.#loaded.find((r) => r.runId === known.runId);
    return {
      node,
      messages: transcript?.messages ?? [],
      ...(transcript?.problems.length ? { problems: transcript.problems } : {}),
      runningIn: runningIn(node, file, this.#owner),
      runBusyIn: busy ? describeOwner(busy) : null,
      team: run ? teamRecordOf(run) : null,
    };
  }

  /** An agent of a run not read whole at open, from its file (the index says which run). */
  async #nodeFromFile(agentId: string): Promise<AgentNode | undefined> {
    const runId = this.#runOfAgent(agentId);
    if (!runId) return undefined;
    const file = await readRunFile(this.#file(runId), runId).catch(() => null);
    return file ? agentOf(file.run, agentId) : undefined;
  }

  get retentionDays(): number {
    return this.#options.retentionDays;
  }

  appendTranscript(agentId: string, messages: readonly BetaMessageParam[]): Promise<void> {
    return this.transcripts.append(agentId, messages);
  }

  transcriptPath(agentId: string): string {
    return this.transcripts.path(agentId);
  }
}

/** Where an agent that is still at work runs: 'this process', or the other process's description. */
function runningIn(node: AgentNode, file: RunFile | null, me: ProcessOwner): string | null {
  if (!isActiveStatus(node.status)) return null;
  if (!file?.owner || sameOwner(file.owner, me)) return 'this process';
  return describeOwner(file.owner);
}

function describeOwner(owner: ProcessOwner): string {
  return `${owner.role === 'host' ? 'the agent host' : 'another process'} (pid ${owner.pid}${owner.host === currentOwner('').host ? '' : ` on ${owner.host}`})`;
}

/**
 * Temp files left by a crash between write and rename. Another process may
 * be writing one this instant: only those of writers that are gone, or
 * older than any write takes, are removed.
 */
async function removeDeadTempFiles(files: string[]): Promise<void> {
  for (const file of files) {
    const pid = Number(/\.(\d+)-[0-9a-f]+\.tmp$/.exec(file)?.[1]);
    const info = await stat(file).catch(() => null);
    if (!info) continue;
    const stale = Date.now() - info.mtimeMs > 60_000;
    if (stale || (pid !== process.pid && !pidAlive(pid))) await rm(file, { force: true });
  }
}

function findNode(runs: readonly RunSnapshot[], agentId: string): AgentNode | undefined {
  for (const run of runs) {
    const node = agentOf(run, agentId);
    if (node) return node;
  }
  return undefined;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
