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
