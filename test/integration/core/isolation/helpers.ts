import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorktreeManager, type IsolationLogLevel } from '../../../../src/core/isolation';

/** A throwaway repository, state folder and worktrees folder under one temp dir. */
export interface Sandbox {
  root: string;
  repo: string;
  stateDir: string;
  worktreesRoot: string;
  /** Runs git in the repository (or `cwd`) and returns stdout. */
  git: (args: string[], cwd?: string) => string;
  write: (rel: string, content: string | Buffer, cwd?: string) => void;
  read: (rel: string, cwd?: string) => string;
  exists: (rel: string, cwd?: string) => boolean;
  manager: (opts?: { log?: boolean }) => WorktreeManager;
  /** What must not change when an agent works in isolation: status, index, stash, refs. */
  userState: () => UserState;
  cleanup: () => void;
}

export interface UserState {
  status: string;
  index: string;
  stash: string;
  refs: string;
  head: string;
}

// GIT_OPTIONAL_LOCKS=0: the tests' own `git status` must not refresh (rewrite)
// the index, or "the user's index is untouched" could not be checked byte for byte.
export function git(args: string[], cwd: string): string {
  return execFileSync('git', ['-c', 'commit.gpgSign=false', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
  });
}

export function makeSandbox(files: Record<string, string> = { 'README.md': '# demo\n', 'src/app.ts': 'export const a = 1;\n' }): Sandbox {
  const root = mkdtempSync(path.join(os.tmpdir(), 'subagents-isolation-'));
  const repo = path.join(root, 'repo');
  mkdirSync(repo);
  const run = (args: string[], cwd = repo) => git(args, cwd);
  run(['init', '-q', '-b', 'main']);
  run(['config', 'user.name', 'Test User']);
  run(['config', 'user.email', 'test@example.com']);
  const write = (rel: string, content: string | Buffer, cwd = repo) => {
    const file = path.join(cwd, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  };
  if (Object.keys(files).length > 0) {
    for (const [rel, content] of Object.entries(files)) write(rel, content);
    run(['add', '-A']);
    run(['commit', '-q', '-m', 'initial']);
  }
  const managers: WorktreeManager[] = [];
  const sandbox: Sandbox = {
    root,
    repo,
    stateDir: path.join(root, 'state'),
    worktreesRoot: path.join(root, 'worktrees'),
    git: run,
    write,
    read: (rel, cwd = repo) => readFileSync(path.join(cwd, rel), 'utf8'),
    exists: (rel, cwd = repo) => existsSync(path.join(cwd, rel)),
    manager: (opts = {}) => {
      const m = new WorktreeManager({
        stateDir: sandbox.stateDir,
        worktreesRoot: sandbox.worktreesRoot,
        log: opts.log ? (level: IsolationLogLevel, msg: string) => console.log(`[${level}] ${msg}`) : undefined,
      });
      managers.push(m);
      return m;
    },
    userState: () => ({
      status: run(['status', '--porcelain=v1', '--untracked-files=all']),
      index: `${createHash('sha256').update(readFileSync(path.join(repo, '.git', 'index'))).digest('hex')} ${statSync(path.join(repo, '.git', 'index')).mtimeMs}`,
      stash: run(['stash', 'list']),
      refs: run(['for-each-ref', '--format=%(refname) %(objectname)']),
      head: run(['rev-parse', 'HEAD']),
    }),
    cleanup: () => {
      for (const m of managers) m.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
  return sandbox;
}

/** Refs that differ between two `for-each-ref` listings. */
export function newRefs(before: string, after: string): string[] {
  const old = new Set(before.split('\n'));
  return after.split('\n').filter((l) => l && !old.has(l)).map((l) => l.split(' ')[0]!);
}

export function branchExists(sb: Sandbox, branch: string): boolean {
  return sb.git(['branch', '--list', branch]).trim() !== '';
}

/**
 * A folder holding a `git` that runs `onMatch` (shell, with `$REAL` the real
 * git and `$DIR` the folder) for calls whose arguments contain `match`, and
 * the real git for every other call; `env` puts it first on PATH.
 */
function gitShim(root: string, prefix: string, match: string, onMatch: (dir: string) => string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(path.join(root, prefix));
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(path.join(dir, 'git'), `#!/bin/sh\nREAL="${real}"\nDIR="${dir}"\ncase " $* " in\n  *" ${match} "*)\n${onMatch(dir)}\n;;\nesac\nexec "$REAL" "$@"\n`, { mode: 0o755 });
  return { dir, env: { ...process.env, PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}` } };
}

/** Runs `fn` with `dir` first on this process's PATH. */
async function withPath<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.PATH;
  process.env.PATH = `${dir}${path.delimiter}${saved}`;
  try {
    return await fn();
  } finally {
    process.env.PATH = saved;
  }
}

/** The numbers a shim wrote one per line into `file` of its folder. */
function numbersIn(dir: string, file: string): number[] {
  return existsSync(path.join(dir, file)) ? readFileSync(path.join(dir, file), 'utf8').trim().split('\n').map(Number) : [];
}

/**
 * Runs `fn` with a `git` on PATH that holds every call whose arguments
 * contain `match` until a second such call is running too (or 5 s passed),
 * and returns the most such calls seen running at once. Work done strictly
 * one after the other can never show more than 1, whatever the timing.
 */
export async function maxConcurrentGit<T>(root: string, match: string, fn: () => Promise<T>): Promise<{ result: T; maxConcurrent: number }> {
  const shim = gitShim(root, 'git-probe-', match, () => `
    touch "$DIR/running.$$"
    i=0
    while [ "$(ls "$DIR" | grep -c '^running')" -lt 2 ] && [ ! -e "$DIR/met" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
    n="$(ls "$DIR" | grep -c '^running')"
    [ "$n" -ge 2 ] && touch "$DIR/met"
    echo "$n" >> "$DIR/seen"
    "$REAL" "$@"; code=$?
    rm -f "$DIR/running.$$"
    exit $code`);
  const result = await withPath(shim.dir, fn);
  return { result, maxConcurrent: Math.max(0, ...numbersIn(shim.dir, 'seen')) };
}

/**
 * A `git` for child processes (put `env` in their environment) that holds
 * every call whose arguments contain `match` for `holdMs`, and counts how
 * many such calls ran at once, across all processes that use it. Calls made
 * one after the other always count 1; overlapping ones show within the hold.
 */
export function gitOverlapProbe(root: string, match: string, holdMs: number): { env: NodeJS.ProcessEnv; maxConcurrent: () => number } {
  const shim = gitShim(root, 'git-overlap-', match, () => `
    touch "$DIR/running.$$"
    ls "$DIR" | grep -c '^running' >> "$DIR/seen"
    sleep ${(holdMs / 1000).toFixed(3)}
    "$REAL" "$@"; code=$?
    rm -f "$DIR/running.$$"
    exit $code`);
  return { env: shim.env, maxConcurrent: () => Math.max(0, ...numbersIn(shim.dir, 'seen')) };
}

/**
 * A `git` for child processes that stops every call whose arguments contain
 * `match`: it creates `reached` and sleeps instead of running, until killed
 * (spawn the child detached and kill its whole process group).
 */
export function gitStopper(root: string, match: string): { env: NodeJS.ProcessEnv; reached: string } {
  const shim = gitShim(root, 'git-stop-', match, () => '    touch "$DIR/reached"; exec sleep 600');
  return { env: shim.env, reached: path.join(shim.dir, 'reached') };
}

/** Runs `fn` with a `git` on PATH that counts the calls whose arguments contain `match`; returns how many there were. */
export async function countGitCalls<T>(root: string, match: string, fn: () => Promise<T>): Promise<{ result: T; calls: number }> {
  const shim = gitShim(root, 'git-count-', match, () => '    echo 1 >> "$DIR/calls"');
  const result = await withPath(shim.dir, fn);
  return { result, calls: numbersIn(shim.dir, 'calls').length };
}
