// A view of the process table from /proc (Linux), to prove the tests leave
// nothing running.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Process group id. */
  pgid: number;
  /** One-letter state; `Z` is a zombie (already dead, not yet reaped). */
  state: string;
  cmdline: string;
}

function read(pid: string): ProcessInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid pgrp …`; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid: Number(pid), state: fields[0]!, ppid: Number(fields[1]), pgid: Number(fields[2]), cmdline };
  } catch {
    return null; // exited while we looked
  }
}

/** Every process that is still alive (zombies excluded). */
export function livingProcesses(): ProcessInfo[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(read)
    .filter((p): p is ProcessInfo => p !== null && p.state !== 'Z');
}

/** Living descendants of `pid` (children, grandchildren, …). */
export function descendantsOf(pid: number): ProcessInfo[] {
  const all = livingProcesses();
  const out: ProcessInfo[] = [];
  const parents = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        out.push(p);
        grew = true;
      }
    }
  }
  return out;
}

export function describeProcesses(processes: ProcessInfo[]): string {
  return processes.map((p) => `${p.pid} (group ${p.pgid}): ${p.cmdline.slice(0, 160)}`).join('\n');
}
