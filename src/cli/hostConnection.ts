import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Settings } from '../core/config';
import { PRODUCT_BUILD, PRODUCT_VERSION } from '../core/host/build';
import { HostClient, type ClientHandlers } from '../core/host/client';
import { connectOrLaunch, connectSocket, HostNotRunning, type LaunchOptions } from '../core/host/connect';
import { hostPaths } from '../core/host/paths';
import type { HostSettings } from '../protocol/host';
import type { CliIO } from './command';
import { problemLine } from './problems';

/**
 * The CLI's side of the agent host: where the host's script is, the host's
 * settings from the user's file, and a client for a command. A command
 * attaches to a host that runs (unless told not to); only
 * `subagents host start` starts one. Without a host, commands run in their
 * own process as they always did (CI has none).
 */

/** dist/host.js beside this bundle (dist/engine.cjs), or the clone's when running from the sources. */
export function hostScript(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const bundled = path.join(dir, 'host.js');
    if (path.basename(dir) === 'dist' && existsSync(bundled)) return bundled;
    const built = path.join(dir, 'dist', 'host.js');
    if (existsSync(path.join(dir, 'package.json')) && existsSync(built)) return built;
    if (path.dirname(dir) === dir) return path.join(__dirname, 'host.js');
  }
}

export function hostSettings(settings: Settings): HostSettings {
  return {
    idleExitSeconds: settings['host.idleExitSeconds'],
    unattendedApprovalSeconds: settings['host.unattendedApprovalSeconds'],
    user: settings as unknown as Record<string, unknown>,
  };
}

export function launchOptions(io: CliIO, settings: Settings): LaunchOptions {
  return { execPath: process.execPath, script: hostScript(), env: io.env, settings: hostSettings(settings) };
}

/**
 * A client of the host that runs now, for one command (it does not
 * reconnect: the command ends with the connection); null when none runs.
 */
export async function attachToHost(io: CliIO, options: { handlers?: ClientHandlers; coalesceMs?: number; settings?: Settings } = {}): Promise<HostClient | null> {
  const write = problemLine(io);
  try {
    return await HostClient.open({
      connect: () => connectSocket(hostPaths(io.env)),
      identity: { kind: 'cli', version: PRODUCT_VERSION, build: PRODUCT_BUILD, pid: process.pid },
      handlers: options.handlers,
      ...(options.settings ? { settings: () => hostSettings(options.settings!) } : {}),
      reconnect: false,
      coalesceMs: options.coalesceMs ?? 0,
      log: (level, message) => {
        if (level !== 'info') write(message);
      },
    });
  } catch (error) {
    if (error instanceof HostNotRunning) return null;
    throw error;
  }
}

/** A client of the host, starting one first when none runs (`subagents host start`). */
export function startAndAttach(io: CliIO, settings: Settings): Promise<HostClient> {
  const write = problemLine(io);
  return HostClient.open({
    connect: () => connectOrLaunch(io.env, launchOptions(io, settings)),
    identity: { kind: 'cli', version: PRODUCT_VERSION, build: PRODUCT_BUILD, pid: process.pid },
    settings: () => hostSettings(settings),
    reconnect: false,
    log: (level, message) => {
      if (level !== 'info') write(message);
    },
  });
}

/**
 * Whether an agent host may be running: a host keeps its token while it
 * runs, and a client cannot connect without one (connectSocket), so without
 * it no host can answer and a command knows at once that it runs in its own
 * process.
 */
export function hostMayRun(io: CliIO): boolean {
  return existsSync(hostPaths(io.env).token);
}

/** `--no-host`, or SUBAGENTS_NO_HOST=1: run in this process even where a host runs. */
export function noHost(io: CliIO, flag: boolean | undefined): boolean {
  return flag === true || io.env.SUBAGENTS_NO_HOST === '1';
}
