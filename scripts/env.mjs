// Shared by the two README commands (`npm start`, `npm test`): make sure the
// npm dependencies are installed and find the Node 24 that the `node` npm
// package installs, so everything runs on the Node VS Code users have even on
// a machine whose own node is older. Plain ESM that runs on Node 20.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.error?.code === 'ETIMEDOUT') {
    console.error(`\n✕ ${cmd} ${args.slice(0, 4).join(' ')}… did not finish within ${Math.round(opts.timeout / 60_000)} min and was stopped`);
    return 124;
  }
  if (r.error) throw r.error;
  return r.status ?? 1;
}

export function mustRun(cmd, args, opts = {}) {
  const status = run(cmd, args, opts);
  if (status !== 0) {
    console.error(`\n✕ ${cmd} ${args.join(' ')} exited with ${status}`);
    process.exit(status);
  }
}

/** Runs `npm ci` when node_modules is missing or older than the lockfile. */
export function ensureDependencies() {
  const marker = path.join(root, 'node_modules/.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  const fresh = existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs;
  if (fresh && existsSync(node24())) return;
  console.log('› installing npm dependencies (npm ci)…');
  mustRun('npm', ['ci', '--no-audit', '--no-fund']);
}

/** The Node 24 binary from the `node` devDependency. */
export function node24() {
  return path.join(root, 'node_modules/node/bin/node');
}

/** Environment for child processes: Node 24 first on PATH. */
export function node24Env(extra = {}) {
  const bin = path.dirname(node24());
  return { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, ...extra };
}
