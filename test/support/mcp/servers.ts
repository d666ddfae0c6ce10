import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The test MCP server (testServer.mjs): one program, its tools and faults chosen by flags. */
export const TEST_SERVER = path.join(import.meta.dirname, 'testServer.mjs');

/** `command` and `args` that start the test server over stdio. */
export function stdioServer(...flags: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [TEST_SERVER, ...flags] };
}

/** JSON for a YAML flow list or map: valid YAML, whatever the strings hold. */
export function yaml(value: unknown): string {
  return JSON.stringify(value);
}

/** Starts the test server over HTTP (Streamable HTTP, or SSE) in this process's care; resolves with its URL. */
export async function startHttpServer(dir: string, kind: 'http' | 'sse', ...flags: string[]): Promise<{ url: string; child: ChildProcess; stop(): void }> {
  const portfile = path.join(dir, `port-${kind}-${Date.now()}-${Math.random().toString(16).slice(2)}`);
  const child = spawn(process.execPath, [TEST_SERVER, `--${kind}`, '0', '--portfile', portfile, ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const port = await waitFor(() => (existsSync(portfile) ? readFileSync(portfile, 'utf8') : null), 10_000, () => `the ${kind} test server did not start: ${stderr}`);
  const url = kind === 'http' ? `http://127.0.0.1:${port}/mcp` : `http://127.0.0.1:${port}/sse`;
  return { url, child, stop: () => child.kill('SIGKILL') };
}

/** Polls until `probe` returns something other than null/undefined/false. */
export async function waitFor<T>(probe: () => T | null | undefined | false, timeoutMs = 10_000, message: () => string = () => 'timed out'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(message());
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid a server (or its grandchild) wrote to `file`. */
export function pidIn(file: string): number {
  return Number(readFileSync(file, 'utf8'));
}

/** The calls the test servers recorded in a --calls file. */
export function recordedCalls(file: string): Array<{ server: string; tool: string; args: Record<string, unknown>; pid: number }> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { server: string; tool: string; args: Record<string, unknown>; pid: number });
}
