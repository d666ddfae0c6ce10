import { createInterface } from 'node:readline/promises';
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from '../core/tools/permissions';
import { terminalLine } from './render/terminalText';

/**
 * Asks in the terminal before a shell command or file change runs (S7.3),
 * one question at a time even when parallel agents ask together. `a`
 * allows that kind of call for the rest of the agent, `r` for the whole run.
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
        `\n${terminalLine(request.agentName)}${request.background ? ' (background)' : ''} wants to ${what}: ${terminalLine(request.toolName)} ${terminalLine(request.summary)}\n` +
          (request.protectedReason ? `This file is protected: ${terminalLine(request.protectedReason)}.\n` : '') +
          `Allow? [y]es / [n]o / [a]lways for this agent / always for this [r]un: `,
        { signal },
      );
      const key = answer.trim().toLowerCase()[0];
      if (key === 'a') return { allow: true, scope: 'agent', by: 'terminal' };
      if (key === 'r') return { allow: true, scope: 'run', by: 'terminal' };
      return key === 'y' ? { allow: true, by: 'terminal' } : { allow: false, reason: 'declined in the terminal', by: 'terminal' };
    } catch {
      return { allow: false, reason: 'no answer', by: 'terminal' };
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
