import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
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
