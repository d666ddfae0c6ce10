import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/**
 * The scripted server in a process of its own, so a benchmark measures the
 * engine's CPU and memory, not the fake API's. Scripts are named (see
 * serverMain.ts) because functions cannot cross the process boundary.
 */
export interface ServerProcess {
  url: string;
  stats(): Promise<{ maxInFlight: number }>;
  close(): Promise<void>;
}

export async function startServerProcess(script: string, params: Record<string, unknown>): Promise<ServerProcess> {
  const child: ChildProcess = fork(path.join(import.meta.dirname, 'serverMain.ts'), [script, JSON.stringify(params)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>() => new Promise<T>((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('exit', (code) => reject(new Error(`server process exited (${code})`)));
  });
  const { url } = await next<{ url: string }>();
  return {
    url,
    stats: async () => {
      const reply = next<{ maxInFlight: number }>();
      child.send('stats');
      return reply;
    },
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.send('close');
      await exited;
    },
  };
}
