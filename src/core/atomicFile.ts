import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `data` to `file` so that a reader, or a restart after SIGKILL or a
 * power cut, sees either the old content or the new, never a mix: write a
 * temp file in the same directory, flush it to disk, rename it over the
 * target, then flush the directory so the rename itself is durable.
 */
export async function writeFileAtomic(file: string, data: string): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  // Directories cannot be opened for fsync on Windows, where rename durability is the file system's business.
  if (process.platform !== 'win32') {
    const dirHandle = await open(dir, 'r').catch(() => undefined);
    await dirHandle?.sync().catch(() => undefined);
    await dirHandle?.close();
  }
}

/**
 * Writes a cache file synchronously, whole or not at all: another process
 * reads the old content or the new, never half of it. Not flushed to disk
 * (a cache lost in a power cut costs only time), and a failed write is
 * silent for the same reason.
 */
export function writeCacheFileSync(file: string, data: string): void {
  const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(temp, data);
    renameSync(temp, file);
  } catch {
    rmSync(temp, { force: true });
  }
}

/** Leftover temp files of writes a crash interrupted. */
export function isTempFile(name: string): boolean {
  return /\.\d+-[0-9a-f]+\.tmp$/.test(name);
}

/** Moves a file that cannot be read aside as `<file>.corrupt-<epoch ms>`, keeping its bytes for a human to look at. */
export async function moveAside(file: string, now = Date.now()): Promise<string> {
  const target = `${file}.corrupt-${now}`;
  await rename(file, target);
  return target;
}
