import { readFileSync } from 'node:fs';
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
  /**
   * When the process started, where the system says (see processStart):
   * a later process that reuses the pid is not the owner. Absent in records
   * written elsewhere or before it existed; those go by the pid alone.
   */
  started?: string;
  /** The agent host (one per user): named so in what others are told ("queued for the agent host"), not as a pid. */
  role?: 'host';
}

/** Owners alive in this process; an instance leaves the set when it is disposed. */
export const liveInstances = new Set<string>();

let ownStart: string | null | undefined;

export function currentOwner(instance: string, role?: 'host'): ProcessOwner {
  ownStart ??= processStart(process.pid);
  return { pid: process.pid, host: os.hostname(), instance, ...(ownStart ? { started: ownStart } : {}), ...(role ? { role } : {}) };
}

/**
 * When process `pid` started, as `<boot id>:<start tick>` from Linux's
 * /proc (the pair is unique for the machine's uptime and across reboots);
 * null where the system does not say without running a program for it
 * (macOS, Windows) or the process is not visible.
 */
export function processStart(pid: number): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    // starttime is field 22.
    const ticks = procStat(pid)?.[19];
    return bootId && ticks && /^\d+$/.test(ticks) ? `${bootId}:${ticks}` : null;
  } catch {
    return null;
  }
}

/**
 * The fields of /proc/<pid>/stat from the state (field 3) on, after the
 * command name, which may hold spaces and parentheses; null off Linux or
 * when the process is not there.
 */
function procStat(pid: number): string[] | null {
  if (process.platform !== 'linux') return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
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
  if (!pidAlive(owner.pid)) return false;
  if (!owner.started) return true;
  // A pid the system has since given to another process: the owner is gone.
  const started = processStart(owner.pid);
  return started === null || started === owner.started;
}

/** Whether a process with this id runs on this machine. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // A process that has exited but that its parent has not reaped (a zombie) still takes signals. The agent host is
  // detached from the window that started it; once that window's process is gone, the host's parent is whatever
  // adopts orphans, and in a container that is often a PID 1 that never reaps: a killed host stays a zombie for good.
  // Its leader turns zombie before its other threads have finished dying, and until they have, its files (a
  // listening socket) stay open: gone only once none is left (num_threads, field 20).
  const stat = procStat(pid);
  return !stat || !(stat[0] === 'Z' || stat[0] === 'X') || Number(stat[17]) > 1;
}
