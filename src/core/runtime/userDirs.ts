import os from 'node:os';
import path from 'node:path';

/**
 * Where the user's runtime keeps what outlives a process: the run history,
 * transcripts, the mailbox, worktrees and consents, under
 * `$XDG_DATA_HOME/subagents` (default `~/.local/share/subagents`). One place
 * for every surface: VS Code, the CLI and the agent host share it, so a run
 * started in one is listed, continued and reviewed from the others.
 */

/** The user's home as an environment gives it (tests pass their own HOME). */
export function userHome(env: NodeJS.ProcessEnv): string {
  return env.HOME || env.USERPROFILE || os.homedir();
}

export function userDataDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_DATA_HOME || path.join(userHome(env), '.local', 'share');
  return path.join(base, 'subagents');
}
