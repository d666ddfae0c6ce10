import os from 'node:os';
import type { WorktreeRecord } from './stateStore';

/**
 * Who drives an agent's worktree. recover() must never settle or remove the
 * worktree of an agent that is still running, in this process (another
 * manager instance) or in another one (a second editor window, the CLI).
 */

/** Managers alive in this process: their records are never "leftovers". */
export const liveInstances = new Set<string>();

export function currentOwner(instance: string): WorktreeRecord['owner'] {
  return { pid: process.pid, host: os.hostname(), instance };
}

/** Whether the process that owns a record may still be using its worktree. */
export function ownerAlive(owner: WorktreeRecord['owner']): boolean {
  // Another machine sharing the state folder: we cannot tell, so leave it alone.
  if (owner.host !== os.hostname()) return true;
  // pid 0: a record rebuilt by recover() for a worktree nobody owns.
  if (owner.pid <= 0) return false;
  if (owner.pid === process.pid) return liveInstances.has(owner.instance);
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
