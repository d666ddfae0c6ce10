import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Writes bench/results/<name>.json with the machine it ran on. */
export async function writeResults(name: string, results: unknown): Promise<void> {
  const dir = path.join(import.meta.dirname, '../results');
  await mkdir(dir, { recursive: true });
  const record = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memGB: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` },
    results,
  };
  await writeFile(path.join(dir, `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
}

/**
 * A benchmark's main: `measure` fills the results in a scratch folder of its
 * own (removed afterwards, however it ends); they are printed, with the load
 * before and after, and written to bench/results/<name>.json. A failure sets
 * the exit code.
 */
export function benchmark(name: string, measure: (scratch: string, results: Record<string, unknown>) => Promise<void>): void {
  void (async () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), `subagents-bench-${name}-`));
    const results: Record<string, unknown> = { load: Number(os.loadavg()[0]!.toFixed(2)) };
    try {
      await measure(scratch, results);
    } finally {
      // rm(1): tens of thousands of files go faster than through fs.rm.
      spawnSync('rm', ['-rf', scratch]);
    }
    results.loadAfter = Number(os.loadavg()[0]!.toFixed(2));
    console.log(JSON.stringify(results, null, 2));
    await writeResults(name, results);
  })().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
