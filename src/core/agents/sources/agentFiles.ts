import { isAscii } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { isTomlPath } from '../formats';

/**
 * Listing and reading the files of one agents dir, robust against what real
 * home folders hold: symlinks (dotfile managers link single files and whole
 * folders), symlink loops, huge or binary files, files vanishing mid-scan.
 *
 * Both run as synchronous system calls in short slices: for the small dirs
 * and files of agents they are several times faster than thread-pool round
 * trips (see bench/discovery.ts), and yielding between slices keeps the
 * extension host responsive.
 */

export interface ListedFile {
  filePath: string;
  /** Path relative to the agents dir, `/`-separated: the sort key. */
  relPath: string;
}

/** How deep subfolders are searched; a guard against pathological trees. */
const MAX_DEPTH = 8;

/** Synchronous work runs in slices this long, then yields to the event loop. */
export const SLICE_MS = 8;

/**
 * The clock slices and deadlines are measured by. Milliseconds are fine
 * enough for 8 ms slices, and `performance`, Node's global, loads perf_hooks
 * on first use: some 2 ms of a listing's start-up.
 */
export const sliceClock = (): number => Date.now();

/** `*.md` in any case; without lower-casing (a string allocated per directory entry). */
function isMarkdown(name: string): boolean {
  const n = name.length;
  return n >= 3 && name.charCodeAt(n - 3) === 0x2e && (name.charCodeAt(n - 2) | 0x20) === 0x6d && (name.charCodeAt(n - 1) | 0x20) === 0x64;
}

/**
 * What a dir's home tool takes as agent files beyond `*.md` in any folder
 * that is not a dot-folder: Codex reads `*.toml`, Kiro `*.json` at the top
 * level, Gemini CLI skips every name starting with `_`, Qwen Code and
 * Factory read only the top level, and a dir may stand for single files (a
 * plugin's listed agents, a `.roomodes` or `opencode.json` in a folder that
 * is otherwise not searched).
 */
export interface ListingRules {
  /** Also `*.toml` (Codex). */
  toml?: boolean;
  /** Also `*.json` directly in the dir (Kiro's agents; its Markdown agents may be nested). */
  json?: boolean;
  /** Skip files and folders whose name starts with `_` (Gemini CLI). */
  skipUnderscore?: boolean;
  /** How many folder levels are read: 1 is the dir's own files only (default MAX_DEPTH). */
  depth?: number;
  /**
   * Only these relative paths (`/`-separated), looked up directly rather than
   * found by walking the dir (dot-files too: `.roomodes`); any name counts.
   */
  only?: readonly string[];
}

/** Whether an entry named `name` (a file, `depth` folders below the dir: 1 is directly in it) is an agent file under `rules`. */
export function isAgentFileName(name: string, rules: ListingRules | undefined, depth = 1): boolean {
  if (rules?.skipUnderscore && name.startsWith('_')) return false;
  return isMarkdown(name) || (rules?.toml === true && isTomlPath(name)) || (rules?.json === true && depth === 1 && /\.json$/i.test(name));
}

/** Whether a folder named `name` is searched under `rules`. */
function isSearchedFolder(name: string, rules: ListingRules | undefined): boolean {
  return !(rules?.skipUnderscore && name.startsWith('_'));
}

function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Whether listing `dir` under `rules` walks `folder` (lexically: a folder
 * inside it, not below a dot-folder or a skipped one, and not too deep), so
 * that a second dir for `folder` would list its files again.
 */
export function walksFolder(dir: string, rules: ListingRules | undefined, folder: string): boolean {
  if (!isWithin(folder, dir)) return false;
  const rel = path.relative(dir, folder);
  if (rel === '') return true;
  const names = rel.split(path.sep);
  return !rules?.only && names.length < (rules?.depth ?? MAX_DEPTH) && names.every((name) => !name.startsWith('.') && isSearchedFolder(name, rules));
}

interface LinkedDir {
  target: string;
  relPath: string;
  /** Depth of the link itself below the agents dir (1 = directly in it). */
  depth: number;
}

interface Walk {
  rules: ListingRules | undefined;
  /** Folders this deep below the dir are not entered. */
  maxDepth: number;
  files: ListedFile[];
  /** Real paths of the folders walked as roots: the dir and each linked folder. */
  roots: string[];
  sliceEnd: number;
}

