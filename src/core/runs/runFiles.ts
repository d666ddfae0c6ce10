import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isActiveStatus } from '../../protocol/runEvents';
import { runSnapshotSchema, type RunSnapshot } from '../../protocol/runSnapshot';
import { writeFileAtomic } from '../atomicFile';
import { ownerAlive, sameOwner, type ProcessOwner } from '../processOwner';

/**
 * One run tree on disk: `{ version, owner, run }`. The owner is the process
 * that works on the run (the one that started it, or that continues one of
 * its agents); only it writes the file, and nobody marks its agents
 * interrupted while it lives. Files written before owners existed have none
 * and count as owned by a process that is gone.
 */

const FILE_VERSION = 1;

export interface RunFile {
  owner: ProcessOwner | null;
  run: RunSnapshot;
}

/** The file's content; null when there is no file; throws when it cannot be read as a run. */
export async function readRunFile(file: string, expectedRunId?: string): Promise<RunFile | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return parseRunFile(text, expectedRunId);
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
  const parsed = JSON.parse(text) as { version?: unknown; owner?: unknown; run?: unknown };
  if (parsed.version !== FILE_VERSION) throw new Error(`unknown file version ${String(parsed.version)}`);
  const run = runSnapshotSchema.parse(parsed.run);
  if (expectedRunId !== undefined && run.runId !== expectedRunId) throw new Error('file name and run id differ');
  return { owner: isOwner(parsed.owner) ? parsed.owner : null, run };
}

/** The file's text, taken at once: the run is a live snapshot that may change while the write waits. */
export function runFileText(run: RunSnapshot, owner: ProcessOwner): string {
  return JSON.stringify({ version: FILE_VERSION, owner, run });
}

export async function writeRunFile(file: string, run: RunSnapshot, owner: ProcessOwner): Promise<void> {
  await writeFileAtomic(file, runFileText(run, owner));
}

/** Whether any agent of the run is still at work (or waiting to start). */
export function active(run: RunSnapshot): boolean {
  return isActiveStatus(run.status) || Object.values(run.agents).some((a) => isActiveStatus(a.status));
}

/** The live process other than `me` that works on this run, if any: it alone may write it. */
export function busyElsewhere(file: RunFile | null, me: ProcessOwner): ProcessOwner | null {
  if (!file?.owner || sameOwner(file.owner, me) || !ownerAlive(file.owner)) return null;
  return active(file.run) ? file.owner : null;
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
