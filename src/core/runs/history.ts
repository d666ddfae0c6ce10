import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { isActiveStatus } from '../../protocol/runEvents';
import { runSnapshotSchema, type AgentNode, type RunSnapshot } from '../../protocol/runSnapshot';
import { isTempFile, moveAside, writeFileAtomic } from '../atomicFile';
import type { AgentArchive, ArchivedAgent } from '../engine/archive';
import type { RunStore } from './runStore';
import { TranscriptStore } from './transcripts';

/**
 * Run history on disk (S4.4): every run tree (status, usage, outputs, tool
 * rows) as one JSON file, written atomically and debounced; every agent's
 * conversation as an NDJSON transcript. On open: leftovers of interrupted
 * writes are removed, unreadable files are moved aside (`*.corrupt-<epoch>`)
 * and the rest loads, agents that were running when the process died are
 * marked `interrupted`, and runs past the retention window or the cap are
 * deleted (their ids remembered, so a follow-up says "expired" rather than
 * "unknown").
 */

export interface RunHistoryOptions {
  dir: string;
  retentionDays: number;
  maxRuns: number;
  /** Quiet time before changed runs are written; default 300 ms. */
  debounceMs?: number;
  now?: () => number;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
}

const FILE_VERSION = 1;
const EXPIRED_IDS_KEPT = 5000;
const DAY_MS = 86_400_000;

export class RunHistory implements AgentArchive {
  readonly transcripts: TranscriptStore;
  readonly problems: string[] = [];
  /** Snapshot files written since open (for the benchmark). */
  writes = 0;
  readonly #options: RunHistoryOptions;
  readonly #runsDir: string;
  readonly #expiredFile: string;
  #loaded: RunSnapshot[] = [];
  #expired: string[] = [];
  #store: RunStore | null = null;
  readonly #written = new Map<string, number>();
  readonly #pending = new Set<string>();
  readonly #removed: RunSnapshot[] = [];
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();

  private constructor(options: RunHistoryOptions) {
    this.#options = options;
    this.#runsDir = path.join(options.dir, 'runs');
    this.#expiredFile = path.join(options.dir, 'expired.json');
    this.transcripts = new TranscriptStore(path.join(options.dir, 'transcripts'));
  }

  static async open(options: RunHistoryOptions): Promise<RunHistory> {
    const history = new RunHistory(options);
    await mkdir(history.#runsDir, { recursive: true });
    await history.#readExpired();
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

  async #readExpired(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.#expiredFile, 'utf8');
    } catch {
      return;
    }
    try {
      const ids = JSON.parse(text) as unknown;
      if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) throw new Error('not a list of ids');
      this.#expired = ids;
    } catch (error) {
      const aside = await moveAside(this.#expiredFile, this.#now());
      this.#log('warn', `The list of expired runs could not be read (${(error as Error).message}); moved it to ${aside}.`);
    }
  }

