import { createInterface } from 'node:readline/promises';
import { previewText } from '../core/tools/approvalPreview';
import type { ModeConsentHandler } from '../core/tools/modeConsent';
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from '../core/tools/permissions';
import { approvalHeadline } from '../protocol/approvalText';
import { terminalLine, terminalText } from './render/terminalText';

/** A diff shown in the terminal stops after this many lines (and says how many more); a command is always shown whole. */
const TERMINAL_DIFF_LINES = 80;

/**
 * The question, with everything it approves: the whole command (every line,
 * however long) or the diff of the file change, indented under the headline,
 * control characters shown as visible pictures.
 */
export function approvalQuestion(request: ApprovalRequest): string {
  const headline = approvalHeadline({ ...request, agentName: terminalLine(request.agentName), summary: terminalLine(request.summary) });
  const detail = request.preview ? previewText(request.preview, TERMINAL_DIFF_LINES) : request.summary;
  const body = terminalText(detail)
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
  return (
    `\n${headline}${request.kind === 'bash' ? ':' : ` (${terminalLine(request.toolName)}):`}\n${body}\n` +
    (request.protectedReason ? `This file is protected: ${terminalLine(request.protectedReason)}.\n` : '') +
    'Allow? [y]es / [n]o / [a]lways for this agent / always for this [r]un: '
  );
}

/**
 * The questions the CLI asks in the terminal, one at a time even when
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
      return ask(approvalQuestion(request), signal, (answer): ApprovalDecision => {
        if (answer === null) return { allow: false, reason: 'no answer', by: 'terminal' };
        const key = answer.trim().toLowerCase()[0];
        if (key === 'a') return { allow: true, scope: 'agent', by: 'terminal' };
        if (key === 'r') return { allow: true, scope: 'run', by: 'terminal' };
        return key === 'y' ? { allow: true, by: 'terminal' } : { allow: false, reason: 'declined in the terminal', by: 'terminal' };
      });
    },
    modeConsent: (request, signal) => {
      const what = request.rules
        ? `lets "${terminalLine(request.agentName)}" run calls without asking (${request.rules.map(terminalLine).join('; ')}), as permissionMode ${request.requested} would`
        : `asks to run "${terminalLine(request.agentName)}" with permissionMode ${request.requested}`;
      const question =
        `\nThe agent file ${terminalLine(request.filePath || request.agentName)} ${what}, ` +
        `wider than ${request.current}.\nAllow this file, as it is now, to do that? It is asked again if the file changes. [y]es / [N]o: `;
      return ask(question, signal, (answer) => answer?.trim().toLowerCase().startsWith('y') ?? false);
    },
  };
}
