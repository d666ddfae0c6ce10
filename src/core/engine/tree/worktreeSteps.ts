import type { WorktreeManager } from '../../isolation';
import type { AgentRun } from './agentRun';
import { WrittenFiles } from './worktreeWrites';

/**
 * The engine's steps around worktree isolation. Each returns a failure
 * message rather than throwing, so the caller decides whether it is a tool
 * error (a spawn) or an error for the user (a root run, a follow-up).
 */

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Gives `run` its own worktree before it starts: made ready now (from
 * the pool, or checked out), so a failure (not a git repository, an unknown
 * `baseRef`, …) stops the run from beginning.
 */
export async function isolate(worktrees: WorktreeManager | undefined, run: AgentRun, baseRef: string | null): Promise<string | null> {
  if (!worktrees) return 'Worktree isolation is not available here (no worktree storage is configured).';
  try {
    // The tree's id: how many worktrees one tree makes at once sizes the pool.
    const record = await worktrees.create({ cwd: run.cwd, agentName: run.agentName, agentId: run.id, baseRef, group: run.tree.runId });
    run.isolation = { path: record.path, branch: record.branch, baseCommit: record.baseCommit, originalCwd: run.cwd, repoRoot: record.repoRoot, prepared: record.prepared };
    run.cwd = record.cwd;
    run.written = new WrittenFiles();
    return null;
  } catch (error) {
    return message(error);
  }
}

/**
 * A follow-up to an isolated agent works in its worktree again (reopened if
 * it was finished). A teammate whose worktree is gone (it changed nothing,
 * or its changes were discarded) gets a new one: it is woken for new work,
 * not to go on with the old.
 */
export async function reisolate(worktrees: WorktreeManager | undefined, run: AgentRun, baseRef: string | null = null): Promise<string | null> {
  if (!worktrees) return null;
  const known = worktrees.get(run.id) ?? (await worktrees.list()).find((r) => r.agentId === run.id);
  if (!known) return null;
  if (known.state === 'discarded' && run.teammate) return isolate(worktrees, run, baseRef);
  if (known.state === 'discarded') return `Agent ${run.id}'s worktree was discarded, so its work is gone; start a new run instead.`;
  try {
    const record = await worktrees.reopen(run.id);
    run.isolation = { path: record.path, branch: record.branch, baseCommit: record.baseCommit, originalCwd: record.repoRoot, repoRoot: record.repoRoot, prepared: record.prepared };
    run.cwd = record.cwd;
    run.written = new WrittenFiles();
    // What is in the folder before this run is in no list: work never committed (still active), or your
    // edits from a review of a finished one. Only a look at everything commits them with the agent's.
    run.written.writtenByOthers();
    return null;
  } catch (error) {
    return message(error);
  }
}

/** Ends an isolated agent's work on its branch; a failure keeps the worktree: work is never lost. */
export async function settleWorktree(
  worktrees: WorktreeManager | undefined,
  run: AgentRun,
  log?: (level: 'error', message: string) => void,
  /** The engine's redaction: the commit message, written into the repository, holds the agent's description. */
  redact: (text: string) => string = (text) => text,
): Promise<void> {
  if (!run.isolation || !worktrees) return;
  try {
    const only = run.written?.only();
    run.worktree = await worktrees.finish(run.id, { commitMessage: redact(`subagents: ${run.agentName}: ${run.description}`), ...(only ? { only } : {}) });
  } catch (error) {
    log?.('error', `Could not finish the worktree of agent ${run.id} (${run.isolation.path}); it is kept as it is: ${message(error)}`);
  }
}
