import type { SubagentInfo, TaskHookInfo, TeamHookInfo, TeamHookVerdict } from '../engine/tree/lifecycleHooks';
import type { ShellCommandResult } from '../shellCommand';

/**
 * What goes into a hook and what comes out, exactly as Claude Code defines
 * it, so hook scripts written for Claude Code work unchanged. Pure functions:
 * the runner feeds them process results, the unit tests feed them by hand.
 */

/** The common fields; `session_id` is the run (the agent tree), the closest thing to a Claude Code session. */
function commonInput(info: SubagentInfo, event: string): Record<string, unknown> {
  return {
    session_id: info.runId,
    transcript_path: info.transcriptPath ?? '',
    cwd: info.cwd,
    permission_mode: info.permissionMode,
    hook_event_name: event,
  };
}

export function subagentStartInput(info: SubagentInfo): Record<string, unknown> {
  return { ...commonInput(info, 'SubagentStart'), agent_id: info.agentId, agent_type: info.agentName };
}

export function subagentStopInput(info: SubagentInfo & { lastAssistantMessage: string; stopHookActive: boolean }): Record<string, unknown> {
  return {
    ...commonInput(info, 'SubagentStop'),
    agent_id: info.agentId,
    agent_type: info.agentName,
    stop_hook_active: info.stopHookActive,
    agent_transcript_path: info.transcriptPath ?? '',
    last_assistant_message: info.lastAssistantMessage,
  };
}

export function teammateIdleInput(info: SubagentInfo & TeamHookInfo): Record<string, unknown> {
  return { ...commonInput(info, 'TeammateIdle'), teammate_name: info.teammateName, team_name: info.teamName };
}

export function taskInput(event: 'TaskCreated' | 'TaskCompleted', info: SubagentInfo & TaskHookInfo): Record<string, unknown> {
  return {
    ...commonInput(info, event),
    task_id: info.taskId,
    task_subject: info.taskSubject,
    task_description: info.taskDescription,
    teammate_name: info.teammateName,
    team_name: info.teamName,
  };
}

/** One hook's effect; `warning` says why it had none when it should have. */
export interface StartOutcome {
  additionalContext?: string;
  warning?: string;
}

export interface StopOutcome {
  continueWith?: string;
  warning?: string;
}

/** Exit 2 is Claude Code's "blocking error": for SubagentStop, stderr is the next instruction. */
const BLOCKING_EXIT = 2;

export function interpretStart(result: ShellCommandResult): StartOutcome {
  const failure = failureOf(result);
  if (failure) return { warning: failure };
  const parsed = parseJsonOutput(result.stdout);
  if (parsed.kind === 'plain') return {};
  if (parsed.kind === 'invalid') return { warning: parsed.warning };
  const specific = parsed.value.hookSpecificOutput;
  if (specific === undefined) return {};
  if (!isRecord(specific)) return { warning: 'printed "hookSpecificOutput" that is not an object; ignored' };
  if (specific.hookEventName !== undefined && specific.hookEventName !== 'SubagentStart') {
    return { warning: `printed hookSpecificOutput for "${String(specific.hookEventName)}" from a SubagentStart hook; ignored` };
  }
  const context = specific.additionalContext;
  if (context === undefined) return {};
  if (typeof context !== 'string') return { warning: 'printed an "additionalContext" that is not a string; ignored' };
  return context.trim() ? { additionalContext: context } : {};
}

export function interpretStop(result: ShellCommandResult): StopOutcome {
  if (result.exitCode === BLOCKING_EXIT && !result.timedOut) {
    // Claude Code sends the hook's stderr back as the instruction; a hook that said nothing still blocks.
    return { continueWith: result.stderr.trim() || 'A SubagentStop hook asked you to continue before finishing.' };
  }
  const failure = failureOf(result);
  if (failure) return { warning: failure };
  const parsed = parseJsonOutput(result.stdout);
  if (parsed.kind === 'plain') return {};
  if (parsed.kind === 'invalid') return { warning: parsed.warning };
  if (parsed.value.decision !== 'block') return {};
  const reason = parsed.value.reason;
  if (typeof reason !== 'string' || !reason.trim()) return { warning: 'printed "decision": "block" without a "reason"; the agent is not sent back without an instruction' };
  return { continueWith: reason.trim() };
}

/**
 * A team event's hook, as Claude Code reads it: exit 2 blocks (its stderr
 * is the feedback: the teammate keeps working with it, or the task change
 * is refused with it); JSON output with `"continue": false` stops the
 * teammate (its `stopReason` says why). Anything else decides nothing.
 */
export function interpretTeamHook(result: ShellCommandResult, event: string): TeamHookVerdict & { warning?: string } {
  if (result.exitCode === BLOCKING_EXIT && !result.timedOut) return { block: result.stderr.trim() || `A ${event} hook said no.` };
  const failure = failureOf(result);
  if (failure) return { warning: failure };
  const parsed = parseJsonOutput(result.stdout);
  if (parsed.kind === 'plain') return {};
  if (parsed.kind === 'invalid') return { warning: parsed.warning };
  if (parsed.value.continue === false) {
    const reason = parsed.value.stopReason;
    return { stop: typeof reason === 'string' ? reason.trim() : '' };
  }
  return {};
}

/** Why a run produced no usable output, or null when it exited 0. */
function failureOf(result: ShellCommandResult): string | null {
  if (result.spawnError) return `could not be started: ${result.spawnError}`;
  if (result.timedOut) return `timed out after ${result.durationMs} ms and was killed`;
  if (result.exitCode === null) return `was killed by ${result.signal ?? 'a signal'}`;
  if (result.exitCode === 0) return null;
  const detail = firstLine(result.stderr);
  return `exited with code ${result.exitCode}${detail ? `: ${detail}` : ''}`;
}

type JsonOutput = { kind: 'plain' } | { kind: 'invalid'; warning: string } | { kind: 'json'; value: Record<string, unknown> };

/** Like Claude Code: stdout that starts with `{` is JSON output; anything else is plain text. */
export function parseJsonOutput(stdout: string): JsonOutput {
  const text = stdout.trim();
  if (!text.startsWith('{')) return { kind: 'plain' };
  try {
    const value: unknown = JSON.parse(text);
    if (isRecord(value)) return { kind: 'json', value };
  } catch (error) {
    return { kind: 'invalid', warning: `printed invalid JSON (${error instanceof Error ? error.message : String(error)}); ignored` };
  }
  return { kind: 'invalid', warning: 'printed JSON that is not an object; ignored' };
}

/** One line of a hook's stderr for a log message: enough to diagnose, never a flood. */
function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
