// Getting the product under test ready: the packaged .vsix, code-server and
// a throw-away copy of the sample workspace.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureCodeServer, ensureSystemPackages } from '../../../scripts/code-server.mjs';
import { cleanEnv } from '../../../scripts/env.mjs';
import { commitAll, initRepository } from '../../../scripts/product.mjs';
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
 * repository (agents that use worktrees need one) as `npm start` makes it,
 * whatever the machine's git config, so tests can change it freely.
 */
export function copySampleWorkspace(): Workspace {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'subagents-e2e-'));
  const dir = path.join(parent, 'sample-workspace');
  cpSync(sampleWorkspace, dir, { recursive: true });
  initRepository(dir, 'sample workspace');
  return {
    dir,
    commit: (message) => commitAll(dir, message),
    remove: () => rmSync(parent, { recursive: true, force: true }),
  };
}
