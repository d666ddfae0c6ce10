import { createInterface } from 'node:readline/promises';
import type { ModeConsentHandler } from '../core/tools/modeConsent';
import type { ApprovalDecision, ApprovalHandler } from '../core/tools/permissions';
import { approvalLabel } from '../protocol/tools';
import { terminalLine } from './render/terminalText';

/**
 * The questions the CLI asks in the terminal (S7.3), one at a time even when
 * parallel agents ask together, with the live tree paused meanwhile: before
 * a shell command or file change runs (`a` allows that kind of call for the
 * rest of the agent, `r` for the whole run), and before an agent file may
 * widen the permission mode.
 */
export interface TerminalQuestions {
  approvals: ApprovalHandler;
  modeConsent: ModeConsentHandler;
}

export function terminalQuestions(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  hooks: { pause(): void; resume(): void } = { pause() {}, resume() {} },
): TerminalQuestions {
  let queue: Promise<unknown> = Promise.resolve();
  const ask = <T>(question: string, signal: AbortSignal, interpret: (answer: string | null) => T): Promise<T> => {
    const next = queue.then(async () => {
      hooks.pause();
      const rl = createInterface({ input, output, terminal: true });
      try {
        return interpret(await rl.question(question, { signal }));
      } catch {
        return interpret(null);
      } finally {
        rl.close();
        hooks.resume();
      }
    });
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    approvals: (request, signal) => {
      const question =
        `\n${terminalLine(request.agentName)}${request.background ? ' (background)' : ''} wants to ${approvalLabel(request.kind).verb}: ${terminalLine(request.toolName)} ${terminalLine(request.summary)}\n` +
        (request.protectedReason ? `This file is protected: ${terminalLine(request.protectedReason)}.\n` : '') +
        'Allow? [y]es / [n]o / [a]lways for this agent / always for this [r]un: ';
      return ask(question, signal, (answer): ApprovalDecision => {
        if (answer === null) return { allow: false, reason: 'no answer', by: 'terminal' };
        const key = answer.trim().toLowerCase()[0];
        if (key === 'a') return { allow: true, scope: 'agent', by: 'terminal' };
        if (key === 'r') return { allow: true, scope: 'run', by: 'terminal' };
        return key === 'y' ? { allow: true, by: 'terminal' } : { allow: false, reason: 'declined in the terminal', by: 'terminal' };
      });
    },
    modeConsent: (request, signal) => {
      const question =
        `\nThe agent file ${terminalLine(request.filePath || request.agentName)} asks to run "${terminalLine(request.agentName)}" with permissionMode ${request.requested}, ` +
        `wider than ${request.current}.\nAllow this file, as it is now, to do that? It is asked again if the file changes. [y]es / [N]o: `;
      return ask(question, signal, (answer) => answer?.trim().toLowerCase().startsWith('y') ?? false);
    },
  };
}
