import { spawn, type ChildProcess } from 'node:child_process';
import { childEnv } from '../childEnv';

/**
 * No MCP server outlives the process that started it, however that process
 * ends. Each stdio server runs in a process group of its own (so one signal
 * reaches the server and anything it started: `npx` and the node it runs, a
 * shell and its children); a normal end stops those groups itself. For an
 * end that runs no code of ours (SIGKILL, a crash of the runtime), a small
 * watchdog process, started with the first server, holds a pipe from us:
 * when the pipe closes, whatever the cause, it sends SIGTERM to every group
 * still registered, and SIGKILL to what is left a moment later.
 *
 * Process groups are POSIX; on Windows servers are stopped by the normal
 * path only (their processes close with their stdin).
 */

const GRACE_MS = 1500;

/** The watchdog's program: reads `+pgid` / `-pgid` lines; reaps the groups still listed when its stdin ends. */
const WATCHDOG = `
const groups = new Set();
let buffer = '';
let reaping = false;
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let i = buffer.indexOf('\\n'); i >= 0; i = buffer.indexOf('\\n')) {
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    const pgid = Number(line.slice(1));
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    if (line[0] === '+') groups.add(pgid);
    else groups.delete(pgid);
  }
});
const signal = (name) => { for (const pgid of groups) { try { process.kill(-pgid, name); } catch {} } };
const reap = () => {
  if (reaping) return;
  reaping = true;
  if (groups.size === 0) process.exit(0);
  signal('SIGTERM');
  setTimeout(() => { signal('SIGKILL'); process.exit(0); }, ${GRACE_MS});
};
process.stdin.on('end', reap);
process.stdin.on('error', reap);
process.stdin.on('close', reap);
`;

let watchdog: ChildProcess | null = null;
/** Groups of servers this process runs, for the exit handler. */
const groups = new Set<number>();
let exitHookInstalled = false;

export const processGroups = process.platform !== 'win32';

function startWatchdog(): ChildProcess | null {
  if (!processGroups) return null;
  try {
    // The extension host's executable is Electron in desktop VS Code: ELECTRON_RUN_AS_NODE makes it a plain Node.
    const child = spawn(process.execPath, ['-e', WATCHDOG], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { ...childEnv(), ELECTRON_RUN_AS_NODE: '1' },
    });
    child.on('error', () => {
      if (watchdog === child) watchdog = null;
    });
    child.on('exit', () => {
      if (watchdog === child) watchdog = null;
    });
    // Neither the watchdog nor its pipe may keep this process alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    child.stdin?.on('error', () => undefined);
    return child;
  } catch {
    return null;
  }
}

function tell(line: string): void {
  watchdog ??= startWatchdog();
  try {
    watchdog?.stdin?.write(`${line}\n`);
  } catch {
    // A watchdog that died takes nothing with it; the next line starts another.
    watchdog = null;
  }
}

/** Registers a server's process group: reaped if this process dies without stopping it. */
export function watchGroup(pgid: number): void {
  if (!processGroups) return;
  groups.add(pgid);
  tell(`+${pgid}`);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A normal exit (or an uncaught exception) still runs this: signal the groups at once; the watchdog finishes the job.
    process.once('exit', () => {
      for (const group of groups) signalGroup(group, 'SIGTERM');
    });
  }
}

/** The group stopped (or is being stopped by its owner): no longer the watchdog's business. */
export function unwatchGroup(pgid: number): void {
  if (!groups.delete(pgid)) return;
  tell(`-${pgid}`);
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(processGroups ? -pgid : pgid, signal);
    return true;
  } catch {
    return false;
  }
}
