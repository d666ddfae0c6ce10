import fg from 'fast-glob';
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Listing and reading the files of one agents dir, robust against what real
 * home folders hold: symlinks (dotfile managers link single files and whole
 * folders), symlink loops, huge or binary files, files vanishing mid-scan.
 */

export interface ListedFile {
  filePath: string;
  /** Path relative to the agents dir, `/`-separated: the sort key (S2.2). */
  relPath: string;
}

/** How deep subfolders are searched; a guard against pathological trees. */
const MAX_DEPTH = 8;

function isMarkdown(name: string): boolean {
  return name.toLowerCase().endsWith('.md');
}

function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * All `*.md` files under `dir` (subfolders included, dot-folders not), in
 * lexicographic order of their relative path. A missing or unreadable dir is
 * empty. fast-glob is told not to follow symlinks because it has no loop
 * detection (a `loop -> ..` link yields the same files at every depth);
 * symlinks are resolved here instead, each linked folder walked once.
 */
export async function listAgentFiles(dir: string): Promise<ListedFile[]> {
  const files: ListedFile[] = [];
  const walkedRoots: string[] = [];

  const walk = async (base: string, prefix: string, depth: number): Promise<void> => {
    let real: string;
    try {
      real = await realpath(base);
    } catch {
      return;
    }
    if (walkedRoots.some((root) => isWithin(real, root))) return;
    walkedRoots.push(real);
    let entries: fg.Entry[];
    try {
      entries = await fg('**', {
        cwd: base,
        onlyFiles: false,
        followSymbolicLinks: false,
        objectMode: true,
        suppressErrors: true,
        deep: MAX_DEPTH - depth,
      });
    } catch {
      return;
    }
    const linkedDirs: { target: string; relPath: string; depth: number }[] = [];
    for (const entry of entries) {
      const relPath = prefix + entry.path;
      if (entry.dirent.isFile()) {
        if (isMarkdown(entry.name)) files.push({ filePath: path.join(base, entry.path), relPath });
      } else if (entry.dirent.isSymbolicLink()) {
        const target = path.join(base, entry.path);
        let targetStat;
        try {
          targetStat = await stat(target);
        } catch {
          continue; // dangling link or a loop the OS refuses to resolve
        }
        if (targetStat.isFile() && isMarkdown(entry.name)) files.push({ filePath: target, relPath });
        else if (targetStat.isDirectory()) {
          const linkDepth = depth + entry.path.split('/').length;
          if (linkDepth < MAX_DEPTH) linkedDirs.push({ target, relPath, depth: linkDepth });
        }
      }
    }
    for (const linked of linkedDirs) await walk(linked.target, `${linked.relPath}/`, linked.depth);
  };

  await walk(dir, '', 0);
  // Code-unit order, not locale order: the same on every machine.
  return files.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
}

/** What identifies one version of a file's content without reading it. */
export interface FileStamp {
  mtimeMs: number;
  size: number;
  ino: number;
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino;
}

export type FileRead =
  | { kind: 'text'; text: string; stamp: FileStamp }
  /** The file matches the stamp it was last read with; not read again. */
  | { kind: 'unchanged'; stamp: FileStamp }
  /** Deleted (or replaced by a non-file) since it was listed. */
  | { kind: 'gone' }
  | { kind: 'skipped'; reason: string; stamp: FileStamp | null };

// Opening a FIFO that replaced a listed file must not block discovery.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * One read buffer reused for every file: reads are synchronous, so it is never
 * shared between two reads, and thousands of per-file allocations (and the
 * garbage collection after them) are avoided. It grows to the largest file
 * read, which the size cap bounds.
 */
let scratch = Buffer.allocUnsafe(64 * 1024);

function scratchFor(size: number): Buffer {
  if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
  return scratch;
}

/**
 * Reads one agent file synchronously. Discovery reads many small files, and
 * for those the synchronous calls are several times faster than the
 * thread-pool round trips of fs.promises (see bench/discovery.ts); the loader
 * yields to the event loop between batches so the host stays responsive.
 * One open/fstat/read/close sequence gives the stamp and the content, so a
 * cached file costs an open and an fstat.
 */
export function readAgentFileSync(filePath: string, maxBytes: number, previous?: FileStamp): FileRead {
  let fd: number;
  try {
    fd = openSync(filePath, OPEN_FLAGS);
  } catch (error) {
    return openFailure(error);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { kind: 'gone' };
    const stamp: FileStamp = { mtimeMs: st.mtimeMs, size: st.size, ino: st.ino };
    if (previous && sameStamp(previous, stamp)) return { kind: 'unchanged', stamp };
    if (st.size > maxBytes) {
      return { kind: 'skipped', reason: `it is ${formatBytes(st.size)}, over the ${formatBytes(maxBytes)} limit for agent files`, stamp };
    }
    const buffer = scratchFor(st.size);
    let filled = 0;
    while (filled < st.size) {
      const n = readSync(fd, buffer, filled, st.size - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    const content = buffer.subarray(0, filled);
    if (content.indexOf(0) !== -1) return { kind: 'skipped', reason: 'it is a binary file, not Markdown', stamp };
    return { kind: 'text', text: content.toString('utf8'), stamp };
  } catch (error) {
    return { kind: 'skipped', reason: `it cannot be read (${describeError(error)})`, stamp: null };
  } finally {
    closeSync(fd);
  }
}

function openFailure(error: unknown): FileRead {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'gone' };
  return { kind: 'skipped', reason: `it cannot be read (${describeError(error)})`, stamp: null };
}

function describeError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code ?? e.message ?? String(error);
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

/** Whether a path currently exists as a directory (for watch decisions). */
export function isDirectorySync(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
