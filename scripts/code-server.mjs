// Real VS Code for `npm start` and the end-to-end tests: code-server from npm
// (4.139.1 bundles VS Code 1.139.1), installed once into a cache directory and
// started on a free local port. Plain ESM that runs on Node 20 and 24.
//
//   ensureSystemPackages()   Debian packages code-server's native build and the
//                            tests need (only the missing ones are installed)
//   ensureCodeServer()       installs code-server with Node 24 into the cache
//   startCodeServer(opts)    starts it; stop() kills its whole process tree
//   exthostLogs(), outputChannelLogs(), ...   where its logs end up
//
// Every server started here is stopped when this process exits, also on a
// test failure, an uncaught exception or Ctrl+C.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, node24, node24Env, root } from './env.mjs';
import { withProgress } from './progress.mjs';

export const CODE_SERVER_VERSION = '4.139.1';
export const EXTENSION_ID = 'subagents-dev.subagents';
export const SYSTEM_PACKAGES = ['libkrb5-dev', 'libsecret-1-dev', 'libxkbfile-dev', 'libx11-dev', 'chromium'];
export const CHROMIUM = '/usr/bin/chromium';
/** Flags for a headless Chromium in a container without GPU or network. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// ---------------------------------------------------------------------------
// System packages

function missingPackages(packages) {
  return packages.filter((p) => {
    const r = spawnSync('dpkg', ['-s', p], { stdio: 'pipe', encoding: 'utf8' });
    return r.status !== 0 || !/^Status: install ok installed$/m.test(r.stdout);
  });
}

/**
 * Installs the Debian packages that are not installed yet. Throws an error that
 * says what to install by hand when that is not possible (no apt, not root).
 */
export function ensureSystemPackages(packages = SYSTEM_PACKAGES) {
  if (spawnSync('dpkg', ['--version'], { stdio: 'ignore' }).status !== 0) {
    // Not Debian: trust the machine if the browser is there (the native build
    // will report any missing header itself).
    if (existsSync(CHROMIUM)) return;
    throw new Error(`This is not a Debian system. Install these (or your distribution's equivalents) by hand: ${packages.join(' ')}`);
  }
  const missing = missingPackages(packages);
  if (missing.length === 0) return;
  const asRoot = process.getuid?.() === 0;
  const sudo = asRoot ? [] : ['sudo', '-n'];
  console.log(`› installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const [label, args] of [
    ['apt-get update', ['apt-get', 'update', '-qq']],
    [`apt-get install (${missing.length} package${missing.length === 1 ? '' : 's'})`, ['apt-get', 'install', '-y', '-qq', ...missing]],
  ]) {
    const cmd = [...sudo, ...args];
    const r = withProgress({ label, estimate: 'under a minute each on a fast mirror', capture: true, env }, cmd[0], cmd.slice(1));
    if (r.error || r.status !== 0) {
      const output = r.output.trim().split('\n').slice(-15).join('\n');
      throw new Error(
        `\`${cmd.join(' ')}\` failed (${r.error?.message ?? `exit ${r.status}`}).\n${output}\n` +
          `Install the packages by hand (as root): apt-get install ${missing.join(' ')}`,
      );
    }
  }
  const still = missingPackages(missing);
  if (still.length > 0) throw new Error(`apt-get finished but these packages are still missing: ${still.join(' ')}`);
}

// ---------------------------------------------------------------------------
// code-server installation

export function cacheDir() {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'subagents-vscode');
}

export function codeServerDir(version = CODE_SERVER_VERSION) {
  return path.join(cacheDir(), `code-server-${version}`);
}

/**
 * A directory with Node 24's headers for node-gyp: the platform package the
 * `node` npm package installs ships them (`include/node/`), as does a regular
 * Node installation next to its bin/. Without one node-gyp downloads them.
 */
