import { finalResult, type AgentResult, type AgentRun } from '../core/engine/agentRun';
import { EngineError } from '../core/engine/errors';
import { PermissionGate } from '../core/tools/permissions';
import { terminalQuestions } from './approvals';
import type { ModeConsentHandler } from '../core/tools/modeConsent';
import type { CliIO } from './command';
import { LiveTreeRenderer, LogRenderer, type Renderer } from './render/live';
import { formatDuration, formatUsage, styleFor } from './render/tree';
import { terminalLine, terminalText } from './render/terminalText';
import type { EngineSession } from './session';

/**
 * Runs one agent (a new run or a follow-up) and shows it: a live tree on a
 * terminal, progress lines elsewhere, or NDJSON events with --json whose last
 * line is the result. Shared by `run` and `resume`.
 */

export interface Presentation {
  json: boolean;
  /** Filled in once the session exists, so approvals can pause the live tree. */
  gate: PermissionGate;
  /** How an agent file's wider permission mode is consented to: in the terminal, or (null) refused. */
  modeConsent: ModeConsentHandler | null;
  attach(session: EngineSession): Renderer | null;
}

/** Whether a person can answer questions: a terminal on both ends, and no --json. */
export function interactiveTerminal(io: CliIO, json: boolean): boolean {
  return !json && Boolean((process.stdin as { isTTY?: boolean }).isTTY) && Boolean((io.stderr as { isTTY?: boolean }).isTTY);
}

export function presentation(io: CliIO, json: boolean): Presentation {
  const style = styleFor(io.stderr as { isTTY?: boolean }, io.env);
  const interactive = interactiveTerminal(io, json);
  let live: LiveTreeRenderer | null = null;
  const pauser = { pause: () => live?.pause(), resume: () => live?.resume() };
  const questions = interactive ? terminalQuestions(process.stdin, process.stderr, pauser) : null;
  const gate = new PermissionGate(questions?.approvals ?? null);
  let runId: string | null = null;
  return {
    json,
    gate,
    modeConsent: questions?.modeConsent ?? null,
    attach(session) {
      const renderer = json
        ? null
        : interactive
          ? (live = new LiveTreeRenderer(io.stderr as NodeJS.WriteStream, session.store, () => runId, style))
          : new LogRenderer(io.stderr, session.store, () => runId, style);
      session.engine.onEvent((event) => {
        runId ??= event.runId;
        if (json) io.stdout.write(`${JSON.stringify(event)}\n`);
        renderer?.event(event);
      });
      return renderer;
    },
  };
}

/** The line `--json` ends with. */
export function resultLine(result: AgentResult): string {
  return JSON.stringify({
    type: 'result',
    status: result.status,
    agentId: result.agentId,
    runId: result.runId,
    output: result.structuredOutput ?? result.output,
    error: result.error,
    usage: result.usage,
    turns: result.turns,
    durationMs: result.durationMs,
    worktree: result.worktree,
  });
}

/** The run to follow, or (`handedOver`) word that the work went to another process (a message queued for an agent it runs). */
export type Started = AgentRun | { handedOver: string; json: Record<string, unknown> };

/** Follows what `start` starts; work handed over is printed as is, with exit code 0. */
export async function executeRun(io: CliIO, session: EngineSession, view: Presentation, start: () => Promise<Started>, command: string): Promise<number> {
  const renderer = view.attach(session);
  let run: AgentRun;
  try {
    const started = await start();
    if ('handedOver' in started) {
      renderer?.stop();
      io.stdout.write(view.json ? `${JSON.stringify(started.json)}\n` : `${started.handedOver}\n`);
      return 0;
    }
    run = started;
  } catch (error) {
    renderer?.stop();
    if (error instanceof EngineError) {
      io.stderr.write(`subagents ${command}: ${terminalText(error.message)}\n`);
      return 1;
    }
    throw error;
  }
  const onAbort = () => session.engine.cancelRun(run.tree.runId, 'Interrupted from the terminal.');
  io.signal.addEventListener('abort', onAbort, { once: true });
  // A message that came as the agent ended continues it: the result is the last continuation's.
  const { result } = await finalResult(run);
  // Agents of the run continued meanwhile (a message to one that had ended) finish before the process does.
  await session.settle(run.tree.runId);
  io.signal.removeEventListener('abort', onAbort);
  renderer?.stop();

  if (view.json) {
    io.stdout.write(`${resultLine(result)}\n`);
  } else {
    const style = styleFor(io.stderr as { isTTY?: boolean }, io.env);
    const raw = result.structuredOutput !== undefined ? JSON.stringify(result.structuredOutput, null, 2) : result.output;
    const output = raw && terminalText(raw);
    if (output) io.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
    const total = session.store.get(result.runId)?.usage ?? result.usage;
    const summary = `${result.status} · ${formatDuration(result.durationMs)} · ${formatUsage(total)} · agent ${result.agentId}${result.error ? ` · ${terminalLine(result.error)}` : ''}`;
    io.stderr.write(`${result.status === 'completed' ? style.green(summary) : style.red(summary)}\n`);
  }
  return result.status === 'completed' ? 0 : 1;
}
