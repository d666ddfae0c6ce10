// Shared by the two README commands (`npm start`, `npm test`): make sure the
// npm dependencies are installed and find the Node 24 that the `node` npm
// package installs, so everything runs on the Node VS Code users have even on
// a machine whose own node is older. Plain ESM that runs on Node 20.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { withProgress } from './progress.mjs';

export const root = path.resolve(import.meta.dirname, '..');

/**
 * `process.env` without what an outer npm put there. `npm test` and
 * `npm start` run under whatever npm the user has (often a system npm on an
 * older Node), which exports its config as `npm_config_*` variables (and
 * `npm_config_user_agent`, `NODE`, `INIT_CWD` …) and puts the project's
 * `node_modules/.bin` first on PATH (as do we, with Node 24's folder). A nested npm reads those variables as
 * its own config, and lifecycle scripts read them too: code-server's
 * postinstall takes the Node version from `npm_config_user_agent` and refused
 * to install because the outer npm ran on Node 20. And with
 * `node_modules/.bin` first, `node` is the Node 24 of the `node` package, so a
 * nested npm would run on it and look for its global npmrc (registry, a
 * proxy's `cafile`) next to it. Every child we start gets this clean
 * environment, so it behaves as if started from a shell.
 */
export function cleanEnv(env = process.env) {
  const clean = {};
  for (const [key, value] of Object.entries(env)) {
    // NODE_TEST_CONTEXT: set by `node --test` for its children; a `node --test`
    // started further down (an agent running a project's tests) would skip them.
    if (value === undefined || /^npm_/i.test(key) || key === 'NODE' || key === 'INIT_CWD' || key === 'NODE_TEST_CONTEXT') continue;
    clean[key] = value;
  }
  if (clean.PATH) clean.PATH = shellPath(clean.PATH);
  return clean;
}

/**
 * PATH without folders inside node_modules: the `.bin` folders npm puts in
 * front of it for scripts, and the Node 24 folder node24Env() adds.
 */
export function shellPath(value) {
  return value
    .split(path.delimiter)
    .filter((dir) => !/[\\/]node_modules[\\/]/.test(dir))
    .join(path.delimiter);
}

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env: cleanEnv(), ...opts });
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
  const r = withProgress(
    { label: 'npm ci', estimate: '20 s with a warm npm cache, 2–3 min on a fresh or busy machine', watch: path.join(root, 'node_modules'), cwd: root, env: cleanEnv() },
    'npm',
    ['ci', '--no-audit', '--no-fund'],
  );
  if (r.error) throw r.error;
  if (r.status !== 0) {
    console.error(`\n✕ npm ci exited with ${r.status}`);
    process.exit(r.status);
  }
}

/** The Node 24 binary from the `node` devDependency. */
export function node24() {
  return path.join(root, 'node_modules/node/bin/node');
}

/** Environment for child processes: the clean environment (see cleanEnv), Node 24 first on PATH. */
export function node24Env(extra = {}, env = process.env) {
  const clean = cleanEnv(env);
  const bin = path.dirname(node24());
  return { ...clean, PATH: [bin, clean.PATH].filter(Boolean).join(path.delimiter), ...extra };
}
