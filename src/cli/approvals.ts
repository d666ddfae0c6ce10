import { createInterface } from 'node:readline/promises';
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from '../core/tools/permissions';
import { terminalLine } from './render/terminalText';

/**
 * Asks in the terminal before a shell command or file change runs (S7.3),
 * one question at a time even when parallel agents ask together. `a`
 * allows that kind of call for the rest of the run.
 */
export function terminalApprovals(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  hooks: { pause(): void; resume(): void } = { pause() {}, resume() {} },
): ApprovalHandler {
  let queue: Promise<unknown> = Promise.resolve();
  const ask = async (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> => {
    hooks.pause();
    const rl = createInterface({ input, output, terminal: true });
    try {
      const what = request.kind === 'bash' ? 'run' : 'change';
      const answer = await rl.question(
        `\n${terminalLine(request.agentName)}${request.background ? ' (background)' : ''} wants to ${what}: ${terminalLine(request.toolName)} ${terminalLine(request.summary)}\nAllow? [y]es / [n]o / [a]lways for this run: `,
        { signal },
      );
      const key = answer.trim().toLowerCase()[0];
      if (key === 'a') return { allow: true, rememberForRun: true };
      return key === 'y' ? { allow: true } : { allow: false, reason: 'declined in the terminal' };
    } catch {
      return { allow: false, reason: 'no answer' };
    } finally {
      rl.close();
      hooks.resume();
    }
  };
  return (request, signal) => {
    const next = queue.then(() => ask(request, signal));
    queue = next.catch(() => undefined);
    return next;
  };
}