function node24Headers() {
  const bin = path.dirname(node24());
  const candidates = [path.resolve(bin, '..')];
  const platformPackages = path.resolve(bin, '../node_modules');
  for (const name of existsSync(platformPackages) ? readdirSync(platformPackages) : []) {
    if (name.startsWith('node-')) candidates.push(path.join(platformPackages, name));
  }
  return candidates.find((dir) => existsSync(path.join(dir, 'include/node/common.gypi'))) ?? null;
}

/** The global npmrc the user's own npm reads (e.g. /usr/etc/npmrc), asked of npm as a shell would run it. */
export function shellNpmGlobalConfig() {
  const r = spawnSync('npm', ['config', 'get', 'globalconfig'], { env: cleanEnv(), encoding: 'utf8', stdio: 'pipe' });
  return r.status === 0 ? r.stdout.trim() : '';
}

/** The entry script of an installed code-server; it must be run with Node 24. */
function entryScript(dir) {
  return path.join(dir, 'node_modules/code-server/out/node/entry.js');
}

function installedVersion(dir) {
  if (!existsSync(entryScript(dir))) return null;
  const r = spawnSync(node24(), [entryScript(dir), '--version'], { encoding: 'utf8', stdio: 'pipe', timeout: 60_000 });
  if (r.status !== 0) return null;
  // It may log a line or two before `<version> <commit> with Code <version>`.
  return /^(\d+\.\d+\.\d+)\s/m.exec(r.stdout)?.[1] ?? null;
}

/** Installations already checked by this process. */
const verified = new Set();

/**
 * Installs code-server with Node 24 into the cache (reused when present) and
 * returns the command to run it. The install happens in a temporary sibling
 * directory that is renamed into place only once `--version` answers, so an
 * interrupted or broken install is never reused. npm runs in the clean
 * environment of node24Env (no inherited npm_* variables). `spec` is what npm
 * installs (a test passes a local tarball).
 */
export function ensureCodeServer(version = CODE_SERVER_VERSION, { spec = `code-server@${version}` } = {}) {
  const dir = codeServerDir(version);
  const command = { node: node24(), entry: entryScript(dir), dir, version };
  mkdirSync(path.dirname(dir), { recursive: true });
  // Leftovers of interrupted installs (not those of an install still running).
  for (const name of readdirSync(path.dirname(dir))) {
    const owner = name.startsWith(`${path.basename(dir)}.tmp-`) ? Number(name.split('.tmp-')[1]) : null;
    if (owner !== null && !processAlive(owner)) rmSync(path.join(path.dirname(dir), name), { recursive: true, force: true });
  }
  if (verified.has(dir) || installedVersion(dir) === version) {
    verified.add(dir);
    return command;
  }

  const tmp = `${dir}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ name: 'code-server-install', private: true }) + '\n');
  console.log(`› installing code-server ${version} into ${dir} (once; it downloads about 100 MB and builds native modules)…`);
  const env = node24Env({
    // npm on Node 24 looks for its global npmrc next to that Node (inside
    // node_modules), not where the user's npm keeps it: registry settings and
    // a proxy's certificate authority (`cafile`) would be lost.
    npm_config_globalconfig: shellNpmGlobalConfig(),
    // The user's npmrc may point node-gyp at the system Node's headers
    // (`nodedir`); the native modules must be built for Node 24.
    npm_config_nodedir: node24Headers() ?? '',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  });
  const r = withProgress(
    {
      label: `installing code-server ${version}`,
      estimate: '2 min on an idle 2-core machine, 5–10 min on a busy one',
      watch: tmp,
      // How far it got: npm unpacks the package, then its install script builds native modules.
      stages: [
        ...['kerberos', '@vscode/spdlog', '@vscode/sqlite3'].map((m) => [path.join(tmp, 'node_modules/code-server/lib/vscode/node_modules', m, 'build'), 'building native modules']),
        [path.join(tmp, 'node_modules/code-server/lib/vscode/node_modules'), "installing VS Code's own modules"],
        [path.join(tmp, 'node_modules/code-server/package.json'), 'unpacked; running its install script'],
      ],
      capture: true,
      cwd: tmp,
      env,
    },
    'npm',
    ['install', '--no-save', '--loglevel=error', spec],
  );
  if (r.error || r.status !== 0) {
    const output = r.output.trim().split('\n').slice(-30).join('\n');
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(
      `Installing code-server ${version} failed (${r.error?.message ?? `npm exit ${r.status}`}).\n${output}\n` +
        `It needs Node 24 (${node24()}) and the Debian packages ${SYSTEM_PACKAGES.slice(0, 4).join(' ')}.`,
    );
  }
  const got = installedVersion(tmp);
  if (got !== version) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`code-server was installed but \`code-server --version\` reports ${got ?? 'nothing'} instead of ${version}.`);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  verified.add(dir);
  return command;
}