  async #readRuns(): Promise<void> {
    const names = await readdir(this.#runsDir);
    const runs: RunSnapshot[] = [];
    for (const name of names) {
      const file = path.join(this.#runsDir, name);
      if (isTempFile(name)) {
        await rm(file, { force: true });
        continue;
      }
      if (!name.endsWith('.json')) continue;
      try {
        const parsed = JSON.parse(await readFile(file, 'utf8')) as { version?: unknown; run?: unknown };
        if (parsed.version !== FILE_VERSION) throw new Error(`unknown file version ${String(parsed.version)}`);
        const run = runSnapshotSchema.parse(parsed.run);
        if (`${run.runId}.json` !== name) throw new Error('file name and run id differ');
        runs.push(run);
      } catch (error) {
        const aside = await moveAside(file, this.#now()).catch(() => null);
        this.#log('warn', `Run history file ${name} is unreadable (${firstLine(error)}); ${aside ? `moved it to ${path.basename(aside)}` : 'could not move it aside'} and continued without it.`);
      }
    }
    for (const run of runs) {
      if (markInterrupted(run, this.#now())) await this.#write(run);
      this.#written.set(run.runId, run.version);
    }
    this.#loaded = runs.sort((a, b) => b.startedAt - a.startedAt);
  }

  async #applyRetention(): Promise<void> {
    const cutoff = this.#now() - this.#options.retentionDays * DAY_MS;
    const keep: RunSnapshot[] = [];
    const drop: RunSnapshot[] = [];
    for (const run of this.#loaded) {
      const old = (run.endedAt ?? run.startedAt) < cutoff;
      if (old || keep.length >= this.#options.maxRuns) drop.push(run);
      else keep.push(run);
    }
    this.#loaded = keep;
    if (drop.length) await this.#delete(drop);
  }

  async #delete(runs: RunSnapshot[]): Promise<void> {
    for (const run of runs) {
      this.#written.delete(run.runId);
      await rm(path.join(this.#runsDir, `${run.runId}.json`), { force: true });
      for (const agentId of Object.keys(run.agents)) {
        await this.transcripts.remove(agentId);
        this.#expired.push(agentId);
      }
    }
    this.#expired = this.#expired.slice(-EXPIRED_IDS_KEPT);
    await writeFileAtomic(this.#expiredFile, JSON.stringify(this.#expired));
  }

  async #write(run: RunSnapshot): Promise<void> {
    // The snapshot is live: take its version together with its text, before the write yields.
    const version = run.version;
    const text = JSON.stringify({ version: FILE_VERSION, run });
    await writeFileAtomic(path.join(this.#runsDir, `${run.runId}.json`), text);
    this.writes++;
    this.#written.set(run.runId, version);
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

  #drain(): Promise<void> {
    this.#timer = null;
    const ids = [...this.#pending];
    this.#pending.clear();
    const removed = this.#removed.splice(0);
    this.#writing = this.#writing.then(async () => {
      for (const runId of ids) {
        const run = this.#store?.get(runId);
        if (!run || this.#written.get(runId) === run.version) continue;
        try {
          await this.#write(run);
        } catch (error) {
          this.#log('error', `Could not save run ${runId}: ${firstLine(error)}`);
        }
      }
      if (removed.length) await this.#delete(removed).catch((error: unknown) => this.#log('error', `Could not delete old runs: ${firstLine(error)}`));
    });
    return this.#writing;
  }

  /** Writes everything pending now (on shutdown). */
  async flush(): Promise<void> {
    this.#store?.flush();
    if (this.#timer) clearTimeout(this.#timer);
    await this.#drain();
    await this.transcripts.flush();
  }

  /** An agent's node and conversation for a follow-up; 'expired' or null when it cannot be continued. */
  async load(agentId: string): Promise<ArchivedAgent | 'expired' | null> {
    const node = this.#store?.agent(agentId) ?? findNode(this.#loaded, agentId);
    if (!node) return this.#expired.includes(agentId) ? 'expired' : null;
    const messages = (await this.transcripts.read(agentId)) ?? [];
    return { node, messages };
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

/** Agents that were running when the process died can never finish: mark them (and their run) interrupted. */
function markInterrupted(run: RunSnapshot, now: number): boolean {
  let changed = false;
  for (const node of Object.values(run.agents)) {
    if (!isActiveStatus(node.status)) continue;
    node.status = 'interrupted';
    node.approval = null;
    node.endedAt = now;
    node.error = 'The process running this agent stopped before it finished.';
    for (const row of node.tools) if (row.status === 'running') row.status = 'error';
    changed = true;
  }
  if (isActiveStatus(run.status)) {
    run.status = 'interrupted';
    run.endedAt = now;
    changed = true;
  }
  if (changed) run.version++;
  return changed;
}

function findNode(runs: readonly RunSnapshot[], agentId: string): AgentNode | undefined {
  for (const run of runs) if (run.agents[agentId]) return run.agents[agentId];
  return undefined;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
