import { appendFile, readFile } from 'node:fs/promises';
import * as z from 'zod/mini';
import { agentStatusSchema, usageSchema } from '../../protocol/runEvents';
import { agentOf, type RunSnapshot } from '../../protocol/runSnapshot';
import { writeFileAtomic } from '../atomicFile';

/**
 * What the run history knows of every run without reading its file: one
 * summary per run (status, times, usage, its agents' names and statuses),
 * enough to list the history (`subagents runs`), find the run of an agent,
 * apply retention and tell which runs may still be at work. A journal
 * (`index.ndjson` beside the run files): each write of a run appends its
 * summary, each deletion a tombstone, the last line of a run wins; it is
 * rewritten whole, compacted, when it grows past twice what it holds.
 * Written under the history's lock, so lines of two processes never
 * interleave. A run file the journal does not know (written by an older
 * version, or when appending failed) is read once and added; an entry whose
 * file is gone is dropped: the files stay the truth.
 *
 * Opening a history of thousands of runs must cost little more than one of
 * a few, so each line starts with a fixed head the index reads without
 * parsing the line (`{"v":1,"id":…,"s":…,"e":…,"a":…,`: id, start, end,
 * whether it may be at work: what ordering and retention need); the summary
 * after it is parsed and checked against its schema only when it is used
 * (a listing's newest runs, an agent looked up).
 */

const agentSummarySchema = z.object({
  agentName: z.string(),
  status: agentStatusSchema,
  parentId: z.nullable(z.string()),
  startedAt: z.number(),
  endedAt: z.nullable(z.number()),
  /** A teammate's name in its team (so a teammate can be named instead of its id). */
  member: z.optional(z.string()),
});

export const runSummarySchema = z.object({
  runId: z.string(),
  rootAgentId: z.string(),
  /** The root agent's name and task, for a listing. */
  agentName: z.string(),
  description: z.string(),
  status: agentStatusSchema,
  startedAt: z.number(),
  endedAt: z.nullable(z.number()),
  usage: usageSchema,
  /** Whether an agent of it was still at work when it was written. */
  active: z.boolean(),
  agents: z.record(z.string(), agentSummarySchema),
});
export type RunSummary = z.infer<typeof runSummarySchema>;

const lineSchema = z.object({ run: runSummarySchema });

/** Characters of the root agent's task kept in a summary. */
const DESCRIPTION_CHARS = 200;

export function summarize(run: RunSnapshot, active: boolean): RunSummary {
  const root = agentOf(run, run.rootAgentId);
  // Own properties whatever the id (an assignment to agents['__proto__'] would set the prototype).
  const agents: RunSummary['agents'] = Object.fromEntries(
    Object.values(run.agents).map((node) => [
      node.agentId,
      { agentName: node.agentName, status: node.status, parentId: node.parentId, startedAt: node.startedAt, endedAt: node.endedAt, ...(node.member ? { member: node.member } : {}) },
    ]),
  );
  return {
    runId: run.runId,
    rootAgentId: run.rootAgentId,
    agentName: root?.agentName ?? '',
    // A listing shows one line of it.
    description: (root?.description ?? '').slice(0, DESCRIPTION_CHARS),
    status: run.status,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    usage: run.usage,
    active,
    agents,
  };
}

/** One run as the index knows it: its head at once, its summary when asked. */
export class IndexedRun {
  #summary: RunSummary | null | undefined;

  constructor(
    readonly runId: string,
    readonly startedAt: number,
    readonly endedAt: number | null,
    readonly active: boolean,
    private readonly source: string | RunSummary,
  ) {
    if (typeof source !== 'string') this.#summary = source;
  }

  static of(summary: RunSummary): IndexedRun {
    return new IndexedRun(summary.runId, summary.startedAt, summary.endedAt, summary.active, summary);
  }

  /** Whether its line names `text` (a quick look before a parse: an agent id searched for). */
  mentions(text: string): boolean {
    return typeof this.source === 'string' ? this.source.includes(text) : JSON.stringify(this.source).includes(text);
  }

  /** The summary, checked against its schema; null when the line does not hold one (the file is read instead). */
  summary(): RunSummary | null {
    if (this.#summary === undefined) {
      let parsed;
      try {
        parsed = lineSchema.safeParse(JSON.parse(this.source as string));
      } catch {
        parsed = undefined;
      }
      this.#summary = parsed?.success && parsed.data.run.runId === this.runId ? parsed.data.run : null;
    }
    return this.#summary;
  }
}

/** A line's head: `{"v":1,"id":"…",` then `"deleted":true}` or `"s":…,"e":…,"a":…,`. */
const HEAD = /^\{"v":1,"id":("(?:[^"\\]|\\.)*"),(?:"deleted":true\}$|"s":(\d+(?:\.\d+)?),"e":(null|\d+(?:\.\d+)?),"a":(true|false),"run":)/;

function line(summary: RunSummary): string {
  return `{"v":1,"id":${JSON.stringify(summary.runId)},"s":${summary.startedAt},"e":${summary.endedAt},"a":${summary.active},"run":${JSON.stringify(summary)}}`;
}

export class RunIndex {
  /** Lines in the journal as last read or written by this process (compaction's measure). */
  #lines = 0;

  constructor(readonly file: string) {}

  /** The journal's runs; lines without a head it knows (a cut-off last line) are skipped. */
  async read(): Promise<Map<string, IndexedRun>> {
    const runs = new Map<string, IndexedRun>();
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      this.#lines = 0;
      return runs;
    }
    let lines = 0;
    for (const source of text.split('\n')) {
      if (!source) continue;
      lines++;
      const head = HEAD.exec(source);
      if (!head) continue;
      const quoted = head[1]!;
      let runId: unknown = quoted.slice(1, -1);
      // Ids are plain tokens; one with an escape is read as JSON.
      if (quoted.includes('\\')) {
        try {
          runId = JSON.parse(quoted);
        } catch {
          continue;
        }
      }
      if (typeof runId !== 'string') continue;
      if (head[2] === undefined) runs.delete(runId);
      else runs.set(runId, new IndexedRun(runId, Number(head[2]), head[3] === 'null' ? null : Number(head[3]), head[4] === 'true', source));
    }
    this.#lines = lines;
    return runs;
  }

  /** Under the history's lock: records runs written and runs deleted, in one append. */
  async append(written: readonly RunSummary[], deleted: readonly string[] = []): Promise<void> {
    const lines = [...written.map(line), ...deleted.map((runId) => `{"v":1,"id":${JSON.stringify(runId)},"deleted":true}`)];
    if (lines.length === 0) return;
    await appendFile(this.file, `${lines.join('\n')}\n`, { mode: 0o600 });
    this.#lines += lines.length;
  }

  /** Whether the journal holds more than twice the runs it describes (worth a rewrite). */
  bloated(runs: number): boolean {
    return this.#lines > 2 * runs + 100;
  }

  /** Under the history's lock: the journal rewritten with exactly these runs (those whose summary can be read). */
  async rewrite(runs: Iterable<IndexedRun>): Promise<void> {
    const lines: string[] = [];
    for (const run of runs) {
      const summary = run.summary();
      if (summary) lines.push(line(summary));
    }
    await writeFileAtomic(this.file, lines.length ? `${lines.join('\n')}\n` : '');
    this.#lines = lines.length;
  }
}
