import type { ProjectTrust } from '../../trust/projectTrust';

/**
 * The engine's lifecycle hook points, Claude Code-compatible in
 * meaning: `SubagentStart` before an agent's first request (it may add
 * context), `SubagentStop` when an agent is about to end (it may send it
 * back to work with one more instruction, a bounded number of times). The
 * command-hook runner implements them from `.claude/settings.json`; a
 * failing hook is logged by it and never fails the agent.
 */
export interface SubagentInfo {
  runId: string;
  agentId: string;
  agentName: string;
  parentId: string | null;
  cwd: string;
  /**
   * An isolated agent's worktree and the repository it was made from: the
   * settings files the worktree holds are the repository's, so their
   * baseline (what the session started with) is the repository's too.
   */
  worktree?: { path: string; repoRoot: string } | null;
  permissionMode: string;
  transcriptPath: string | null;
  /** Whether a project folder's own hooks may run: the engine's project trust. */
  trust: ProjectTrust;
  /** Where what the hooks of this agent report goes: the engine's log, which redacts secrets. */
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** The agent's signal: stopping the agent stops its hooks too. */
  signal?: AbortSignal;
  /**
   * Asks, as for a shell command of this agent, whether a hook command the
   * session did not start with may run: null when it may, else why
   * not. Without it such hooks do not run.
   */
  approveCommand?: (command: string, why: string) => Promise<string | null>;
  /**
   * Command hooks the agent's own file declares (Kiro's `agentSpawn` and
   * `stop`), with the file they come from; run when the file is the user's,
   * or a project's the engine's trust covers.
   */
  ownHooks?: { event: 'SubagentStart' | 'SubagentStop'; command: string; timeoutSec: number | null; source: string; project: boolean }[];
}

/** Who acts in a team event: the teammate (or lead) by its team name, and its team's. */
export interface TeamHookInfo {
  teammateName: string;
  teamName: string;
}

/** The task a TaskCreated or TaskCompleted event is about. */
export interface TaskHookInfo extends TeamHookInfo {
  taskId: string;
  taskSubject: string;
  taskDescription: string;
}

/**
 * What the hooks of a team event decide, Claude Code's way: `block` (exit
 * code 2, its stderr) keeps a teammate working with that feedback instead of
 * going idle, or refuses the task change with it; `stop` (JSON
 * `"continue": false`, its `stopReason`) ends the teammate.
 */
export interface TeamHookVerdict {
  block?: string;
  stop?: string;
  ran?: boolean;
}

/** `ran`: whether any hook command ran (absent: taken as yes, since a command may write in the agent's folder). */
export interface LifecycleHooks {
  subagentStart(info: SubagentInfo & { prompt: string }): Promise<{ additionalContext?: string; ran?: boolean }>;
  subagentStop(info: SubagentInfo & { lastAssistantMessage: string; stopHookActive: boolean }): Promise<{ continueWith?: string; ran?: boolean }>;
  /** A teammate's turn ended and it is about to go idle. */
  teammateIdle?(info: SubagentInfo & TeamHookInfo): Promise<TeamHookVerdict>;
  /** A task is about to be created with TaskCreate (its id is reserved). */
  taskCreated?(info: SubagentInfo & TaskHookInfo): Promise<TeamHookVerdict>;
  /** A task is about to be marked completed with TaskUpdate. */
  taskCompleted?(info: SubagentInfo & TaskHookInfo): Promise<TeamHookVerdict>;
}

export type TeamHookEvent = 'teammateIdle' | 'taskCreated' | 'taskCompleted';

/**
 * Runs the hooks of a team event; a failing implementation is logged and
 * decides nothing. `ran` hears whenever a hook command may have run.
 */
export async function teamVerdict<E extends TeamHookEvent>(
  hooks: LifecycleHooks | undefined,
  event: E,
  info: Parameters<NonNullable<LifecycleHooks[E]>>[0],
  log?: Log,
  ran?: () => void,
): Promise<TeamHookVerdict> {
  const run = hooks?.[event] as ((info: Parameters<NonNullable<LifecycleHooks[E]>>[0]) => Promise<TeamHookVerdict>) | undefined;
  if (!run) return {};
  try {
    const verdict = await run.call(hooks, info);
    if (verdict.ran !== false) ran?.();
    return verdict;
  } catch (error) {
    ran?.();
    log?.('warn', `${event[0]!.toUpperCase()}${event.slice(1)} hooks failed: ${String(error)}`);
    return {};
  }
}

/** How many times SubagentStop hooks may send one agent back to work. */
export const MAX_STOP_HOOK_ROUNDS = 3;

type Log = (level: 'warn', message: string) => void;

/**
 * What SubagentStart hooks add in front of the agent's task; a failing hook
 * implementation is logged. `ran` hears whenever a hook command may have run.
 */
export async function startContext(hooks: LifecycleHooks | undefined, info: SubagentInfo & { prompt: string }, log?: Log, ran?: () => void): Promise<string | null> {
  if (!hooks) return null;
  try {
    const result = await hooks.subagentStart(info);
    if (result.ran !== false) ran?.();
    return result.additionalContext || null;
  } catch (error) {
    ran?.();
    log?.('warn', `SubagentStart hooks failed: ${String(error)}`);
    return null;
  }
}

/** The instruction SubagentStop hooks send an ending agent back to work with, or null (also past the bound). */
export async function stopInstruction(
  hooks: LifecycleHooks | undefined,
  info: SubagentInfo & { lastAssistantMessage: string },
  round: number,
  log?: Log,
  ran?: () => void,
): Promise<string | null> {
  if (!hooks || round >= MAX_STOP_HOOK_ROUNDS) return null;
  try {
    const result = await hooks.subagentStop({ ...info, stopHookActive: round > 0 });
    if (result.ran !== false) ran?.();
    return result.continueWith || null;
  } catch (error) {
    ran?.();
    log?.('warn', `SubagentStop hooks failed: ${String(error)}`);
    return null;
  }
}
