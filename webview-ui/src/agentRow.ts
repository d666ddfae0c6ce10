import { ANSWER_LABELS, type AgentAction, type AgentView, type ApprovalAnswer, type ToolView, type WebviewToHost } from '../../src/protocol/webview';
import { themeColorCss } from '../../src/protocol/agentColor';
import { approvalLabel } from '../../src/protocol/tools';
import { codicon, el, iconButton, textButton } from './dom';
import { formatCost, formatDuration, formatTokens, STATUS_ICONS, STATUS_LABELS } from './format';
import { messageLines } from './messages';

/**
 * The visible line of one agent and of one tool call in the Runs tree: status,
 * name, what it does, elapsed time, tokens/cost, model, worktree, the reason
 * it failed, the approval it waits for, and the actions that apply.
 */

export interface RowContext {
  post(message: WebviewToHost): void;
  /** Opens or closes the agent's message box (messages.ts). */
  message?(agent: AgentView): void;
  /** Host clock minus webview clock, for elapsed times. */
  clockOffset(): number;
}

export function twistie(expanded: boolean | null): HTMLElement {
  if (expanded === null) return el('span', { className: 'twistie-space' });
  return codicon(expanded ? 'chevron-down' : 'chevron-right', 'twistie');
}

function elapsedSpan(startedAt: number, endedAt: number | null, ctx: RowContext): HTMLElement {
  const span = el('span', { className: 'elapsed' });
  if (endedAt === null) {
    // Ticked every second by main.ts while the agent runs.
    span.dataset.since = String(startedAt);
    span.textContent = formatDuration(Date.now() + ctx.clockOffset() - startedAt);
  } else span.textContent = formatDuration(endedAt - startedAt);
  return span;
}

function statusIcon(status: AgentView['status']): HTMLElement {
  const icon = codicon(STATUS_ICONS[status], status === 'running' ? 'codicon-modifier-spin' : '');
  icon.classList.add('status', `status-${status}`);
  icon.setAttribute('aria-hidden', 'false');
  icon.setAttribute('role', 'img');
  icon.setAttribute('aria-label', STATUS_LABELS[status]);
  icon.title = STATUS_LABELS[status];
  return icon;
}

function agentActions(agent: AgentView, ctx: RowContext): HTMLElement {
  const act = (action: AgentAction) => () => ctx.post({ type: 'agentAction', action, agentId: agent.id });
  const b = (icon: string, label: string, action: AgentAction) => iconButton(icon, label, `action-${action}-${agent.id}`, act(action));
  const active = agent.status === 'running' || agent.status === 'queued' || agent.status === 'waiting';
  const wt = agent.worktree;
  return el('span', { className: 'actions' }, [
    active && ctx.message ? iconButton('mail', `Message ${agent.name} (M)`, `action-message-${agent.id}`, () => ctx.message!(agent)) : null,
    active ? b('debug-stop', `Stop ${agent.name} and its sub-agents`, 'stop') : null,
    b('output', `Show ${agent.name}'s transcript`, 'transcript'),
    !active ? b('comment-discussion', `Send ${agent.name} a follow-up`, 'followUp') : null,
    wt && wt.state !== 'discarded' && wt.state !== 'active' ? b('diff', 'Review the changes', 'reviewWorktree') : null,
    wt && wt.state === 'finished' ? b('check', 'Apply the changes to the workspace', 'applyWorktree') : null,
    wt && (wt.state === 'finished' || wt.state === 'applied') ? b('trash', 'Discard the worktree and its branch', 'discardWorktree') : null,
    agent.filePath ? b('go-to-file', `Open ${agent.name}'s definition`, 'openDefinition') : null,
  ]);
}

function worktreeLine(agent: AgentView): HTMLElement | null {
  const wt = agent.worktree;
  if (!wt) return null;
  const changes =
    wt.state === 'active'
      ? 'working in an isolated worktree'
      : wt.filesChanged === null
        ? ''
        : `${wt.filesChanged} file${wt.filesChanged === 1 ? '' : 's'} · +${wt.insertions} −${wt.deletions}`;
  const state = wt.state === 'applied' ? ' · applied' : wt.state === 'discarded' ? ' · discarded' : '';
  return el('div', { className: `subline worktree${wt.state === 'discarded' ? ' gone' : ''}`, testId: `worktree-${agent.id}`, title: wt.branch }, [
    codicon('git-branch'),
    el('span', { className: 'branch', text: wt.branch || 'worktree' }),
    el('span', { className: 'detail', text: `${changes}${state}` }),
  ]);
}

