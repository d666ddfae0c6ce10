import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { isActiveStatus } from '../../protocol/runEvents';
import type { AgentNode, RunSnapshot } from '../../protocol/runSnapshot';
import { isTempFile, moveAside, writeFileAtomic } from '../atomicFile';
import { teamRecordOf, type AgentArchive, type ArchivedAgent } from '../engine/archive';
import { EngineError } from '../engine/errors';
import { currentOwner, liveInstances, pidAlive, sameOwner, type ProcessOwner } from '../processOwner';
import { FileLock } from '../fileLock';
import { Mailbox } from './mailbox';
import { active, busyElsewhere, markInterrupted, ownedByLiveOther, readRunFile, runFileText, writeRunFile, type RunFile } from './runFiles';
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
 * "unknown").
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
}

const EXPIRED_IDS_KEPT = 5000;
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
  /** Runs left unwritten because another live process works on them, with that process. */
  readonly #busy = new Map<string, ProcessOwner>();
  /**
   * Runs this process last wrote as active: no other process writes a run
   * its live owner works on, so their files need no reading before the
   * next write.
   */
  readonly #heldActive = new Set<string>();

  private constructor(options: RunHistoryOptions) {
    this.#options = { ...options };
    this.#runsDir = path.join(options.dir, 'runs');
    this.#expiredFile = path.join(options.dir, 'expired.json');
    this.transcripts = new TranscriptStore(path.join(options.dir, 'transcripts'));
    this.mailbox = new Mailbox(path.join(options.dir, 'mailbox'), (level, message) => this.#log(level, message));
    this.#lock = new FileLock(path.join(options.dir, 'history.lock'), 'The run history');
    liveInstances.add(this.#instance);
    this.#owner = currentOwner(this.#instance);
  }

  static async open(options: RunHistoryOptions): Promise<RunHistory> {
    const history = new RunHistory(options);
    await mkdir(history.#runsDir, { recursive: true });
    history.#expired = await history.#readExpired();
    await history.#readRuns();
    await history.#applyRetention();
    return history;
  }

  /** The runs found on disk, newest first. */
  get runs(): readonly RunSnapshot[] {
    return this.#loaded;
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

  async #readRuns(): Promise<void> {
    const runs: RunSnapshot[] = [];
    const orphaned: string[] = [];
    for (const name of await readdir(this.#runsDir)) {
      const file = path.join(this.#runsDir, name);
      if (isTempFile(name)) {
        orphaned.push(file);
        continue;
      }
      if (!name.endsWith('.json')) continue;
      try {
        const read = await readRunFile(file, name.slice(0, -'.json'.length));
        if (read) runs.push(read.run);
      } catch (error) {
        const aside = await moveAside(file, this.#now()).catch(() => null);
        this.#log('warn', `Run history file ${name} is unreadable (${firstLine(error)}); ${aside ? `moved it to ${path.basename(aside)}` : 'could not move it aside'} and continued without it.`);
      }
    }
    // The lock's temp files live beside it.
    const lockTemps = (await readdir(this.#options.dir)).filter(isTempFile).map((name) => path.join(this.#options.dir, name));
    await removeDeadTempFiles([...orphaned, ...lockTemps]);
    const interrupted = runs.filter(active);
    if (interrupted.length) {
      await this.#lock.run(async () => {
        for (const run of interrupted) {
          const fresh = await this.#takeOverIfDead(run.runId);
          if (fresh) runs[runs.indexOf(run)] = fresh;
        }
      });
    }
    for (const run of runs) this.#written.set(run.runId, run.version);
    this.#loaded = runs.sort((a, b) => b.startedAt - a.startedAt);
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
      await writeRunFile(this.#file(runId), file.run, this.#owner);
      this.#options.onWrite?.(runId);
    }
    return file.run;
  }

  async #applyRetention(): Promise<void> {
    const drop = this.#pastRetention(this.#loaded);
    this.#loaded = this.#loaded.filter((run) => !drop.has(run));
    if (drop.size) await this.#delete([...drop]);
  }

  /** Of `runs` (newest first), the finished ones older than the retention window or beyond the cap. */
  #pastRetention(runs: readonly RunSnapshot[]): Set<RunSnapshot> {
    const cutoff = this.#now() - this.#options.retentionDays * DAY_MS;
    const drop = new Set<RunSnapshot>();
    let kept = 0;
    for (const run of runs) {
      const old = (run.endedAt ?? run.startedAt) < cutoff;
      if (!active(run) && (old || kept >= this.#options.maxRuns)) drop.add(run);
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
    for (const run of this.#pastRetention(this.#store.list())) this.#store.remove(run.runId);
  }

  /** Deletes runs with their transcripts and remembers their agents as expired; runs another live process works on stay. */
  async #delete(runs: RunSnapshot[]): Promise<void> {
    await this.#lock.run(async () => {
      const expired: string[] = [];
      for (const run of runs) {
        this.#written.delete(run.runId);
        const file = await readRunFile(this.#file(run.runId), run.runId).catch(() => null);
        if (busyElsewhere(file, this.#owner)) continue;
        await rm(this.#file(run.runId), { force: true });
        for (const agentId of Object.keys(run.agents)) {
          await this.transcripts.remove(agentId);
          await this.mailbox.removeAgent(agentId);
          expired.push(agentId);
        }
      }
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
    const text = runFileText(run, this.#owner);
    const stillActive = active(run);
    if (!this.#heldActive.has(run.runId)) {
      const busy = busyElsewhere(await readRunFile(this.#file(run.runId), run.runId).catch(() => null), this.#owner);
      if (busy) {
        this.#busy.set(run.runId, busy);
        return;
      }
      this.#busy.delete(run.runId);
    }
    await writeFileAtomic(this.#file(run.runId), text);
    this.#options.onWrite?.(run.runId);
    this.#written.set(run.runId, version);
    if (stillActive) this.#heldActive.add(run.runId);
    else this.#heldActive.delete(run.runId);
  }

  /**
   * Loads the history into `store` and from then on writes what changes
   * there: changed runs after a quiet moment, removed runs deleted.
   */
  attach(store: RunStore): () => void {
    this.#store = store;
    store.load(this.#loaded);
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
    if (changed.length) {
      await this.#lock
        .run(async () => {
          for (const run of changed) {
            try {
              await this.#write(run);
            } catch (error) {
              this.#log('error', `Could not save run ${run.runId}: ${firstLine(error)}`);
            }
          }
        })
        .catch((error: unknown) => this.#log('error', `Could not save the run history: ${firstLine(error)}`));
    }
    if (removed.length) await this.#delete(removed).catch((error: unknown) => this.#log('error', `Could not delete old runs: ${firstLine(error)}`));
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
    liveInstances.delete(this.#instance);
  }

  /**
   * Before an agent's first request: its run's record is on disk, so
   * a billed request is never forgotten, and this process owns the run.
   * Throws when another live process works on the run.
   */
  async begin(runId: string): Promise<void> {
    // The store's snapshot is current already; only its listeners are told later (coalesced).
    this.#pending.add(runId);
    await this.#drain();
    const busy = this.#busy.get(runId);
    if (busy) throw new EngineError(`Run ${runId} is in use by ${describeOwner(busy)}; wait for it to finish there, or stop it there.`);
  }

  /**
   * An agent's node and conversation for a follow-up, as they are on disk
   * now (another process may have continued it since this one read the
   * history); 'expired' or null when it cannot be continued.
   */
  async load(agentId: string): Promise<ArchivedAgent | 'expired' | null> {
    const known = this.#store?.agent(agentId) ?? findNode(this.#loaded, agentId);
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
      node = file.run.agents[agentId] ?? known;
    }
    const messages = (await this.transcripts.read(agentId)) ?? [];
    const busy = busyElsewhere(file, this.#owner);
    const run = file?.run ?? this.#store?.get(known.runId) ?? this.#loaded.find((r) => r.runId === known.runId);
    return { node, messages, runningIn: runningIn(node, file, this.#owner), runBusyIn: busy ? describeOwner(busy) : null, team: run ? teamRecordOf(run) : null };
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
  return `another process (pid ${owner.pid}${owner.host === currentOwner('').host ? '' : ` on ${owner.host}`})`;
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
  for (const run of runs) if (run.agents[agentId]) return run.agents[agentId];
  return undefined;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