// ---------------------------------------------------------------------------
// Running code-server

const running = new Set();
let handlersInstalled = false;

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** Whether any process of the process group `pid` still exists. */
export function processGroupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function installCleanupHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  // Last resort: synchronous, so it also runs on process.exit() and after an
  // uncaught exception.
  process.on('exit', () => {
    for (const server of running) killGroup(server.pid, 'SIGKILL');
  });
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ]) {
    process.once(signal, () => {
      void stopAllCodeServers().finally(() => process.exit(code));
    });
  }
}

/** Stops every code-server this process started and that still runs. */
export async function stopAllCodeServers() {
  await Promise.all([...running].map((s) => s.stop()));
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const DEFAULT_USER_SETTINGS = {
  // A calm, reproducible workbench: no welcome page, tips, open secondary
  // side bar or update prompts competing with what the tests look at.
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'git.openRepositoryInParentFolders': 'never',
};

function codeServerArgs(opts) {
  return [
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--config',
    opts.configFile,
    '--user-data-dir',
    opts.userDataDir,
    '--extensions-dir',
    opts.extensionsDir,
  ];
}

function runSync(cs, args, env) {
  const r = spawnSync(cs.node, [cs.entry, ...args], { encoding: 'utf8', stdio: 'pipe', env, timeout: 120_000 });
  return { status: r.error ? -1 : r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}` };
}

/**
 * Starts code-server on a free port of 127.0.0.1 for `workspace`.
 *   trust          true: --disable-workspace-trust; false: VS Code asks, restricted mode possible
 *   vsixPath       installed into the extensions dir before the server starts
 *   extensionDevelopmentPath, extensionTestsPath
 *                  load the extension from a folder / run a test runner in the
 *                  extension host; both take effect through `folderUrl`
 *   extensionsDir, userDataDir   default to fresh temporary directories
 *   env            extra environment for the server and its extension host
 *   settings       user settings merged over calm defaults
 *   args           extra code-server arguments
 *   keepDirs       keep the temporary directories after stop()
 *   port           a fixed port instead of a free one
 *   userDirs       'user': the extension keeps its history where the user's is
 *                  (npm start); default: in a temporary folder, as a test needs
 *   dataHome       that folder ($XDG_DATA_HOME), when a test prepares it
 *   runtimeDir     the agent host's folder ($XDG_RUNTIME_DIR); its host is
 *                  stopped with the server
 * Returns { url, folderUrl, port, pid, userDataDir, extensionsDir, dataHome, output(), exited, stop() }
 * (`exited` resolves with { code, signal } when the server process ends):
 * open `folderUrl` in a browser; stop() kills the server's whole process
 * group, waits until it is gone and removes the temporary directories.
 */
export async function startCodeServer(opts) {
  const { workspace, trust } = opts;
  if (typeof trust !== 'boolean') throw new Error('startCodeServer: pass trust: true or false');
  const cs = opts.codeServer ?? ensureCodeServer();
  installCleanupHandlers();

  const tmpRoot = mkdtempSync(path.join(os.tmpdir(), 'subagents-code-server-'));
  const userDataDir = opts.userDataDir ?? path.join(tmpRoot, 'user-data');
  const extensionsDir = opts.extensionsDir ?? path.join(tmpRoot, 'extensions');
  const configFile = path.join(tmpRoot, 'config.yaml');
  mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  // Our own config file, so code-server never writes one into the user's home.
  writeFileSync(configFile, 'auth: none\ncert: false\n');
  const settingsFile = path.join(userDataDir, 'User/settings.json');
  if (!existsSync(settingsFile)) {
    writeFileSync(settingsFile, JSON.stringify({ ...DEFAULT_USER_SETTINGS, ...opts.settings }, null, 2) + '\n');
  }
  // The user's own data (the run history VS Code shares with the CLI) stays out of a test's way unless asked for.
  const dataHome = opts.dataHome ?? path.join(tmpRoot, 'data');
  // The agent host the extension starts lives in a folder of this server's (and is stopped with it).
  const runtimeDir = opts.runtimeDir ?? path.join(tmpRoot, 'run');
  mkdirSync(runtimeDir, { recursive: true, mode: 0o700 });
  const userDirs = opts.userDirs === 'user' ? {} : { XDG_DATA_HOME: dataHome, XDG_RUNTIME_DIR: runtimeDir };
  const env = node24Env({ ...userDirs, ...(opts.env ?? {}) });
  // In the user's own folders a host may run already (a terminal's, another window's): only one this server's window starts is its own.
  const hostsBefore = opts.userDirs === 'user' ? agentHostPids(env) : [];
  const base = codeServerArgs({ userDataDir, extensionsDir, configFile });
  const cleanupDirs = () => rmSync(tmpRoot, { recursive: true, force: true, maxRetries: 3 });

  if (opts.vsixPath) {
    const r = runSync(cs, [...base, '--install-extension', opts.vsixPath, '--force'], env);
    if (r.status !== 0 || !/successfully installed/i.test(r.output)) {
      cleanupDirs();
      throw new Error(`code-server --install-extension ${opts.vsixPath} failed:\n${r.output.trim()}`);
    }
  }

  const args = [...base, ...(opts.args ?? [])];
  if (trust) args.push('--disable-workspace-trust');
  // In the browser workbench, extension development and tests are not server
  // flags: the page URL carries them (see workbenchUrl), and a built VS Code
  // honours that only with the smoke-test driver enabled.
  const development = Boolean(opts.extensionDevelopmentPath || opts.extensionTestsPath);
  if (development) args.push('--vscode-option', 'enable-smoke-test-driver');

  // The port is free when probed; another process could take it before
  // code-server binds, so retry on a bind failure.
  let lastError;
  for (let attempt = 0; attempt < (opts.port ? 1 : 3); attempt++) {
    const port = opts.port ?? (await freePort());
    try {
      const server = await launch(cs, [...args, '--bind-addr', `127.0.0.1:${port}`, workspace], env, port);
      const url = `http://127.0.0.1:${port}/`;
      const handle = {
        url,
        folderUrl: workbenchUrl(url, workspace, opts),
        port,
        pid: server.pid,
        userDataDir,
        extensionsDir,
        dataHome: opts.userDirs === 'user' ? null : dataHome,
        runtimeDir: opts.userDirs === 'user' ? null : runtimeDir,
        output: server.output,
        exited: server.exited,
        stop: async () => {
          await server.stop();
          // Detached from code-server on purpose (it outlives a window): stopped here, with the test's server.
          if (opts.userDirs !== 'user') await stopAgentHosts(runtimeDir);
          else if (opts.stopOwnHost) {
            const said = await stopAgentHostsStartedSince(env, hostsBefore);
            if (said) console.log(`› ${said}`);
          }
          running.delete(handle);
          if (!opts.keepDirs) cleanupDirs();
        },
      };
      running.add(handle);
      return handle;
    } catch (e) {
      lastError = e;
      if (!/EADDRINUSE/.test(String(e.message))) break;
    }
  }
  cleanupDirs();
  throw lastError;
}

