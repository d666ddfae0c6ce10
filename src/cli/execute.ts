import type { AgentResult, AgentRun } from '../core/engine/agentRun';
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

export async function executeRun(io: CliIO, session: EngineSession, view: Presentation, start: () => Promise<AgentRun>, command: string): Promise<number> {
  const renderer = view.attach(session);
  let run: AgentRun;
  try {
    run = await start();
  } catch (error) {
    renderer?.stop();
    if (error instanceof EngineError) {
      io.stderr.write(`subagents ${command}: ${terminalText(error.message)}\n`);
      return 1;
    }
    throw error;
  }
  const onAbort = () => session.engine.cancel(run.id, 'Interrupted from the terminal.');
  io.signal.addEventListener('abort', onAbort, { once: true });
  const result = await run.done;
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