/** A waiting agent's question, with its answers as real buttons (always in the tab order: it blocks the agent). */
function approvalBox(agent: AgentView, ctx: RowContext): HTMLElement | null {
  const approval = agent.approval;
  if (!approval || agent.status !== 'waiting') return null;
  const answer = (a: ApprovalAnswer) => () => ctx.post({ type: 'approval', agentId: agent.id, approvalId: approval.approvalId, answer: a });
  const label = approvalLabel(approval.kind);
  const box = el('div', { className: 'approval', testId: `approval-${agent.id}`, role: 'group' }, [
    el('div', { className: 'approval-text' }, [
      codicon(label.icon),
      el('span', { text: `Wants to ${label.verb}: ` }),
      el('code', { text: approval.summary || approval.toolName, title: approval.summary }),
    ]),
    approval.protectedReason ? el('div', { className: 'approval-protected', text: `Protected: ${approval.protectedReason}` }) : null,
    el('div', { className: 'approval-buttons' }, [
      textButton(ANSWER_LABELS.allow, `approve-allow-${agent.id}`, answer('allow'), 'text-button primary'),
      textButton(ANSWER_LABELS.allowAgent, `approve-agent-${agent.id}`, answer('allowAgent')),
      textButton(ANSWER_LABELS.allowRun, `approve-run-${agent.id}`, answer('allowRun')),
      textButton(ANSWER_LABELS.deny, `approve-deny-${agent.id}`, answer('deny')),
    ]),
  ]);
  box.setAttribute('aria-label', `${agent.name} wants to ${label.verb}: ${approval.summary}`);
  return box;
}

export function usageText(agent: AgentView): string {
  return [formatTokens(agent.tokens), formatCost(agent.costUsd)].filter(Boolean).join(' · ');
}

/** The parts of an agent's view its row shows, except the two that change on every chunk (patched in place). */
export function rowSignature(agent: AgentView, isRoot: boolean, folder: string | null): string {
  const { tools: _t, children: _c, hiddenTools: _h, activity: _a, tokens: _k, costUsd: _u, ...rest } = agent;
  return JSON.stringify([rest, isRoot, folder]);
}

/** The agent's accent (its definition's `color`) as a small dot in the theme's matching colour. */
function accentDot(agent: AgentView): HTMLElement | null {
  if (!agent.color) return null;
  const dot = el('span', { className: 'accent', testId: `accent-${agent.id}` });
  dot.dataset.color = agent.color;
  dot.setAttribute('aria-hidden', 'true');
  // CSSOM, not a style attribute: the view's CSP allows no inline styles.
  dot.style.setProperty('--agent-accent', themeColorCss(agent.color));
  return dot;
}

export function agentRow(agent: AgentView, expanded: boolean | null, isRoot: boolean, folder: string | null, ctx: RowContext): HTMLElement {
  const line = el('div', { className: 'line' }, [
    twistie(expanded),
    statusIcon(agent.status),
    accentDot(agent),
    el('span', { className: 'name', text: agent.name }),
    el('span', { className: 'description', text: agent.description, title: agent.description }),
    el('span', { className: 'meta' }, [agent.background ? codicon('layers', 'background') : null, elapsedSpan(agent.startedAt, agent.endedAt, ctx)]),
    agentActions(agent, ctx),
  ]);
  const details = el('div', { className: 'subline details' }, [
    el('span', { className: 'model', text: agent.model }),
    el('span', { className: 'usage', text: usageText(agent) }),
    folder && isRoot ? el('span', { className: 'folder', text: folder }) : null,
  ]);
  const showError = agent.error && agent.status !== 'completed';
  return el('div', { className: 'row agent-row' }, [
    line,
    details,
    approvalBox(agent, ctx),
    el('div', { className: 'subline activity', text: agent.activity, testId: `activity-${agent.id}` }),
    messageLines(agent),
    worktreeLine(agent),
    showError ? el('div', { className: 'subline error-text', text: agent.error ?? '', title: agent.error ?? '', testId: `error-${agent.id}` }) : null,
  ]);
}

/** Patches what changes on nearly every batch without rebuilding the row. */
export function patchAgentRow(row: HTMLElement, agent: AgentView): void {
  const activity = row.querySelector<HTMLElement>(':scope > .activity');
  if (activity && activity.textContent !== agent.activity) activity.textContent = agent.activity;
  const usage = row.querySelector<HTMLElement>(':scope > .details > .usage');
  const text = usageText(agent);
  if (usage && usage.textContent !== text) usage.textContent = text;
}

export function toolRow(tool: ToolView, expanded: boolean | null): HTMLElement {
  const result = tool.status === 'running' ? '' : [tool.resultSummary, tool.durationMs !== null ? formatDuration(tool.durationMs) : ''].filter(Boolean).join(' · ');
  return el('div', { className: 'row' }, [
    twistie(expanded),
    // A running call has a still icon: its agent's row already spins, and hundreds of spinners cost every frame.
    codicon(tool.status === 'running' ? 'debug-stackframe-dot' : tool.status === 'ok' ? 'check' : 'close', `status tool-${tool.status}`),
    el('span', { className: 'name tool-name', text: tool.name }),
    el('span', { className: 'input', text: tool.inputSummary, title: tool.inputSummary }),
    el('span', { className: 'detail', text: result, title: result }),
  ]);
}

export function toolLabel(tool: ToolView): string {
  return `${tool.name} ${tool.inputSummary}, ${tool.status === 'running' ? 'running' : tool.status === 'ok' ? 'done' : 'failed'}${tool.resultSummary ? `: ${tool.resultSummary}` : ''}`;
}
