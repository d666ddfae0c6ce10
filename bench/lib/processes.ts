import { spawn } from 'node:child_process';
import os from 'node:os';

/** The one-minute load average, as the benchmarks record it beside their figures. */
export const loadAverage = (): number => Number((os.loadavg()[0] ?? 0).toFixed(2));

/**
 * Runs `node <args>` to its exit and resolves with the milliseconds from the
 * spawn to the exit, or to the time `until` gives then (a moment the process
 * caused elsewhere: a model request it made). A non-zero exit rejects.
 */
export function timeProcess(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }, until?: () => number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { ...opts, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve((until ? until() : performance.now()) - t0) : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

/**
 * Runs every measurement once per round, in an order rotated round by round
 * (so a burst of load falls on each alike), after one untimed round that
 * warms the compile and page caches; returns each timed round's figures.
 * `mirrored`: every other round runs the order backwards, so that each
 * measure follows each other one as often as it precedes it (what one
 * process leaves behind, such as an agent host reading the run it wrote,
 * falls on its neighbours alike).
 */
export async function rotatedRounds<K extends string>(measures: Record<K, () => Promise<number>>, rounds: number, options: { mirrored?: boolean } = {}): Promise<Array<Record<K, number>>> {
  const keys = Object.keys(measures) as K[];
  const timed: Array<Record<K, number>> = [];
  for (let round = 0; round <= rounds; round++) {
    const got = {} as Record<K, number>;
    const order = options.mirrored && round % 2 === 1 ? [...keys].reverse() : keys;
    for (let i = 0; i < order.length; i++) {
      const key = order[(round + i) % order.length]!;
      got[key] = await measures[key]();
    }
    if (round > 0) timed.push(got);
  }
  return timed;
}
