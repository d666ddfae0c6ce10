import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { lstat, mkdir, open, readlink, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * A temp file's name beside `target`: the process's id, and 32 random bits
 * for its own concurrent writes. Math.random rather than crypto's
 * randomBytes: the name only has to differ from the others, nothing is
 * guessed from it, and loading node:crypto costs a listing ~8 ms.
 */
function tempName(target: string): string {
  return `${target}.${process.pid}-${Math.floor(Math.random() * 0x100000000).toString(16)}.tmp`;
}

/**
 * Writes `data` to `file` so that a reader, or a restart after SIGKILL or a
 * power cut, sees either the old content or the new, never a mix: write a
 * temp file in the same directory, flush it to disk, rename it over the
 * target, then flush the directory so the rename itself is durable.
 *
 * A `file` that is a symbolic link (a settings file kept in a dotfiles
 * repository) is written through: the link stays, and its target is
 * replaced atomically in its own folder, keeping its permissions. A new
 * file is for the user alone (0600).
 */
export async function writeFileAtomic(file: string, data: string): Promise<void> {
  const target = await linkTarget(file);
  const dir = path.dirname(target);
  await mkdir(dir, { recursive: true });
  const mode = await stat(target).then(
    (info) => info.mode & 0o7777,
    () => 0o600,
  );
  const temp = tempName(target);
  const handle = await open(temp, 'w', mode);
  try {
    // open() applies the umask; the target's own permissions are kept as they were.
    await handle.chmod(mode);
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, target);
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

/** Links followed at most, as the system does (ELOOP beyond). */
const MAX_LINKS = 40;

/** The file a path writes to: the path itself, or the end of its chain of symbolic links (which need not exist yet). */
async function linkTarget(file: string): Promise<string> {
  let current = path.resolve(file);
  for (let hops = 0; hops < MAX_LINKS; hops++) {
    const info = await lstat(current).catch(() => null);
    if (!info?.isSymbolicLink()) return current;
    current = path.resolve(path.dirname(current), await readlink(current));
  }
  throw Object.assign(new Error(`${file}: too many levels of symbolic links`), { code: 'ELOOP' });
}

/**
 * Writes a cache file synchronously, whole or not at all: another process
 * reads the old content or the new, never half of it. Not flushed to disk
 * (a cache lost in a power cut costs only time), and a failed write is
 * silent for the same reason. For the user alone (0600, a new folder 0700):
 * a cache holds what servers and agent files said.
 */
export function writeCacheFileSync(file: string, data: string): void {
  const temp = tempName(file);
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temp, data, { mode: 0o600 });
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
