import { mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomicFile';

/**
 * The one way the product keeps state on disk (run files, transcripts,
 * mailbox entries, pooled worktrees), so each kind of file gets the same
 * promises:
 *
 * - **A version in each file.** A JSON file is `{ "version": n, … }`; an
 *   append-only log starts with a header line naming its kind and version.
 *   Each kind lists a reader per version it can read: the current one, and
 *   every older one it keeps (files written before versions existed are
 *   version 0). A file of a newer version is left as it is, never taken
 *   for a broken one: another build of the product sharing the folder
 *   (an older VS Code extension beside a newer CLI) wrote it.
 * - **Failed writes are retried, then surfaced.** A write that fails for a
 *   passing reason (a full disk being cleaned, too many open files) is tried
 *   again a few times; if it still fails, the error names the file and what
 *   it held, for the caller to tell the user and try again later. An append
 *   that fails leaves the log as it was (a half-written line is cut off
 *   again), so a later retry appends whole lines.
 * - **Unreadable parts are named.** Reading never skips what it cannot
 *   parse without saying so: a whole file that cannot be read is an
 *   `UnreadableFile` error; a log returns its readable entries together with
 *   one problem per entry it could not read.
 */

/** A file of a newer version than this build reads: left alone. */
export class NewerVersion extends Error {
  override name = 'NewerVersion';

  constructor(
    readonly what: string,
    readonly version: number,
    readonly known: number,
  ) {
    super(`it is a ${what} of version ${version}, written by a newer version of subagents (this one reads up to version ${known}); it was left as it is`);
  }
}

/** A file that is not what its kind says (not JSON, an unknown older version, a shape its reader refuses). */
export class UnreadableFile extends Error {
  override name = 'UnreadableFile';
}

/** A write that still failed after its retries; the message names the file and what it held. */
export class WriteFailed extends Error {
  override name = 'WriteFailed';

  constructor(
    message: string,
    readonly code: string | undefined,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

/** One kind of versioned JSON file. */
export interface JsonFormat<T> {
  /** What the file holds, for messages: "run file", "mailbox entry". */
  what: string;
  /** The version written now. */
  version: number;
  /**
   * A reader per version this build reads (0: files written before versions
   * existed): the parsed object in (its `version` included), the value out;
   * throws when its shape is wrong.
   */
  readers: Readonly<Record<number, (data: Record<string, unknown>) => T>>;
  /** The file's fields for a value (its version is added). */
  fields(value: T): Record<string, unknown>;
}

/** The file's text for `value`, in the current version. */
export function encodeJson<T>(format: JsonFormat<T>, value: T): string {
  return JSON.stringify({ version: format.version, ...format.fields(value) });
}

/** The value in a file's text; throws NewerVersion or UnreadableFile. */
export function decodeJson<T>(format: JsonFormat<T>, text: string): T {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UnreadableFile(`it is not JSON (${firstLine(error)})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new UnreadableFile(`it is not a ${format.what}`);
  const fields = data as Record<string, unknown>;
  const version = fields.version === undefined ? 0 : fields.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) throw new UnreadableFile(`its version ${JSON.stringify(version)} is not a version`);
  if (version > format.version) throw new NewerVersion(format.what, version, format.version);
  const reader = Object.hasOwn(format.readers, version) ? format.readers[version] : undefined;
  if (!reader) throw new UnreadableFile(`it is a ${format.what} of version ${version}, which this version of subagents no longer reads`);
  try {
    return reader(fields);
  } catch (error) {
    throw new UnreadableFile(`it is not a valid ${format.what} (${firstLine(error)})`);
  }
}

/** Errors worth another try: the cause may pass within moments. */
const PASSING = new Set(['EAGAIN', 'EBUSY', 'EINTR', 'EMFILE', 'ENFILE', 'ENOSPC', 'EIO', 'ETIMEDOUT', 'EPERM']);
/** Waits before each retry. */
const RETRY_DELAYS_MS = [20, 100, 400];

/** Runs `attempt` until it succeeds or fails for good (a passing error past the retries, or any other error at once); throws WriteFailed. */
export async function withRetries(what: string, file: string, attempt: () => Promise<void>, delays: readonly number[]): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await attempt();
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (i >= delays.length || !code || !PASSING.has(code)) {
        throw new WriteFailed(`Could not save the ${what} ${file}: ${firstLine(error)}`, code, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, delays[i]));
    }
  }
}

export interface WriteOptions {
  /** Waits before each retry (tests use none). */
  retryDelaysMs?: readonly number[];
}

/** Writes a versioned JSON file atomically (see atomicFile.ts), with retries; throws WriteFailed. */
export async function writeJson<T>(format: JsonFormat<T>, file: string, value: T, options: WriteOptions = {}): Promise<void> {
  await writeEncoded(format, file, encodeJson(format, value), options);
}

/** Writes a file's text made by encodeJson earlier (a snapshot taken at once, written after a wait), with retries; throws WriteFailed. */
export async function writeEncoded(format: Pick<JsonFormat<unknown>, 'what'>, file: string, text: string, options: WriteOptions = {}): Promise<void> {
  await withRetries(format.what, file, () => writeFileAtomic(file, text), options.retryDelaysMs ?? RETRY_DELAYS_MS);
}

/** Reads a versioned JSON file: null when there is none; throws NewerVersion, UnreadableFile, or the read error. */
export async function readJson<T>(format: JsonFormat<T>, file: string): Promise<T | null> {
  const text = await readIfThere(file);
  return text === null ? null : decodeJson(format, text);
}

/** A file's text; null when there is no such file. */
async function readIfThere(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** One kind of append-only log: a header line, then one JSON value per line. */
export interface LogFormat<T> {
  /** What the log holds, for messages: "transcript". */
  what: string;
  /** Written in the header line: `{"subagents":"<kind>","version":n}`. */
  kind: string;
  version: number;
  /** A reader per version this build reads (0: logs without a header): one line's value in, the entry out; throws when it is wrong. */
  readers: Readonly<Record<number, (value: unknown) => T>>;
}

export interface LogRead<T> {
  entries: T[];
  /** One line per part that could not be read: which line, and why. */
  problems: string[];
}

function header(format: LogFormat<unknown>): string {
  return JSON.stringify({ subagents: format.kind, version: format.version });
}

/**
 * Appends whole lines to a log, each append all or nothing: the log's size
 * is noted first, and a failed append is cut back to it before the retry
 * (or before the error is thrown), so a torn line never joins the next one.
 * A new log starts with its header. Appends to one file must not overlap:
 * callers chain them (TranscriptStore does, per agent).
 */
export async function appendLog<T>(format: LogFormat<T>, file: string, values: readonly T[], options: WriteOptions = {}): Promise<void> {
  if (values.length === 0) return;
  const lines = `${values.map((v) => JSON.stringify(v)).join('\n')}\n`;
  await withRetries(
    format.what,
    file,
    async () => {
      // One open for the size and the write: an append is a few system calls (a run of 200 agents appends
      // thousands of times), the folder made only when the log is new.
      const handle = await open(file, 'a', 0o600).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
        await mkdir(path.dirname(file), { recursive: true });
        return open(file, 'a', 0o600);
      });
      try {
        const size = (await handle.stat()).size;
        try {
          await handle.appendFile(size === 0 ? `${header(format)}\n${lines}` : lines);
        } catch (error) {
          await handle.truncate(size).catch(() => undefined);
          throw error;
        }
      } finally {
        await handle.close();
      }
    },
    options.retryDelaysMs ?? RETRY_DELAYS_MS,
  );
}

/**
 * Reads a log: null when there is none; else every entry it can read, and a
 * problem for each part it cannot (a line cut short by a crash, a line that
 * is not an entry), never silently skipped. A log of a newer version throws
 * NewerVersion.
 */
export async function readLog<T>(format: LogFormat<T>, file: string): Promise<LogRead<T> | null> {
  const text = await readIfThere(file);
  return text === null ? null : parseLog(format, text);
}

export function parseLog<T>(format: LogFormat<T>, text: string): LogRead<T> {
  const lines = text.split('\n');
  // A log that does not end with a line break was cut short while a line was written.
  const torn = lines.at(-1) !== '' ? lines.length : 0;
  let version = 0;
  let start = 0;
  const first = parseLine(lines[0] ?? '');
  if (first.ok && isHeader(first.value, format.kind)) {
    version = first.value.version;
    start = 1;
  }
  if (version > format.version) throw new NewerVersion(format.what, version, format.version);
  const reader = Object.hasOwn(format.readers, version) ? format.readers[version] : undefined;
  if (!reader) throw new UnreadableFile(`it is a ${format.what} of version ${version}, which this version of subagents no longer reads`);
  const entries: T[] = [];
  const problems: string[] = [];
  for (let i = start; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    const number = i + 1;
    if (number === torn) {
      problems.push(`line ${number} was cut short while it was being written (${line.length} characters kept of it)`);
      continue;
    }
    const parsed = parseLine(line);
    if (!parsed.ok) {
      problems.push(`line ${number} is not JSON (${parsed.reason})`);
      continue;
    }
    try {
      entries.push(reader(parsed.value));
    } catch (error) {
      problems.push(`line ${number} is not a valid entry (${firstLine(error)})`);
    }
  }
  return { entries, problems };
}

function parseLine(line: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(line) as unknown };
  } catch (error) {
    return { ok: false, reason: firstLine(error) };
  }
}

function isHeader(value: unknown, kind: string): value is { subagents: string; version: number } {
  const v = value as { subagents?: unknown; version?: unknown } | null;
  return typeof v === 'object' && v !== null && v.subagents === kind && typeof v.version === 'number' && Number.isInteger(v.version);
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
