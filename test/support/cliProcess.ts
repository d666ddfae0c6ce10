import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CLI = path.join(import.meta.dirname, '../../dist/cli.js');

let ownRuntimeDir: string | undefined;

/** A folder for the agent host of this test process alone (when npm test gave none). */
export function testRuntimeDir(): string {
  return (ownRuntimeDir ??= mkdtempSync(path.join(os.tmpdir(), 'subagents-run-')));
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI (dist/cli.js) as a real process. No background
 * processes (SUBAGENTS_NO_BACKGROUND), so none outlives a test; a test of
 * the background work passes `SUBAGENTS_NO_BACKGROUND: ''`.
 */
export function runCliProcess(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; onStdout?: (chunk: string, child: ReturnType<typeof spawn>) => void; timeoutMs?: number; cli?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    // The agent host's folder of this test process (npm test gives each run its own): never the user's own host.
    const runtimeDir = process.env.XDG_RUNTIME_DIR ?? testRuntimeDir();
    const child = spawn(process.execPath, [opts.cli ?? CLI, ...args], { cwd: opts.cwd, env: { PATH: process.env.PATH, XDG_RUNTIME_DIR: runtimeDir, SUBAGENTS_NO_BACKGROUND: '1', ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      opts.onStdout?.(d, child);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** One NDJSON event of `subagents … --json`. */
export interface CliEvent {
  type: string;
  agentId: string;
  [key: string]: unknown;
}

export interface StreamingCliRun {
  child: ChildProcess;
  /** The events written so far, in order (grows as the process writes). */
  events: CliEvent[];
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** Everything written so far. */
  output(): { stdout: string; stderr: string };
}

/**
 * Starts the built CLI with `--json`-style output and parses its events as
 * they come, for tests that act while the run goes on. The caller stops it
 * (`child.kill`) when the test ends early.
 */
export function startCliProcess(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): StreamingCliRun {
  // As runCliProcess: the agent host of this test process, never the user's own.
  const runtimeDir = process.env.XDG_RUNTIME_DIR ?? testRuntimeDir();
  const child = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: { PATH: process.env.PATH, XDG_RUNTIME_DIR: runtimeDir, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const events: CliEvent[] = [];
  let stdout = '';
  let stderr = '';
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as CliEvent);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, events, exited, output: () => ({ stdout, stderr }) };
}
