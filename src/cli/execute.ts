import type { AgentResult } from '../core/engine/tree/agentRun';
import { EngineError } from '../core/engine/errors';
import type { AgentRuntime, RunHandle } from '../core/runtime/api';
import type { ModeConsentHandler } from '../core/tools/modeConsent';
import type { RunEvent } from '../protocol/runEvents';
import { terminalQuestions } from './approvals';
import type { CliIO } from './command';
import { LiveTreeRenderer, LogRenderer, type Renderer } from './render/live';
import { formatDuration, formatUsage, styleFor } from './render/tree';
import { terminalLine, terminalText } from './render/terminalText';

/**
 * Runs one agent (a new run or a follow-up) and shows it: a live tree on a
 * terminal, progress lines elsewhere, or NDJSON events with --json whose last
 * line is the result. Shared by `run`, `resume` and `send`, whether the
 * runtime is this process's or the agent host's.
 */

export interface Presentation {
  json: boolean;
  /** Whether a person answers questions here; when not, approvals are denied at once (saying how to allow them). */
  interactive: boolean;
  /** How an agent file's wider permission mode is consented to: in the terminal, or (null) refused. */
  modeConsent: ModeConsentHandler | null;
  /** Starts showing what `runtime` does; the run's own events only, once `follow` names it. */
  attach(runtime: AgentRuntime): Renderer | null;
  /** The run this command follows: its events are shown, its approvals asked here. */
  follow(runId: string): void;
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
  let runId: string | null = null;
  // Events that came before the run was known (its first ones, as it starts): shown once it is.
  let early: RunEvent[] | null = [];
  let show: (event: RunEvent) => void = () => undefined;
  return {
    json,
    interactive,
    modeConsent: questions?.modeConsent ?? null,
    attach(runtime) {
      const renderer = json
        ? null
        : interactive
          ? (live = new LiveTreeRenderer(io.stderr as NodeJS.WriteStream, runtime.store, () => runId, style))
          : new LogRenderer(io.stderr, runtime.store, () => runId, style);
      show = (event) => {
        if (json) io.stdout.write(`${JSON.stringify(event)}\n`);
        renderer?.event(event);
      };
      runtime.onEvent((event) => {
        if (early) early.push(event);
        else if (event.runId === runId) show(event);
      });
      if (questions) {
        runtime.approvals.addAsker((approval, settled) => {
          if (approval.request.runId !== runId) return;
          void questions.approvals(approval.request, settled).then((decision) => runtime.approvals.answer(approval.request.id, decision));
        });
      }
      return renderer;
    },
    follow(id) {
      runId = id;
      const before = early ?? [];
      early = null;
      for (const event of before) if (event.runId === id) show(event);
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
export type Started = RunHandle | { handedOver: string; json: Record<string, unknown> };

/** Follows what `start` starts; work handed over is printed as is, with exit code 0. */
export async function executeRun(io: CliIO, runtime: AgentRuntime, view: Presentation, start: () => Promise<Started>, command: string): Promise<number> {
  const renderer = view.attach(runtime);
  let run: RunHandle;
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
  view.follow(run.runId);
  const onAbort = () => void runtime.stopRun(run.runId, 'Interrupted from the terminal.');
  io.signal.addEventListener('abort', onAbort, { once: true });
  // A message that came as the agent ended continues it: the result is the last continuation's.
  const result = await run.result();
  // Agents of the run continued meanwhile (a message to one that had ended) finish before the process does.
  await runtime.settle(run.runId);
  io.signal.removeEventListener('abort', onAbort);
  renderer?.stop();

  if (view.json) {
    io.stdout.write(`${resultLine(result)}\n`);
  } else {
    const style = styleFor(io.stderr as { isTTY?: boolean }, io.env);
    const raw = result.structuredOutput !== undefined ? JSON.stringify(result.structuredOutput, null, 2) : result.output;
    const output = raw && terminalText(raw);
    if (output) io.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
    const total = runtime.store.get(result.runId)?.usage ?? result.usage;
    const summary = `${result.status} · ${formatDuration(result.durationMs)} · ${formatUsage(total)} · agent ${result.agentId}${result.error ? ` · ${terminalLine(result.error)}` : ''}`;
    io.stderr.write(`${result.status === 'completed' ? style.green(summary) : style.red(summary)}\n`);
  }
  return result.status === 'completed' ? 0 : 1;
}