/**
 * Lists one folder and its real subfolders, depth first. `depth` is the
 * folder's own depth below the agents dir; entries deeper than MAX_DEPTH
 * are not listed. Linked folders are collected, not entered: they are
 * walked as roots of their own so that loops are caught.
 */
async function walkFolder(walk: Walk, folder: string, relPrefix: string, depth: number, linked: LinkedDir[]): Promise<void> {
  if (sliceClock() > walk.sliceEnd) {
    await yieldToEventLoop();
    walk.sliceEnd = sliceClock() + SLICE_MS;
  }
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return; // unreadable (or vanished): empty, as a missing or unreadable agents folder is
  }
  const base = folder.endsWith(path.sep) ? folder : folder + path.sep;
  const entryDepth = depth + 1;
  for (const entry of entries) {
    const name = entry.name;
    // Dot-files and dot-folders are not agents (editor backups, `.git`).
    if (name.startsWith('.')) continue;
    const relPath = relPrefix + name;
    if (entry.isFile()) {
      if (isAgentFileName(name, walk.rules, entryDepth)) walk.files.push({ filePath: base + name, relPath });
    } else if (entry.isDirectory()) {
      if (entryDepth < walk.maxDepth && isSearchedFolder(name, walk.rules)) await walkFolder(walk, base + name, `${relPath}/`, entryDepth, linked);
    } else if (entry.isSymbolicLink()) {
      const target = base + name;
      let targetStat;
      try {
        targetStat = statSync(target, { throwIfNoEntry: false });
      } catch {
        continue; // a loop the OS refuses to resolve
      }
      if (!targetStat) continue; // dangling link
      if (targetStat.isFile()) {
        if (isAgentFileName(name, walk.rules, entryDepth)) walk.files.push({ filePath: target, relPath });
      } else if (targetStat.isDirectory() && entryDepth < walk.maxDepth && isSearchedFolder(name, walk.rules)) {
        linked.push({ target, relPath, depth: entryDepth });
      }
    }
  }
}

