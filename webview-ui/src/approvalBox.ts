import { approvalVerb } from '../../src/protocol/approvalText';
import { approvalLabel as approvalMark } from '../../src/protocol/tools';
import { ANSWER_LABELS, type AgentView, type ApprovalAnswer, type ApprovalView } from '../../src/protocol/webview';
import { codicon, el, textButton } from './dom';
import type { RowContext } from './rowContext';

/**
 * A waiting agent's question on its row: what it wants to do, shown whole
 * (the command, every line, wrapped and scrollable; or the diff of the file
 * change, coloured), its answers as real buttons (always in the tab order:
 * the agent is blocked on them), and the way to open it in an editor.
 */

/** A command longer than this also offers an editor to read it in. */
const LONG_COMMAND_CHARS = 1000;

/** A unified diff, line by line, coloured by what each line is. */
function diffBlock(diff: string): HTMLElement {
  const pre = el('pre', { className: 'approval-detail diff', testId: 'approval-diff' });
  for (const line of diff.split('\n')) {
    const kind = line.startsWith('+++') || line.startsWith('---') ? 'file' : line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('…') ? 'more' : 'ctx';
    pre.append(el('span', { className: `diff-${kind}`, text: `${line}\n` }));
  }
  pre.tabIndex = 0;
  pre.setAttribute('aria-label', 'The change, as a diff');
  return pre;
}

function commandBlock(command: string): HTMLElement {
  const pre = el('pre', { className: 'approval-detail command', testId: 'approval-command', text: command });
  pre.tabIndex = 0;
  pre.setAttribute('aria-label', 'The whole command');
  return pre;
}

/** A tool call's arguments, every one of them (the summary in the headline is cut). */
function argumentsBlock(json: string): HTMLElement {
  const pre = el('pre', { className: 'approval-detail command', testId: 'approval-arguments', text: json });
  pre.tabIndex = 0;
  pre.setAttribute('aria-label', 'The whole arguments');
  return pre;
}

/** "Wants to run a shell command: npm test" — what a screen reader says for the box, and for the row. */
export function approvalLabel(approval: ApprovalView): string {
  const what = `wants to ${approvalVerb(approval)}`;
  return approval.kind === 'bash' ? `${what}: ${approval.detail ?? approval.summary}` : `${what} ${approval.summary}`;
}

export function approvalBox(agent: AgentView, ctx: RowContext): HTMLElement | null {
  const approval = agent.approval;
  if (!approval || agent.status !== 'waiting') return null;
  const answer = (a: ApprovalAnswer) => () => ctx.post({ type: 'approval', agentId: agent.id, approvalId: approval.approvalId, answer: a });
  const verb = approvalVerb(approval);
  const detail = approval.detail;
  const isCommand = approval.kind === 'bash';
  const isCall = approval.kind === 'mcp';
  // What follows whole (a command, a call's arguments) needs no cut summary in the headline.
  const wholeBelow = isCommand || (isCall && Boolean(detail));
  const headline = el('div', { className: 'approval-text' }, [
    codicon(approvalMark(approval.kind, approval.toolName).icon),
    el('span', { text: wholeBelow ? `Wants to ${verb}:` : `Wants to ${verb} ` }),
    wholeBelow ? null : el('code', { text: approval.summary || approval.toolName, title: approval.summary }),
  ]);
  const body = isCommand ? commandBlock(detail ?? approval.summary) : isCall ? (detail ? argumentsBlock(detail) : null) : detail ? diffBlock(detail) : null;
  // A long command or argument list also opens in an editor; a change always does.
  const long = (detail ?? '').length > LONG_COMMAND_CHARS || (detail ?? '').split('\n').length > 12;
  const openable = isCommand || isCall ? long : true;
  const show = () => ctx.post({ type: 'showApproval', agentId: agent.id, approvalId: approval.approvalId });
  const box = el('div', { className: 'approval', testId: `approval-${agent.id}`, role: 'group' }, [
    headline,
    body,
    approval.protectedReason ? el('div', { className: 'approval-protected', text: `Protected: ${approval.protectedReason}` }) : null,
    el('div', { className: 'approval-buttons' }, [
      textButton(ANSWER_LABELS.allow, `approve-allow-${agent.id}`, answer('allow'), 'text-button primary'),
      textButton(ANSWER_LABELS.allowAgent, `approve-agent-${agent.id}`, answer('allowAgent')),
      textButton(ANSWER_LABELS.allowRun, `approve-run-${agent.id}`, answer('allowRun')),
      textButton(ANSWER_LABELS.deny, `approve-deny-${agent.id}`, answer('deny')),
      openable ? textButton(isCommand ? 'Show Command' : isCall ? 'Show Arguments' : 'Show Change', `approve-show-${agent.id}`, show, 'link-button') : null,
    ]),
  ]);
  box.setAttribute('aria-label', `${agent.name} ${approvalLabel(approval)}`);
  return box;
}
