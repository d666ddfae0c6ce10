import { readFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { recordFileName } from './names';
import { moveAside, writeFileAtomic } from '../atomicFile';

/**
 * Crash-safe records of the worktrees isolation made: one JSON file per
 * agent, so processes that share a state dir (two editor windows and the CLI)
 * never rewrite each other's records, and a crash mid-write loses at most the
 * newest update of one agent. Each write goes to a temp file that is fsynced
 * and renamed over the old one, so a record is always either the old or the
 * new version, never half of each.
 */

export const WORKTREE_STATES = ['creating', 'active', 'finished', 'applied', 'discarded'] as const;
export type WorktreeState = (typeof WORKTREE_STATES)[number];

const infoSchema = z.object({
  path: z.string(),
  branch: z.string(),
  baseCommit: z.string(),
  filesChanged: z.number().int().nonnegative(),
  insertions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
});

export const worktreeRecordSchema = z.object({
  kind: z.literal('subagents-worktree'),
  version: z.literal(1),
  agentId: z.string(),
  agentName: z.string(),
  /** Top of the user's working tree the agent was started from (where apply writes). */
  repoRoot: z.string(),
  /** The repository's common git dir: which repository this is, whatever worktree the user is in. */
  commonDir: z.string(),
  /** The worktree's top folder. */
  path: z.string(),
  /** Where the agent works: `path` plus the subfolder of repoRoot it was started in. */
  cwd: z.string(),
  branch: z.string(),
  /** The commit the agent started from: HEAD, or a snapshot of HEAD plus the user's uncommitted changes. */
  baseCommit: z.string(),
  /** The user's HEAD when the agent started (baseCommit's parent when a snapshot was taken). */
  userHead: z.string(),
  /** The branch tip as last seen: baseCommit until finish commits the agent's work. */
  headCommit: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  state: z.enum(WORKTREE_STATES),
  info: z.optional(infoSchema),
  /** Where apply saved the user's working tree before writing into it (the latest apply's). */
  backupRef: z.optional(z.string()),
  /** Files applied one by one so far (a per-file apply); the rest wait on the branch. Once every file is applied the state is `applied`. */
  appliedPaths: z.optional(z.array(z.string())),
  /** The process that drives the agent; recover() leaves records of live owners alone. */
  owner: z.object({ pid: z.number().int(), host: z.string(), instance: z.string(), started: z.optional(z.string()) }),
});

export type WorktreeRecord = z.infer<typeof worktreeRecordSchema>;

export interface LoadedRecords {
  records: WorktreeRecord[];
  /** Files that were not valid records; they were moved aside as `*.corrupt-<epoch>`. */
  corrupt: string[];
}

export class StateStore {
  private readonly writes = new Map<string, Promise<void>>();

  constructor(readonly dir: string) {}

  fileFor(agentId: string): string {
    return path.join(this.dir, recordFileName(agentId));
  }

  /** Writes are chained per agent, so an older update never lands after a newer one. */
  save(record: WorktreeRecord): Promise<void> {
    const file = this.fileFor(record.agentId);
    const data = `${JSON.stringify(record, null, 2)}\n`;
    const previous = this.writes.get(file) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(() => writeFileAtomic(file, data));
    this.writes.set(file, next);
    const forget = () => {
      if (this.writes.get(file) === next) this.writes.delete(file);
    };
    next.then(forget, forget);
    return next;
  }

  async remove(agentId: string): Promise<void> {
    const file = this.fileFor(agentId);
    await (this.writes.get(file) ?? Promise.resolve()).catch(() => {});
    await rm(file, { force: true });
  }

  /** One record, read synchronously (for `WorktreeManager.get`). */
  readSync(agentId: string): WorktreeRecord | undefined {
    try {
      const parsed = worktreeRecordSchema.safeParse(JSON.parse(readFileSync(this.fileFor(agentId), 'utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  async loadAll(): Promise<LoadedRecords> {
    const names = await readdir(this.dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return [] as string[];
      throw e;
    });
    const records: WorktreeRecord[] = [];
    const corrupt: string[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const file = path.join(this.dir, name);
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch {
        continue; // removed meanwhile by another process
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const parsed = worktreeRecordSchema.safeParse(json);
      if (parsed.success) {
        records.push(parsed.data);
      } else if (json === undefined || isOursInThisVersion(json)) {
        // Keep the bytes for a human to look at, but out of the way of the next start.
        const aside = await moveAside(file).catch(() => null);
        if (aside) corrupt.push(aside);
      }
    }
    records.sort((a, b) => a.createdAt - b.createdAt);
    return { records, corrupt };
  }
}

/** A record of this format version that fails validation is corrupt; a newer version's record is left alone. */
function isOursInThisVersion(json: unknown): boolean {
  if (typeof json !== 'object' || json === null) return false;
  const { kind, version } = json as { kind?: unknown; version?: unknown };
  return kind === 'subagents-worktree' && (version === 1 || version === undefined);
}