async function walkRoot(walk: Walk, root: string, relPrefix: string, depth: number): Promise<void> {
  let real: string;
  try {
    real = realpathSync.native(root);
  } catch {
    return;
  }
  // A link into a folder already walked (a loop, or a second way in) adds nothing.
  if (walk.roots.some((walked) => isWithin(real, walked))) return;
  walk.roots.push(real);
  const linked: LinkedDir[] = [];
  await walkFolder(walk, root, relPrefix, depth, linked);
  // In path order, so which of two links to one folder counts does not depend on readdir order.
  linked.sort((a, b) => compareCodeUnits(a.relPath, b.relPath));
  for (const link of linked) await walkRoot(walk, link.target, `${link.relPath}/`, link.depth);
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * All agent files (`*.md`, and what `rules` add) under `dir` (subfolders included, dot-folders not), in
 * lexicographic order of their relative path. A missing or unreadable dir is
 * empty. Symlinks are resolved here, each linked folder walked once (a
 * `loop -> ..` link would otherwise yield the same files at every depth).
 */
export async function listAgentFiles(dir: string, rules?: ListingRules): Promise<ListedFile[]> {
  if (rules?.only) return listOnly(dir, rules.only);
  const walk: Walk = { rules, maxDepth: Math.min(rules?.depth ?? MAX_DEPTH, MAX_DEPTH), files: [], roots: [], sliceEnd: sliceClock() + SLICE_MS };
  await walkRoot(walk, dir, '', 0);
  // Code-unit order, not locale order: the same on every machine.
  return walk.files.sort((a, b) => compareCodeUnits(a.relPath, b.relPath));
}

/** The named files of a dir that exist (links to files followed), in path order; nothing else is read. */
function listOnly(dir: string, only: readonly string[]): ListedFile[] {
  const files: ListedFile[] = [];
  for (const relPath of only) {
    const filePath = path.join(dir, ...relPath.split('/'));
    let st;
    try {
      st = statSync(filePath, { throwIfNoEntry: false });
    } catch {
      continue; // a link loop, no permission: as if missing
    }
    if (st?.isFile()) files.push({ filePath, relPath });
  }
  return files.sort((a, b) => compareCodeUnits(a.relPath, b.relPath));
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
  /** `hasCarriageReturn`: whether the text holds a CR, found while the bytes were at hand. */
  | { kind: 'text'; text: string; hasCarriageReturn: boolean; stamp: FileStamp }
  /** The file matches the stamp it was last read with; not read again. */
  | { kind: 'unchanged'; stamp: FileStamp }
  /** Deleted (or replaced by a non-file) since it was listed. */
  | { kind: 'gone' }
  | { kind: 'skipped'; reason: string; stamp: FileStamp | null };

// Opening a FIFO that replaced a listed file must not block discovery.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * ASCII text read in one batch is decoded into one string of at least this
 * size (the last batch of a scan may be smaller). Node makes a decoded string
 * over ~1 MB (its EXTERN_APEX, 0xFBEE9 bytes) an external string: off the V8
 * heap, never copied or compacted by the garbage collector. Measured on 2,000
 * files: batches of 128 KB–1 MB, which V8 allocates one by one in its
 * large-object space, cost several times more to decode than 1 MiB ones.
 */
const BATCH_BYTES = 1024 * 1024;

/**
 * One read buffer reused for every batch: reads and decoding are
 * synchronous and finish within one call, so it is never shared between
 * two batches, and thousands of per-file allocations are avoided. It grows
 * to a batch plus the largest file read, which the size cap bounds.
 */
let scratch = Buffer.allocUnsafe(BATCH_BYTES + 64 * 1024);

function ensureScratch(size: number, keep: number): Buffer {
  if (scratch.length < size) {
    const grown = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
    scratch.copy(grown, 0, 0, keep);
    scratch = grown;
  }
  return scratch;
}

/**
 * How long past its deadline a batch that holds text keeps reading to fill
 * itself: a batch cut short decodes into a string on the V8 heap (under
 * ~1 MB), which costs several times a full batch's external one (see
 * BATCH_BYTES), and on a busy machine most slices would end mid-batch.
 */
const FILL_GRACE_MS = 4;

function pastDeadline(deadline: number | undefined, used: number): boolean {
  if (deadline === undefined) return false;
  const now = sliceClock();
  return used === 0 ? now > deadline : now > deadline + FILL_GRACE_MS;
}

export interface ReadRequest {
  filePath: string;
  /** The stamp the file was last read with; a file that still has it is not read again. */
  previous?: FileStamp;
}

export interface ReadOptions {
  maxBytes: number;
  /** Stop starting new files after this time (by sliceClock()); at least one file is read. */
  deadline?: number;
  /** Called right before a file is opened. */
  beforeRead?(filePath: string): void;
}

/**
 * Reads files synchronously from `requests[from]` on, until a batch of text
 * is full, the deadline passes or the list ends; returns one result per file
 * read, in order, and the index to continue from.
 *
 * The files that are pure ASCII (nearly all agent files) are decoded together
 * into one string, and each file's text is a slice of it. Discovery keeps every
 * file's body (the system prompt), and thousands of separate ~6 KB strings
 * would each be copied by the young-generation garbage collector, twice; one
 * large string per batch is allocated outside the young generation and never
 * copied. ASCII makes byte offsets character offsets, and latin1 decoding of
 * ASCII is exactly UTF-8 decoding. Other files are decoded one by one, so one
 * file with an emoji does not turn a whole batch into two-byte characters.
 * The cost: a batch string lives as long as any text sliced from it. In a
 * long-lived catalog, the old text of an edited file stays in memory while
 * other files of its batch are unchanged: at worst twice the agent text.
 *
 * The bytes are checked per batch, not per file (NUL bytes, carriage
 * returns, ASCII): one scan each over the batch, while it is still in the CPU
 * cache, instead of a Buffer view and three native calls per file; a file is
 * looked at on its own only when its batch holds such a byte.
 */
export function readAgentFilesSync(requests: readonly ReadRequest[], from: number, options: ReadOptions): { reads: FileRead[]; next: number } {
  const reads: FileRead[] = [];
  /** The results whose text is filled in once the batch is checked and decoded, where they are in `reads`, and their byte ranges. */
  const pending: { kind: 'text'; text: string; hasCarriageReturn: boolean; stamp: FileStamp }[] = [];
  const at: number[] = [];
  const ranges: number[] = [];
  let used = 0;
  let index = from;
  for (; index < requests.length; index++) {
    if (index > from && (used >= BATCH_BYTES || pastDeadline(options.deadline, used))) break;
    const request = requests[index]!;
    options.beforeRead?.(request.filePath);
    const read = readOne(request, options.maxBytes, used);
    if (read.kind !== 'bytes') {
      reads.push(read);
      continue;
    }
    const text = { kind: 'text' as const, text: '', hasCarriageReturn: false, stamp: read.stamp };
    at.push(reads.length);
    reads.push(text);
    pending.push(text);
    ranges.push(used, read.end);
    used = read.end;
  }
  if (pending.length === 0) return { reads, next: index };
  const bytes = scratch.subarray(0, used);
  /** The pending file holding byte `offset` (offsets are looked up in increasing order, from `hint` on). */
  const fileAt = (offset: number, hint: number): number => {
    let i = hint;
    while (ranges[2 * i + 1]! <= offset) i++;
    return i;
  };
  const binary = new Set<number>();
  for (let nul = bytes.indexOf(0), i = 0; nul !== -1; ) {
    i = fileAt(nul, i);
    binary.add(i);
    nul = bytes.indexOf(0, ranges[2 * i + 1]);
  }
  for (let cr = bytes.indexOf(0x0d), i = 0; cr !== -1; ) {
    i = fileAt(cr, i);
    pending[i]!.hasCarriageReturn = true;
    cr = bytes.indexOf(0x0d, ranges[2 * i + 1]);
  }
  const allAscii = isAscii(bytes);
  const batch = scratch.toString('latin1', 0, used);
  for (let i = 0; i < pending.length; i++) {
    const start = ranges[2 * i]!;
    const end = ranges[2 * i + 1]!;
    if (binary.has(i)) reads[at[i]!] = { kind: 'skipped', reason: 'it is a binary file, not Markdown', stamp: pending[i]!.stamp };
    else if (allAscii || isAscii(scratch.subarray(start, end))) pending[i]!.text = batch.slice(start, end);
    else pending[i]!.text = scratch.toString('utf8', start, end);
  }
  return { reads, next: index };
}

/**
 * Reads one file into the scratch buffer at `offset`. One open/fstat/read/close
 * sequence gives the stamp and the content, so a cached file costs an open
 * and an fstat.
 */
function readOne(request: ReadRequest, maxBytes: number, offset: number): FileRead | { kind: 'bytes'; end: number; stamp: FileStamp } {
  // A file read before is checked with one stat (open, fstat and close are three calls); most have not changed.
  if (request.previous) {
    let st;
    try {
      st = statSync(request.filePath, { throwIfNoEntry: false });
    } catch {
      st = undefined; // the open below reports why
    }
    if (st?.isFile() && sameStamp(request.previous, { mtimeMs: st.mtimeMs, size: st.size, ino: st.ino })) {
      return { kind: 'unchanged', stamp: request.previous };
    }
  }
  let fd: number;
  try {
    fd = openSync(request.filePath, OPEN_FLAGS);
  } catch (error) {
    return openFailure(error);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { kind: 'gone' };
    const stamp: FileStamp = { mtimeMs: st.mtimeMs, size: st.size, ino: st.ino };
    if (request.previous && sameStamp(request.previous, stamp)) return { kind: 'unchanged', stamp };
    if (st.size > maxBytes) {
      return { kind: 'skipped', reason: `it is ${formatBytes(st.size)}, over the ${formatBytes(maxBytes)} limit for agent files`, stamp };
    }
    const buffer = ensureScratch(offset + st.size, offset);
    let filled = 0;
    while (filled < st.size) {
      const n = readSync(fd, buffer, offset + filled, st.size - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return { kind: 'bytes', end: offset + filled, stamp };
  } catch (error) {
    return { kind: 'skipped', reason: `it cannot be read (${describeError(error)})`, stamp: null };
  } finally {
    closeSync(fd);
  }
}

/** Reads one agent file synchronously (see readAgentFilesSync). */
export function readAgentFileSync(filePath: string, maxBytes: number, previous?: FileStamp): FileRead {
  return readAgentFilesSync([{ filePath, previous }], 0, { maxBytes }).reads[0]!;
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
