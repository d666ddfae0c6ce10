import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';

/** Runs git in `cwd` and returns its stdout (the benchmarks' own git, outside what they measure). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * `root/repo`: a git repository with one commit of `files` small files
 * (`src/d<n>/f<i>.ts`, 100 per folder), the shape the worktree benchmarks
 * measure checkouts of.
 */
export function makeFilesRepo(root: string, files: number): string {
  const perDir = 100;
  const repo = path.join(root, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'Bench');
  git(repo, 'config', 'user.email', 'bench@example.com');
  for (let i = 0; i < files; i++) {
    const dir = path.join(repo, 'src', `d${Math.floor(i / perDir)}`);
    if (i % perDir === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'files');
  return repo;
}

/**
 * What a person does by hand instead of a fan-out of `editors` isolated
 * editors: `git worktree add -b`, write the file, `git add`, `git commit`,
 * one after the other; returns the milliseconds that took. The worktrees
 * are removed afterwards, outside the timing (as a user's discards are).
 */
export function plainFanOut(repo: string, dir: string, round: number, editors: number): number {
  const made: Array<{ p: string; b: string }> = [];
  const t0 = performance.now();
  for (let i = 0; i < editors; i++) {
    const p = path.join(dir, `r${round}-${i}`);
    const b = `plain/r${round}-${i}`;
    git(repo, 'worktree', 'add', '-q', p, '-b', b);
    mkdirSync(path.join(p, 'out'));
    writeFileSync(path.join(p, 'out', `editor-${i}.txt`), `written by editor ${i}\n`);
    git(p, 'add', '-A');
    git(p, 'commit', '-q', '-m', `editor ${i}`);
    made.push({ p, b });
  }
  const ms = performance.now() - t0;
  for (const { p, b } of made) {
    git(repo, 'worktree', 'remove', '--force', p);
    git(repo, 'branch', '-q', '-D', b);
  }
  return ms;
}