/**
 * The address that opens `workspace` in the workbench. With
 * extensionDevelopmentPath/extensionTestsPath it also carries VS Code's
 * `payload` parameter, which makes the window an extension development host
 * that loads the extension from that folder and runs the tests: the remote
 * extension host starts when a browser opens this page, runs the tests, and
 * the workbench then closes the window itself.
 */
export function workbenchUrl(url, workspace, opts = {}) {
  const authority = new URL(url).host;
  const remote = (p) => `vscode-remote://${authority}${path.resolve(p)}`;
  const payload = [];
  if (opts.extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(opts.extensionDevelopmentPath)]);
  if (opts.extensionTestsPath) payload.push(['extensionTestsPath', remote(opts.extensionTestsPath)]);
  // A `.code-workspace` file opens as a (multi-root) workspace, anything else as a folder.
  const query = `?${workspace.endsWith('.code-workspace') ? 'workspace' : 'folder'}=${encodeURIComponent(path.resolve(workspace))}`;
  return `${url}${query}${payload.length ? `&payload=${encodeURIComponent(JSON.stringify(payload))}` : ''}`;
}

function launch(cs, args, env, port) {
  return new Promise((resolve, reject) => {
    const child = spawn(cs.node, [cs.entry, ...args], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const pid = child.pid;
    let output = '';
    const collect = (chunk) => {
      output += chunk.toString();
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let exited = false;
    const exitedPromise = new Promise((r) =>
      child.on('exit', (code, signal) => {
        exited = true;
        r({ code, signal });
      }),
    );
    // A stray server must not outlive us even if startup fails half-way.
    const guard = { pid, stop: async () => undefined };
    running.add(guard);

    const stop = async () => {
      if (!exited) killGroup(pid, 'SIGTERM');
      const deadline = Date.now() + 5000;
      while ((processGroupAlive(pid) || !exited) && Date.now() < deadline) await sleep(100);
      if (processGroupAlive(pid)) killGroup(pid, 'SIGKILL');
      while (processGroupAlive(pid)) await sleep(50);
      if (!exited) await Promise.race([exitedPromise, sleep(2000)]);
    };

    const started = Date.now();
    const poll = async () => {
      while (Date.now() - started < 60_000) {
        if (exited) {
          running.delete(guard);
          reject(new Error(`code-server exited during start-up:\n${output.trim().split('\n').slice(-30).join('\n')}`));
          return;
        }
        try {
          const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
          if (res.ok) {
            running.delete(guard);
            resolve({ pid, stop, output: () => output, exited: exitedPromise });
            return;
          }
        } catch {
          // not listening yet
        }
        await sleep(200);
      }
      await stop();
      running.delete(guard);
      reject(new Error(`code-server did not answer on port ${port} within 60 s:\n${output.trim().split('\n').slice(-30).join('\n')}`));
    };
    guard.stop = stop;
    void poll();
  });
}

/** Stops the agent hosts whose folder is `runtimeDir` (their pid is in `subagents/host-p<N>.json`) and waits until they are gone. */
export async function stopAgentHosts(runtimeDir) {
  const dir = path.join(runtimeDir, 'subagents');
  const pids = [];
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (!/^host-p\d+\.json$/.test(name)) continue;
    try {
      const pid = JSON.parse(readFileSync(path.join(dir, name), 'utf8')).pid;
      if (Number.isInteger(pid)) pids.push(pid);
    } catch {
      // Gone or half-written: that host is gone too.
    }
  }
  for (const pid of pids) killPid(pid, 'SIGTERM');
  const deadline = Date.now() + 5000;
  while (pids.some(processAlive) && Date.now() < deadline) await sleep(50);
  for (const pid of pids.filter(processAlive)) killPid(pid, 'SIGKILL');
  while (pids.some(processAlive)) await sleep(50);
}

/** The pids of the agent hosts that run for `env` now (one per protocol version), from their info files. */
export function agentHostPids(env) {
  const dir = env.XDG_RUNTIME_DIR ? path.join(env.XDG_RUNTIME_DIR, 'subagents') : path.join(os.tmpdir(), `subagents-${process.getuid?.() ?? 'user'}`);
  const pids = [];
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (!/^host-p\d+\.json$/.test(name)) continue;
    try {
      const pid = JSON.parse(readFileSync(path.join(dir, name), 'utf8')).pid;
      if (Number.isInteger(pid) && processAlive(pid)) pids.push(pid);
    } catch {
      // Gone or half-written: that host is gone too.
    }
  }
  return pids;
}

