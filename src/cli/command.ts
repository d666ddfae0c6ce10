/** What a CLI command needs from its process, so tests can run commands in-process. */
export interface CliIO {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  /**
   * How to start this CLI again as a process of its own (node, its flags,
   * the script): work a command leaves for the background (the worktree
   * pool's upkeep) goes to one. Absent when the CLI runs inside another
   * program (tests): that work then waits for the next process.
   */
  self?: readonly string[];
}

export { userHome } from '../core/runtime/userDirs';

export interface CliCommand {
  name: string;
  /** Full usage text for `subagents <name> --help`. */
  usage: string;
  /** Returns the process exit code. Throw a `UsageError` for bad flags. */
  run(args: string[], io: CliIO): Promise<number>;
}

/**
 * Bad flags or arguments: printed with the command's usage, exit code 2.
 * Recognised by name (isUsageError): the commands are bundled apart from
 * the dispatcher, each with its own copy of this class.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function isUsageError(error: unknown): boolean {
  return error instanceof Error && error.name === 'UsageError';
}

/** A settings file that cannot be used at all (src/cli/settingsFiles.ts): printed without the usage, exit code 2. */
export class SettingsFileError extends Error {
  override readonly name = 'SettingsFileError';
}

export function isSettingsFileError(error: unknown): boolean {
  return error instanceof Error && error.name === 'SettingsFileError';
}
