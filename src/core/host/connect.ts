import { spawn } from 'node:child_process';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { HostSettings } from '../../protocol/host';
import { childEnv } from '../childEnv';
import { hostPaths, readToken, type HostPaths } from './paths';

/**
 * Reaching the agent host: a connection to the socket with the token a
 * client proves itself with, and, where the caller may, a host started
 * first. The host is started as language servers are: with the runtime the
 * caller runs on (`process.execPath`; in VS Code, Electron's Node through
 * `ELECTRON_RUN_AS_NODE`), detached into a process group of its own so a
 * window's reload or an extension-host crash does not take it along, and
 * without the API key in its environment (the key travels over the socket,
 * with each request).
 */

/** No host listens (or its token is gone): start one, or run without. */
export class HostNotRunning extends Error {
  override name = 'HostNotRunning';
}

/** A connection to the host listening at `paths`, with its token; rejects with HostNotRunning when none answers. */
export async function connectSocket(paths: HostPaths): Promise<{ socket: Duplex; token: string }> {
  const token = await readToken(paths.token);
  if (!token) throw new HostNotRunning(`No agent host is running (no token at ${paths.token}).`);
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.createConnection(paths.socket);
    s.once('connect', () => {
      s.off('error', reject);
      resolve(s);
    });
    s.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? new HostNotRunning(`No agent host answers at ${paths.socket}.`) : error));
  });
  return { socket, token };
}

export interface LaunchOptions {
  /** The Node to run it with (VS Code's own runtime in the extension). */
  execPath: string;
  /** dist/host.js. */
  script: string;
  /** The starter's environment; `ANTHROPIC_*` is left out. */
  env: NodeJS.ProcessEnv;
  settings: HostSettings;
  /** How long the host may take to open the history and listen. */
  timeoutMs?: number;
  /** Node's flags for it (default HOST_NODE_FLAGS; the benchmark compares others). */
  nodeFlags?: readonly string[];
}

/**
 * How the host's Node runs. An idle host should be small: a young generation of 1 MB (runs are I/O-bound, their
 * allocations small), and a collection when it becomes idle (src/host/main.ts) that returns what serving a
 * window's whole state took. `--optimize-for-size` makes V8 give memory back as it collects (an idle host holding
 * 200 runs rests ~25 MB lower); `--max-opt=2` stops at Maglev, leaving out TurboFan and its compiled code (a few
 * MB more; the host's share of an event's way to a window costs no measurable CPU more, bench/host.ts).
 */
export const HOST_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--expose-gc', '--optimize-for-size', '--max-opt=2'];

/**
 * Starts a host and resolves once it listens (or found another one that
 * does: two windows starting at once end with one host). Rejects with what
 * the host said when it could not start.
 */
export function launchHost(options: LaunchOptions): Promise<void> {
  const args = [
    ...(options.nodeFlags ?? HOST_NODE_FLAGS),
    options.script,
    '--idle-exit-seconds',
    String(options.settings.idleExitSeconds),
    '--unattended-approval-seconds',
    String(options.settings.unattendedApprovalSeconds),
  ];
  const child = spawn(options.execPath, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...childEnv(options.env), ELECTRON_RUN_AS_NODE: '1' },
    windowsHide: true,
  });
  return new Promise<void>((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => finish(new Error(`The agent host did not start within ${Math.round((options.timeoutMs ?? 60_000) / 1000)} s.`)), options.timeoutMs ?? 60_000);
    const finish = (error: Error | null) => {
      clearTimeout(timer);
      child.stdout.removeAllListeners('data');
      child.removeAllListeners('exit');
      // The host lives on without us: nothing of ours holds it.
      child.stdout.destroy();
      child.stderr.destroy();
      child.unref();
      if (error) reject(error);
      else resolve();
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (/^(listening|already) /m.test(out)) finish(null);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err = (err + chunk).slice(-4000)));
    child.once('error', (error) => finish(error));
    child.once('exit', (code, signal) => finish(new Error(`The agent host exited as it started (${signal ?? `code ${code}`}): ${err.trim().split('\n').slice(-5).join(' ') || 'no message'}`)));
  });
}

/** A connection to the host, started first when none runs and `launch` is given. */
export async function connectOrLaunch(env: NodeJS.ProcessEnv, launch: LaunchOptions | null): Promise<{ socket: Duplex; token: string }> {
  const paths = hostPaths(env);
  try {
    return await connectSocket(paths);
  } catch (error) {
    if (!(error instanceof HostNotRunning) || !launch) throw error;
  }
  await launchHost(launch);
  return connectSocket(paths);
}