/**
 * The agent host a session started (one not in `before`) goes with the
 * session: it is asked to exit once no agent is at work
 * (`subagents host stop --when-idle`), so a run a terminal gave it finishes
 * first. A host that ran before the session is the user's, and left alone.
 * Resolves with what the host said, or null when the session started none.
 */
export async function stopAgentHostsStartedSince(env, before) {
  const started = agentHostPids(env).filter((pid) => !before.includes(pid));
  if (started.length === 0) return null;
  const r = spawnSync(node24(), [path.join(root, 'dist', 'cli.js'), 'host', 'stop', '--when-idle'], { env, encoding: 'utf8', stdio: 'pipe', timeout: 30_000 });
  const said = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  // Exiting now: waited for, so nothing of the session is left when the command returns.
  if (/^Stopped the agent host/m.test(said)) {
    const deadline = Date.now() + 10_000;
    while (started.some(processAlive) && Date.now() < deadline) await sleep(50);
  }
  return said;
}

function killPid(pid, signal) {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

// ---------------------------------------------------------------------------
// Logs

function listDirs(dir) {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => path.join(dir, d.name));
  } catch {
    return [];
  }
}

/** `<user-data-dir>/logs/<session>/` directories, newest last. */
export function logSessions(userDataDir) {
  return listDirs(path.join(userDataDir, 'logs')).sort();
}

