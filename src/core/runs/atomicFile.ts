import { open, rename, rm } from 'node:fs/promises';

let counter = 0;

/**
 * Writes `data` to `file` so that a reader (or a restart after SIGKILL) sees
 * either the old content or the new, never a mix: write a temp file in the
 * same directory, flush it to disk, rename it over the target.
 */
export async function writeFileAtomic(file: string, data: string): Promise<void> {
  const temp = `${file}.${process.pid}.${++counter}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(data, 'utf8');
    await handle.datasync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Leftover temp files of writes a crash interrupted. */
export function isTempFile(name: string): boolean {
  return /\.\d+\.\d+\.tmp$/.test(name);
}

/** Moves a file that cannot be read aside as `<file>.corrupt-<epoch>`, keeping it for inspection. */
export async function moveAside(file: string, now = Date.now()): Promise<string> {
  const target = `${file}.corrupt-${Math.floor(now / 1000)}`;
  await rename(file, target);
  return target;
}
