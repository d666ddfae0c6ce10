import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { IsolationError } from './errors';
import { childEnv } from '../childEnv';

/**
 * The one place that runs the `git` CLI. Everything in isolation/ goes
 * through `git()` so that the environment, error shape and lock retries are
 * the same for every call.
 */

export interface GitOptions {
  cwd: string;
  /** Extra environment, e.g. `GIT_INDEX_FILE` for a private index. */
  env?: Record<string, string>;
  /** Written to git's stdin, then stdin is closed. */
  input?: string;
  /** Exit codes that are answers rather than failures (e.g. 1 for `diff --quiet`). */
  okCodes?: readonly number[];
  /**
   * Retry while another git process holds a lock file (`index.lock`,
   * `packed-refs.lock`, a ref's `.lock`). Only for commands that fail before
   * changing anything when the lock is taken, which is how git behaves for
   * every command we mark.
   */
  retryOnLock?: boolean;
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    readonly args: readonly string[],
    readonly code: number,
    readonly stderr: string,
    readonly cwd: string,
  ) {
    super(`git ${args.join(' ')} failed (exit ${code}) in ${cwd}: ${firstLine(stderr) || 'no message'}`);
  }

  /** git's own explanation, without the `fatal: ` prefix: fit for a user message. */
  get reason(): string {
    return firstLine(this.stderr).replace(/^(fatal|error): /, '') || `git ${this.args[0] ?? ''} exited with ${this.code}`;
  }
}

/** The part of an error fit for a user message: git's own reason, or the message. */
export function describeError(e: unknown): string {
  if (e instanceof GitError) return e.reason;
  return e instanceof Error ? e.message : String(e);
}

/** The lock another git process holds, when that is why the command failed. */
export function heldLock(stderr: string): string | undefined {
  const m = /Unable to create '([^']+\.lock)': File exists/.exec(stderr);
  return m?.[1];
}

// Variables git sets for hooks and that would point every command at the wrong
// repository or index if the product itself runs inside a hook (or a test
// runner started from one).
const INHERITED_GIT_VARS = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_PREFIX',
  'GIT_NAMESPACE',
  'GIT_QUARANTINE_PATH',
];

function baseEnv(): NodeJS.ProcessEnv {
  const env = childEnv();
  for (const name of INHERITED_GIT_VARS) delete env[name];
  // English messages so lock errors can be recognised; never prompt for
  // credentials (an LFS fetch during checkout must fail, not hang).
  env.LC_ALL = 'C';
  env.LANGUAGE = 'C';
  env.GIT_TERMINAL_PROMPT = '0';
  return env;
}

/** Backoff for lock retries: about 8 s in total before giving up. */
const LOCK_RETRY_DELAYS_MS = [25, 50, 100, 200, 400, 800, 1200, 1600, 1800, 1800];

function once(args: readonly string[], opts: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: opts.cwd,
      env: { ...baseEnv(), ...opts.env },
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e: NodeJS.ErrnoException) => {
      // spawn reports a missing working directory as ENOENT too: not git's absence.
      if (e.code === 'ENOENT' && !existsSync(opts.cwd)) {
        reject(new GitError(args, 128, `fatal: ${opts.cwd} does not exist`, opts.cwd));
      } else if (e.code === 'ENOENT') {
        reject(
          new IsolationError(
            'git-missing',
            'Worktree isolation needs git, but the "git" command was not found. Install git or add it to PATH, then try again.',
            { cause: e },
          ),
        );
      } else reject(e);
    });
    child.on('close', (code, signal) => {
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    if (opts.input !== undefined && child.stdin) {
      // git may exit before reading all input (e.g. on an early error); the
      // exit code reports that, so a broken pipe here is not an error of its own.
      child.stdin.on('error', () => {});
      child.stdin.end(opts.input);
    }
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs git; resolves with its output, rejects with GitError on failure. */
export async function git(args: readonly string[], opts: GitOptions): Promise<GitResult> {
  const ok = opts.okCodes ?? [0];
  for (let attempt = 0; ; attempt++) {
    const result = await once(args, opts);
    if (ok.includes(result.code)) return result;
    const lock = heldLock(result.stderr);
    const delay = LOCK_RETRY_DELAYS_MS[attempt];
    if (opts.retryOnLock && lock && delay !== undefined) {
      await sleep(delay + Math.floor(Math.random() * delay));
      continue;
    }
    if (lock) {
      throw new IsolationError(
        'locked',
        `Another git process kept ${lock} locked for too long. If no git command is running in this repository, delete that file and try again.`,
        { cause: new GitError(args, result.code, result.stderr, opts.cwd) },
      );
    }
    throw new GitError(args, result.code, result.stderr, opts.cwd);
  }
}

/** `git …` and its stdout without the trailing newline. */
export async function gitLine(args: readonly string[], opts: GitOptions): Promise<string> {
  return (await git(args, opts)).stdout.trim();
}

/** git's most telling line: the first `fatal:`/`error:` line, else the first that is not a hint. */
function firstLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim());
  return (
    lines.find((l) => /^(fatal|error):/.test(l)) ??
    lines.find((l) => l && !l.startsWith('hint:') && !l.startsWith('warning:')) ??
    ''
  );
}
