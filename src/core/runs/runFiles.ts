import { readFileSync } from 'node:fs';
import { isActiveStatus } from '../../protocol/runEvents';
import { runSnapshotSchema, type RunSnapshot } from '../../protocol/runSnapshot';
import { decodeJson, encodeJson, readJson, writeEncoded, type JsonFormat } from '../persistence';
import { ownerAlive, sameOwner, type ProcessOwner } from '../processOwner';

/**
 * One run tree on disk: `{ version, owner, run }`. The owner is the process
 * that works on the run (the one that started it, or that continues one of
 * its agents); only it writes the file, and nobody marks its agents
 * interrupted while it lives. Files written before owners existed have none
 * and count as owned by a process that is gone. Read and written through
 * the persistence layer (versioned, writes retried, a newer version's file
 * left alone).
 */

export interface RunFile {
  owner: ProcessOwner | null;
  run: RunSnapshot;
  /**
   * The owner still works on the run though none of its agents is at work
   * (a CLI delivering what arrived as its run ended, or a process that took
   * the run to continue one of its agents): a message for it goes to that
   * owner's mailbox, which it reads before it lets the run go. Optional:
   * files of builds without it read as not held.
   */
  held?: boolean;
}

export const RUN_FILE_FORMAT: JsonFormat<RunFile> = {
  what: 'run file',
  version: 1,
  readers: {
    1: (data) => ({ owner: isOwner(data.owner) ? data.owner : null, run: runSnapshotSchema.parse(data.run), ...(data.held === true ? { held: true } : {}) }),
  },
  fields: (file) => ({ owner: file.owner, run: file.run, ...(file.held ? { held: true } : {}) }),
};

/** The file's content; null when there is no file; throws when it cannot be read as a run (NewerVersion for a newer build's). */
export async function readRunFile(file: string, expectedRunId?: string): Promise<RunFile | null> {
  const read = await readJson(RUN_FILE_FORMAT, file);
  if (read && expectedRunId !== undefined && read.run.runId !== expectedRunId) throw new Error('file name and run id differ');
  return read;
}

/** `readRunFile`, synchronously (a change to a run held as its summary needs it whole before it applies). */
export function readRunFileSync(file: string, expectedRunId?: string): RunFile | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return parseRunFile(text, expectedRunId);
}

function parseRunFile(text: string, expectedRunId: string | undefined): RunFile {
  const read = decodeJson(RUN_FILE_FORMAT, text);
  if (expectedRunId !== undefined && read.run.runId !== expectedRunId) throw new Error('file name and run id differ');
  return read;
}

/** The file's text, taken at once: the run is a live snapshot that may change while the write waits. */
export function runFileText(run: RunSnapshot, owner: ProcessOwner, held = false): string {
  return encodeJson(RUN_FILE_FORMAT, { owner, run, held });
}

/** Writes a run file's text (from runFileText), retrying a failed write; throws WriteFailed naming the file. */
export async function writeRunFileText(file: string, text: string): Promise<void> {
  await writeEncoded(RUN_FILE_FORMAT, file, text);
}

/** Whether any agent of the run is still at work (or waiting to start). */
export function active(run: RunSnapshot): boolean {
  return isActiveStatus(run.status) || Object.values(run.agents).some((a) => isActiveStatus(a.status));
}

/** The live process other than `me` that works on this run (an agent of it at work, or the run held), if any: it alone may write it. */
export function busyElsewhere(file: RunFile | null, me: ProcessOwner): ProcessOwner | null {
  if (!file?.owner || sameOwner(file.owner, me) || !ownerAlive(file.owner)) return null;
  return active(file.run) || file.held ? file.owner : null;
}

/** The owner is another process that is still alive (whether or not it works on the run now). */
export function ownedByLiveOther(file: RunFile | null, me: ProcessOwner): boolean {
  return Boolean(file?.owner && !sameOwner(file.owner, me) && ownerAlive(file.owner));
}

/** Agents that were running when their process died can never finish: mark them (and their run) interrupted. */
export function markInterrupted(run: RunSnapshot, now: number): boolean {
  let changed = false;
  for (const node of Object.values(run.agents)) {
    if (!isActiveStatus(node.status)) continue;
    node.status = 'interrupted';
    node.approval = null;
    node.endedAt = now;
    node.error = 'The process running this agent stopped before it finished.';
    node.retryWait = null;
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

function isOwner(value: unknown): value is ProcessOwner {
  const o = value as ProcessOwner | null;
  return typeof o === 'object' && o !== null && typeof o.pid === 'number' && typeof o.host === 'string' && typeof o.instance === 'string';
}