/** Extension-host log directories (`<session>/exthost<N>/`), newest last. */
export function exthostDirs(userDataDir) {
  return logSessions(userDataDir).flatMap((s) => listDirs(s).filter((d) => /\/exthost\d*$/.test(d)));
}

/** Every `remoteexthost.log` of the remote extension host. */
export function exthostLogs(userDataDir) {
  return exthostDirs(userDataDir)
    .map((d) => path.join(d, 'remoteexthost.log'))
    .filter((f) => existsSync(f));
}

/** The log files of an extension's log output channels (`<exthost>/<extension id>/*.log`). */
export function outputChannelLogs(userDataDir, extensionId = EXTENSION_ID) {
  return exthostDirs(userDataDir).flatMap((d) => {
    const dir = path.join(d, extensionId);
    try {
      return readdirSync(dir)
        .filter((n) => n.endsWith('.log'))
        .map((n) => path.join(dir, n));
    } catch {
      return [];
    }
  });
}

/** Concatenated text of some log files ('' for none). */
export function readLogs(files) {
  return files
    .map((f) => {
      try {
        return readFileSync(f, 'utf8');
      } catch {
        return '';
      }
    })
    .join('');
}

/** The last `lines` lines of every log file under the user-data dir's logs, for diagnostics. */
export function logTail(userDataDir, lines = 40) {
  const out = [];
  for (const session of logSessions(userDataDir)) {
    const walk = (dir) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.log') && statSync(full).size > 0) {
          const text = readFileSync(full, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
          out.push(`── ${path.relative(userDataDir, full)}\n${text}`);
        }
      }
    };
    walk(session);
  }
  return out.join('\n');
}
