import { childEnv } from '../../childEnv';
import { runShellCommand } from '../../shellCommand';
import type { WorktreeManager } from '../../isolation';
import { oneLine } from '../../tools/runtimeTool';
import type { AgentRun, EmitEvent } from './agentRun';
import type { Authorize } from './authorize';

/**
 * The repository's setup command (`subagents.worktrees.setupCommand`), run
 * at the top of each worktree an isolated agent gets — new or from the pool,
 * which comes cleaned of everything untracked — before the agent's first
 * turn. It is a step of the agent every surface shows (a `Setup` tool row),
 * asked about like a shell command, and skipped in plan mode, where nothing
 * runs a command. What it changes becomes part of the worktree's base, so
 * review and apply show only the agent's own work.
 */

/** How the setup command appears to the permission gate and in tool rows. */
export const SETUP_TOOL = { name: 'Setup', kind: 'exec' } as const;

/** Long enough for a dependency install on a cold cache; a hung command still ends. */
const SETUP_TIMEOUT_MS = 15 * 60 * 1000;

export interface SetupContext {
  run: AgentRun;
  command: string;
  worktrees: WorktreeManager;
  authorize: Authorize;
  emit: EmitEvent;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** The engine's redaction: the setup commit's message, written into the repository, holds the command. */
  redact: (text: string) => string;
}

/** Runs the setup command if there is one; throws (with a message for the user and the parent) when it is refused or fails. */
export async function setUpWorktree({ run, command, worktrees, authorize, emit, log, redact }: SetupContext): Promise<void> {
  const isolation = run.isolation;
  if (!isolation || isolation.prepared === 'existing' || !command.trim()) return;
  if (run.planMode) {
    log('info', `Skipped the worktree setup command for ${run.agentName}: nothing runs a command in plan mode.`);
    return;
  }
  const toolUseId = `setup_${run.id}_${Date.now().toString(36)}`;
  const started = Date.now();
  emit({ type: 'tool_started', toolUseId, name: SETUP_TOOL.name, inputSummary: command });
  const finished = (ok: boolean, resultSummary: string) =>
    emit({ type: 'tool_finished', toolUseId, name: SETUP_TOOL.name, ok, resultSummary, durationMs: Date.now() - started });

  const denied = await authorize({ tool: SETUP_TOOL, toolUseId, summary: command });
  if (denied) {
    finished(false, denied.summary);
    throw new Error(`The worktree setup command was not run: ${denied.message}`);
  }
  const result = await runShellCommand({ command, cwd: isolation.path, env: childEnv(), stdin: '', timeoutMs: SETUP_TIMEOUT_MS, signal: run.signal });
  // Whatever it did, it is not the agent's work (a failed setup's half-made files neither).
  try {
    await worktrees.rebase(run.id, redact(`subagents: setup for ${run.agentName} (${oneLine(command, 200)})`));
    const rec = worktrees.get(run.id);
    if (rec) isolation.baseCommit = rec.baseCommit;
  } catch (error) {
    log('warn', `Could not record what the setup command changed in ${isolation.path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const output = `${result.stdout}\n${result.stderr}`.trim();
  const last = output.split('\n').at(-1) ?? '';
  if (result.exitCode === 0) {
    finished(true, oneLine(`done in ${(result.durationMs / 1000).toFixed(1)} s${last ? ` · ${last}` : ''}`, 200));
    return;
  }
  const why = result.spawnError
    ? `could not start: ${result.spawnError}`
    : result.timedOut
      ? `did not finish within ${SETUP_TIMEOUT_MS / 60_000} min`
      : run.signal.aborted
        ? 'was stopped'
        : `exited with ${result.exitCode ?? result.signal}`;
  finished(false, oneLine(`${why}${last ? ` · ${last}` : ''}`, 200));
  throw new Error(`The worktree setup command \`${command}\` ${why}.${output ? `\n${output.slice(-2000)}` : ''}`);
}
