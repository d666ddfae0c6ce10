// How `npm start` runs the product, shared with the e2e tests that check it:
// the sample workspace (a git repository of its own), the built-in demo model
// when there is no API key, and code-server with the packaged extension on a
// workspace. Plain ESM that runs on Node 20 and 24.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCodeServer } from './code-server.mjs';
import { cleanEnv, node24, node24Env, root } from './env.mjs';

export const SAMPLE_WORKSPACE_FIXTURE = path.join(root, 'test/fixtures/sample-workspace');

/**
 * For our own repositories, whatever the user's git config says: no hooks
 * (a failing or slow hook, a global core.hooksPath), no commit signing (a
 * global commit.gpgSign without a usable key), no fsmonitor command, and an
 * identity of our own, so a machine where git knows no user works too.
 */
const OWN_REPOSITORY_CONFIG = [
  ['core.hooksPath', os.devNull],
  ['commit.gpgSign', 'false'],
  ['core.fsmonitor', 'false'],
  ['user.name', 'Subagents sample'],
  ['user.email', 'sample@example.invalid'],
].flatMap(([key, value]) => ['-c', `${key}=${value}`]);

/** Set by git for hooks; inherited, they would point every command at another repository. */
const INHERITED_GIT_VARS = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_PREFIX'];

function gitEnv() {
  const env = cleanEnv();
  for (const name of INHERITED_GIT_VARS) delete env[name];
  return env;
}

/** Runs git in `dir` with OWN_REPOSITORY_CONFIG; throws with git's own words when it fails. */
function ownGit(dir, args) {
  const r = spawnSync('git', [...OWN_REPOSITORY_CONFIG, ...args], { cwd: dir, env: gitEnv(), encoding: 'utf8', stdio: 'pipe' });
  if (r.error || r.status !== 0) {
    const said = r.error?.code === 'ENOENT' ? 'git was not found on PATH' : `${r.stderr ?? ''}${r.stdout ?? ''}`.trim() || `exit ${r.status}`;
    throw new Error(`\`git ${args.join(' ')}\` failed in ${dir}: ${said}`);
  }
  return r.stdout;
}

/** Commits everything in `dir`, a repository made by initRepository. */
export function commitAll(dir, message) {
  ownGit(dir, ['add', '-A']);
  ownGit(dir, ['commit', '-q', '--no-verify', '-m', message]);
}

/** Makes `dir` a git repository of its own, on branch main, with everything in it committed. */
export function initRepository(dir, message) {
  ownGit(dir, ['init', '-q']);
  // Rather than `init -b main` (git 2.28+); whatever init.defaultBranch says.
  ownGit(dir, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
  commitAll(dir, message);
}

/** Whether `dir` is a repository of its own with a commit (inside this checkout, git would otherwise find ours). */
function hasOwnCommit(dir) {
  if (!existsSync(path.join(dir, '.git'))) return false;
  return spawnSync('git', ['rev-parse', '--verify', '-q', 'HEAD'], { cwd: dir, env: gitEnv(), stdio: 'ignore' }).status === 0;
}

/**
 * The sample workspace `npm start` opens: a copy of the fixture in `dir`, a
 * git repository of its own (worktree isolation needs one), kept between
 * runs. A copy left without a commit (by a start that failed there) is
 * committed now; a new copy that cannot be made a repository is removed
 * again, so the next start tries afresh. Throws an error that says why.
 */
export function ensureSampleWorkspace(dir, { reset = false } = {}) {
  if (reset) rmSync(dir, { recursive: true, force: true });
  const created = !existsSync(dir);
  if (!created && hasOwnCommit(dir)) return dir;
  if (created) cpSync(SAMPLE_WORKSPACE_FIXTURE, dir, { recursive: true });
  try {
    initRepository(dir, 'Sample workspace');
  } catch (error) {
    if (created) rmSync(dir, { recursive: true, force: true });
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `The sample workspace ${dir} could not be made a git repository (agents' worktree isolation needs one).\n${message}` +
        (created ? '' : '\nTo start afresh: npm start -- --reset-workspace'),
    );
  }
  return dir;
}

/** Read by the extension (src/vscode/apiKey.ts): the demo model's address. */
export const DEMO_MODEL_ENV = 'SUBAGENTS_DEMO_MODEL_URL';

/**
 * Starts the demo model (scripts/demo-model.ts, on Node 24 through tsx) and
 * resolves with its address once it listens. stop() ends it; it also ends
 * when this process does.
 */
export function startDemoModel({ port } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(node24(), ['--import', 'tsx', 'scripts/demo-model.ts', ...(port ? [`--port=${port}`] : [])], {
      cwd: root,
      env: node24Env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let settled = false;
    const stop = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    };
    process.once('exit', stop);
    const fail = (message) => {
      if (settled) return;
      settled = true;
      stop();
      reject(new Error(`${message}\n${output.trim().split('\n').slice(-20).join('\n')}`));
    };
    const timer = setTimeout(() => fail('The demo model did not start within 30 s.'), 30_000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const url = /demo model listening on (\S+)/.exec(output)?.[1];
      if (url && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve({ url, pid: child.pid, stop, exited: new Promise((r) => child.once('exit', r)) });
      }
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', (error) => fail(`The demo model could not start: ${error.message}`));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(`The demo model exited during start-up (${signal ?? `code ${code}`}).`);
    });
  });
}

/**
 * The startCodeServer options `npm start` uses: `workspace` with the packaged
 * extension, trusted, pointed at the demo model when `demoModelUrl` is given.
 */
export function productServerOptions({ workspace, vsixPath, port, demoModelUrl, env = {}, ...options }) {
  return {
    workspace,
    vsixPath,
    trust: true,
    port,
    // The user's own history, shared with the CLI in their terminal.
    userDirs: 'user',
    // Ctrl+C ends the session: an agent host its window started exits once its agents are done (one the user ran stays).
    stopOwnHost: true,
    env: { ...env, ...(demoModelUrl ? { [DEMO_MODEL_ENV]: demoModelUrl } : {}) },
    ...options,
  };
}

/** code-server as `npm start` runs it (see productServerOptions). Returns startCodeServer's handle. */
export function startProductInCodeServer(options) {
  return startCodeServer(productServerOptions(options));
}
