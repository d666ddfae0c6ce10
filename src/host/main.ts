// The agent host: one process per user (and protocol version) that runs
// every agent, for every VS Code window and terminal of the user. Started on
// demand by the extension or `subagents host start`, detached, listening on
// a socket only the user can open; it exits once nothing keeps it (no
// client, no run, no approval waiting) for the idle time the user set.
import { appendFileSync, closeSync, openSync, statSync, writeSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { parseArgs } from 'node:util';
import { parseSettings } from '../core/config';
import { FileLock } from '../core/fileLock';
import { PRODUCT_BUILD, PRODUCT_VERSION } from '../core/host/build';
import { connectSocket, HostNotRunning } from '../core/host/connect';
import { ensurePrivateDir, hostPaths, writeToken, type HostPaths } from '../core/host/paths';
import { HostServer } from '../core/host/server';
import { statusFile } from '../core/mcp/status';
import { openRuntime, type Runtime } from '../core/runtime/runtime';
import { userDataDir, userHome } from '../core/runtime/userDirs';
import { writeFileAtomic } from '../core/atomicFile';

/** The log is kept short: it is for when something went wrong. */
const MAX_LOG_BYTES = 2 * 1024 * 1024;

function openLog(file: string): (level: string, message: string) => void {
  try {
    if (statSync(file).size > MAX_LOG_BYTES) closeSync(openSync(file, 'w', 0o600));
  } catch {
    // No log yet.
  }
  return (level, message) => {
    try {
      appendFileSync(file, `${new Date().toISOString()} ${level} ${message}\n`, { mode: 0o600 });
    } catch {
      // A log that cannot be written loses only itself.
    }
  };
}

function settingsFromArgs(): { idleExitSeconds: number; unattendedApprovalSeconds: number } {
  const { values } = parseArgs({ options: { 'idle-exit-seconds': { type: 'string' }, 'unattended-approval-seconds': { type: 'string' } }, allowPositionals: false });
  const number = (value: string | undefined, fallback: number) => (value !== undefined && Number(value) > 0 ? Number(value) : fallback);
  return { idleExitSeconds: number(values['idle-exit-seconds'], 600), unattendedApprovalSeconds: number(values['unattended-approval-seconds'], 1800) };
}

/** A full collection (the launcher gives the host `--expose-gc`), which also returns unused pages to the system. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** What the process holds, for the log when it goes idle (what an idle host costs: bench/host.ts reads it). */
function memoryLine(): string {
  const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
  const m = process.memoryUsage();
  return `rss ${mb(m.rss)}, heap ${mb(m.heapUsed)} used of ${mb(m.heapTotal)}, external ${mb(m.external)} (array buffers ${mb(m.arrayBuffers)})`;
}

/** Tells the process that started us how it went; after that, stdout is nobody's. */
function say(line: string): void {
  try {
    writeSync(1, `${line}\n`);
  } catch {
    // Whoever started us is gone: nothing to tell.
  }
}

async function main(): Promise<void> {
  const env = process.env;
  const paths = hostPaths(env);
  await ensurePrivateDir(paths.dir);
  const log = openLog(paths.log);
  // The starter reads stdout only until we listen; nothing written later may take the host down.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const settings = settingsFromArgs();
  let runtime: Runtime | null = null;
  let server: HostServer | null = null;
  let listener: net.Server | null = null;

  const lock = new FileLock(paths.lock, 'The agent host');
  const started = await lock.run(async () => {
    // Another host answers: it serves us all (two windows started one each at the same moment).
    try {
      const { socket } = await connectSocket(paths);
      socket.destroy();
      return false;
    } catch (error) {
      if (!(error instanceof HostNotRunning)) throw error;
    }
    const token = await writeToken(paths.token);
    server = new HostServer({
      token,
      info: { version: PRODUCT_VERSION, build: PRODUCT_BUILD, pid: process.pid, startedAt: Date.now() },
      socket: paths.socket,
      settings,
      log: (level, message) => log(level, message),
      exit: (reason, stopRuns) => void exit(reason, stopRuns),
      // Idle, it gives back what serving took (a window's whole state, encoded): it may stay up for hours.
      rest: () => {
        collectGarbage();
        // Again a moment later, once what the last client was sent has left the socket; then the log says what is held.
        setTimeout(() => {
          collectGarbage();
          log('info', `Idle: ${memoryLine()}.`);
        }, 1000).unref();
      },
    });
    const s = server;
    runtime = await openRuntime({
      dataDir: userDataDir(env),
      settings: () => parseSettings(s.settings.user ?? {}).settings,
      coalesceMs: 100,
      // Ended runs' detail stays on disk until a client asks for it: an idle host stays small however long the history.
      summarizeEndedRuns: true,
      role: 'host',
      // A terminal's own-process run (--no-host) shows in every window as it goes and ends.
      followOtherProcesses: true,
      mcpStatusFile: statusFile(env, userHome(env)),
      modeConsent: (request, signal) => s.modeConsent(request, signal),
      askMcpInputs: (server, ids) => s.askMcpInputs(server, ids),
      editorTools: s.editorTools,
      // The host outlives its clients' runs: it cleans what windows and terminals hand back and refills the pool while idle.
      keepPoolsReady: true,
      log: (level, message, folder) => log(level, folder ? `[${folder}] ${message}` : message),
      onRecovered: (report) => {
        if (report.removed.length || report.kept.length) log('info', `Worktrees left by runs that died: ${report.removed.length} removed, ${report.kept.length} kept with changes.`);
      },
    });
    s.attach(runtime);
    // What reading the history took, given back before the host settles in.
    collectGarbage();
    listener = await listen(paths, (socket) => s.accept(socket));
    await writeFileAtomic(paths.info, JSON.stringify({ pid: process.pid, startedAt: Date.now(), version: PRODUCT_VERSION, build: PRODUCT_BUILD, socket: paths.socket }));
    return true;
  });
  if (!started) {
    say(`already ${paths.socket}`);
    return;
  }
  log('info', `Listening at ${paths.socket} (pid ${process.pid}, ${PRODUCT_VERSION} ${PRODUCT_BUILD}).`);
  say(`listening ${paths.socket}`);

  let exiting: Promise<void> | null = null;
  const exit = (reason: string, stopRuns: boolean): Promise<void> =>
    (exiting ??= (async () => {
      log('info', reason);
      // New clients find no host here and start the next one, while this one winds down.
      listener?.close();
      await removeOwnFiles(paths);
      server?.goodbye(reason);
      await runtime?.close({ reason: stopRuns ? 'The agent host was stopped.' : reason, graceMs: 1500 });
      server?.dispose();
      process.exit(0);
    })());
  process.on('SIGTERM', () => void exit('The agent host was stopped (SIGTERM).', true));
  process.on('SIGINT', () => void exit('The agent host was stopped (SIGINT).', true));
  process.on('SIGHUP', () => undefined);
  process.on('uncaughtException', (error) => {
    log('error', `Uncaught: ${error.stack ?? error.message}`);
    // Runs at work are recorded as interrupted by the next host (or any process opening the history).
    process.exit(1);
  });
  process.on('unhandledRejection', (error) => log('error', `Unhandled rejection: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
}

/** Listens at the socket, readable and writable by the user alone (mode 0600, in a 0700 folder). */
async function listen(paths: HostPaths, accept: (socket: net.Socket) => void): Promise<net.Server> {
  if (process.platform !== 'win32') await rm(paths.socket, { force: true });
  const server = net.createServer(accept);
  const umask = process.platform === 'win32' ? null : process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(paths.socket, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    if (umask !== null) process.umask(umask);
  }
  return server;
}

/** The socket, token and info file go with the host that made them (not with one that replaced it). */
async function removeOwnFiles(paths: HostPaths): Promise<void> {
  try {
    const info = JSON.parse(await readFile(paths.info, 'utf8')) as { pid?: number };
    if (info.pid !== process.pid) return;
  } catch {
    return;
  }
  await Promise.all([paths.info, paths.token, ...(process.platform === 'win32' ? [] : [paths.socket])].map((file) => rm(file, { force: true })));
}

main().catch((error: unknown) => {
  process.stderr.write(`subagents host: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
