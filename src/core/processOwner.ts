import os from 'node:os';

/**
 * Which process (and which object in it) owns something on disk that several
 * processes share: an agent's worktree, a run in the history, a lock. A
 * second editor window or the CLI must never treat what a live owner is
 * still working on as a leftover of a crash.
 */
export interface ProcessOwner {
  pid: number;
  host: string;
  /** Tells apart owners in one process (two worktree managers, two histories on one folder). */
  instance: string;
}

/** Owners alive in this process; an instance leaves the set when it is disposed. */
export const liveInstances = new Set<string>();

export function currentOwner(instance: string): ProcessOwner {
  return { pid: process.pid, host: os.hostname(), instance };
}

export function sameOwner(a: ProcessOwner | undefined, b: ProcessOwner | undefined): boolean {
  return Boolean(a && b && a.pid === b.pid && a.host === b.host && a.instance === b.instance);
}

/** Whether the owner may still be at work. */
export function ownerAlive(owner: ProcessOwner): boolean {
  // Another machine sharing the state folder: we cannot tell, so leave it alone.
  if (owner.host !== os.hostname()) return true;
  // pid 0: a record rebuilt by recover() for a worktree nobody owns.
  if (owner.pid <= 0) return false;
  if (owner.pid === process.pid) return liveInstances.has(owner.instance);
  return pidAlive(owner.pid);
}

/** Whether a process with this id runs on this machine. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
