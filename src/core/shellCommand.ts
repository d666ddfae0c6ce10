import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/**
 * Runs one command of the user's or the project's the way Claude Code runs
 * a hook: `/bin/sh -c <command>`, the event's JSON (or nothing) on stdin,
 * stdout and stderr collected. Hooks and the worktree setup command use it.
 * The shell gets its own process group so a timeout kills everything it
 * started, not only the shell (a `sleep` under a killed `sh` would otherwise
 * live on).
 */

export interface ShellCommandRequest {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
  timeoutMs: number;
  /** Aborted when the agent the hook runs for is stopped: the hook's process group is killed with it. */
  signal?: AbortSignal;
}

export interface ShellCommandResult {
  /** Null when the process did not exit on its own (killed, or never started). */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the process could not be started at all. */
  spawnError: string | null;
  durationMs: number;
}

/** Output kept per stream: enough for any sensible context or reason, bounded against a runaway hook. */
const MAX_OUTPUT_BYTES = 1024 * 1024;
/**
 * After the shell exits, how long to wait for its pipes to close. A hook that
 * starts something in the background (`notify-send … &`) leaves the pipes open
 * in that process; its result is the shell's, not the straggler's.
 */
const DRAIN_MS = 250;

export function runShellCommand(request: ShellCommandRequest): Promise<ShellCommandResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn('/bin/sh', ['-c', request.command], {
        cwd: request.cwd,
        env: request.env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      // Arguments spawn rejects outright (a NUL byte in the command) are a hook problem, not a crash.
      resolve({ exitCode: null, signal: null, stdout: '', stderr: '', timedOut: false, spawnError: error instanceof Error ? error.message : String(error), durationMs: 0 });
      return;
    }

    const stdout = new OutputBuffer();
    const stderr = new OutputBuffer();
    let timedOut = false;
    let exited = false;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      if (exited) return;
      timedOut = true;
      killGroup(child.pid);
    }, request.timeoutMs);
    const onAbort = () => {
      if (!exited) killGroup(child.pid);
    };
    if (request.signal?.aborted) onAbort();
    else request.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, spawnError: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      clearTimeout(drainTimer);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        exitCode: timedOut ? null : exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        spawnError,
        durationMs: Math.round(performance.now() - started),
      });
    };

    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    // A hook that never reads stdin may exit before we finish writing: not an error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(request.stdin);

    child.once('error', (error) => finish(null, null, error.message));
    child.once('exit', (code, signal) => {
      exited = true;
      drainTimer = setTimeout(() => finish(code, signal, null), DRAIN_MS);
    });
    child.once('close', (code, signal) => finish(code, signal, null));
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    // Negative pid: the whole process group the detached shell leads.
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

class OutputBuffer {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;

  push(chunk: Buffer): void {
    if (this.#bytes >= MAX_OUTPUT_BYTES) return;
    const kept = chunk.subarray(0, MAX_OUTPUT_BYTES - this.#bytes);
    this.#chunks.push(kept);
    this.#bytes += kept.length;
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}
