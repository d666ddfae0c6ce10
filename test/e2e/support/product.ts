// Getting the product under test ready: the packaged .vsix, code-server and
// a throw-away copy of the sample workspace.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureCodeServer, ensureSystemPackages } from '../../../scripts/code-server.mjs';
import { cleanEnv } from '../../../scripts/env.mjs';
import { repoRoot, sampleWorkspace, vsixPath } from './paths';

/** The packaged extension; built with `npm run package` when missing (test.mjs builds it before this phase). */
export function ensureVsix(): string {
  if (!existsSync(vsixPath)) {
    const r = spawnSync('npm', ['run', '--silent', 'package'], { cwd: repoRoot, stdio: 'inherit', env: cleanEnv() });
    if (r.status !== 0 || !existsSync(vsixPath)) throw new Error(`\`npm run package\` did not produce ${vsixPath}`);
  }
  return vsixPath;
}

/** Debian packages and code-server (cached after the first run). */
export function ensureCodeServerReady(): void {
  ensureSystemPackages();
  ensureCodeServer();
}

export interface Workspace {
  dir: string;
  /** Commits everything in the workspace (so what a test adds is not a pile of untracked files). */
  commit(message: string): void;
  remove(): void;
}

/**
 * A fresh copy of the sample workspace in a temp dir, committed to a new git
 * repository (agents that use worktrees need one), so tests can change it
 * freely.
 */
export function copySampleWorkspace(): Workspace {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'subagents-e2e-'));
  const dir = path.join(parent, 'sample-workspace');
  cpSync(sampleWorkspace, dir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      stdio: 'pipe',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'e2e',
        GIT_AUTHOR_EMAIL: 'e2e@example.invalid',
        GIT_COMMITTER_NAME: 'e2e',
        GIT_COMMITTER_EMAIL: 'e2e@example.invalid',
      },
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'sample workspace');
  return {
    dir,
    commit: (message) => {
      git('add', '-A');
      git('commit', '-q', '-m', message);
    },
    remove: () => rmSync(parent, { recursive: true, force: true }),
  };
}
