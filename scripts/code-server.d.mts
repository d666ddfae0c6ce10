// Types for scripts/code-server.mjs, so the TypeScript tests can import it.
export const CODE_SERVER_VERSION: string;
export const EXTENSION_ID: string;
export const SYSTEM_PACKAGES: string[];
export const CHROMIUM: string;
export const CHROMIUM_ARGS: string[];

export interface CodeServerCommand {
  node: string;
  entry: string;
  dir: string;
  version: string;
}

export interface StartOptions {
  workspace: string;
  trust: boolean;
  vsixPath?: string;
  extensionDevelopmentPath?: string;
  extensionTestsPath?: string;
  extensionsDir?: string;
  userDataDir?: string;
  env?: Record<string, string>;
  settings?: Record<string, unknown>;
  args?: string[];
  keepDirs?: boolean;
  /** A fixed port instead of a free one. */
  port?: number;
  codeServer?: CodeServerCommand;
  /** `user`: the user's own data folders (npm start); default: temporary ones, as a test needs. */
  userDirs?: 'user' | 'isolated';
  /** `$XDG_DATA_HOME` for the extension when a test prepares what is in it (the history, worktrees); default: a temporary folder. */
  dataHome?: string;
  /** `$XDG_RUNTIME_DIR` for the extension: where its agent host listens (stopped with the server); default: a temporary folder. */
  runtimeDir?: string;
  /** With `userDirs: 'user'`: stop() asks an agent host this server's window started (none ran before) to exit once idle. */
  stopOwnHost?: boolean;
}

export interface RunningCodeServer {
  url: string;
  /** Opens the workspace (and, when asked, the development/test payload). */
  folderUrl: string;
  port: number;
  /** Process id of the server, which is also its process group id. */
  pid: number;
  userDataDir: string;
  extensionsDir: string;
  /** `$XDG_DATA_HOME` of the extension (the run history is in its `subagents/`), or null with the user's own. */
  dataHome: string | null;
  /** The agent host's folder, or null with the user's own. */
  runtimeDir: string | null;
  /** What the server printed so far (stdout and stderr). */
  output(): string;
  /** Resolves when the server process ends, whoever ended it. */
  exited: Promise<{ code: number | null; signal: string | null }>;
  stop(): Promise<void>;
}

export function ensureSystemPackages(packages?: string[]): void;
export function cacheDir(): string;
export function codeServerDir(version?: string): string;
export function shellNpmGlobalConfig(): string;
export function ensureCodeServer(version?: string, options?: { spec?: string }): CodeServerCommand;
export function startCodeServer(opts: StartOptions): Promise<RunningCodeServer>;
export function stopAllCodeServers(): Promise<void>;
export function stopAgentHosts(runtimeDir: string): Promise<void>;
export function agentHostPids(env: NodeJS.ProcessEnv): number[];
export function stopAgentHostsStartedSince(env: NodeJS.ProcessEnv, before: number[]): Promise<string | null>;
export function processGroupAlive(pid: number): boolean;
export function freePort(): Promise<number>;
export function workbenchUrl(
  url: string,
  workspace: string,
  opts?: { extensionDevelopmentPath?: string; extensionTestsPath?: string },
): string;
export function logSessions(userDataDir: string): string[];
export function exthostDirs(userDataDir: string): string[];
export function exthostLogs(userDataDir: string): string[];
export function outputChannelLogs(userDataDir: string, extensionId?: string): string[];
export function readLogs(files: string[]): string;
export function logTail(userDataDir: string, lines?: number): string;
