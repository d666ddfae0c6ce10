import type { AgentAction, AgentView, RunHeader, ToolView } from '../../src/protocol/webview';
import { themeColorCss } from '../../src/protocol/agentColor';
import { toolLabel as callLabel } from '../../src/protocol/tools';
import { approvalBox } from './approvalBox';
import { codicon, el, iconButton } from './dom';
import { statusDisplay } from '../../src/protocol/statusDisplay';
import { formatCost, formatDuration, formatTokens } from './format';
import { messageLines } from './messages';
import { resultLine } from './resultLine';
import { moreButton, type RowContext } from './rowContext';
import { worktreeLine } from './worktreeLine';

/**
 * The visible lines of one agent and of one tool call in the Runs tree.
 * An agent's first line is what must stay readable at any sidebar width:
 * its status icon, name, the start of its task and its time; its hover
 * actions take their room from the task, never past the edge. The second
 * line holds the state in words (when the icon is not enough), the model and
 * tokens/cost (and the whole run's, on its root); the row's hover has all of
 * it whole. Below: the approval it waits for, its worktree, its result, the
 * reason it failed. Each part below the first two lines is a component of
 * its own (approvalBox, worktreeLine, resultLine); every action of a row is
 * in its native context menu (right click, the menu key, or ⋯).
 */

export type { RowContext } from './rowContext';

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
  const display = statusDisplay(status);
  const icon = codicon(display.codicon, status === 'running' ? 'codicon-modifier-spin' : '');
  icon.classList.add('status', `status-${status}`);
  icon.setAttribute('aria-hidden', 'false');
  icon.setAttribute('role', 'img');
  icon.setAttribute('aria-label', display.label);
  icon.title = display.label;
  return icon;
}

/** The state in words, first on the second line, for the states the icon alone does not make plain. */
function stateWord(agent: AgentView): HTMLElement | null {
  const display = statusDisplay(agent.status);
  if (!display.spelled) return null;
  return el('span', { className: `state tone-${display.tone}`, text: display.label, testId: `state-${agent.id}` });
}

/** The row's hover: everything about the agent, whole. */
export function rowTooltip(agent: AgentView, run: RunHeader | null): string {
  const usage = [`${agent.tokens.toLocaleString('en-US')} tokens`, agent.costUsd > 0 ? `$${agent.costUsd.toFixed(4)}` : ''].filter(Boolean).join(' · ');
  const total = run && run.agentCount > 1 ? `\nWhole run: ${run.agentCount} agents, ${run.tokens.toLocaleString('en-US')} tokens${run.costUsd > 0 ? `, $${run.costUsd.toFixed(4)}` : ''}` : '';
  return [
    `${agent.name} — ${statusDisplay(agent.status).label}${agent.background ? ' (background)' : ''}`,
    agent.description ? `Task: ${agent.description}` : '',
    `Model: ${agent.model}`,
    `Used: ${usage}${total}`,
    run?.folder ? `Folder: ${run.folder}` : '',
    'Click for the transcript',
  ]
    .filter(Boolean)
    .join('\n');
}

/** The hover actions: the ones every row needs, then ⋯ for the rest (the row's context menu). */
function agentActions(agent: AgentView, ctx: RowContext): HTMLElement {
  const act = (action: AgentAction) => () => ctx.post({ type: 'agentAction', action, agentId: agent.id });
  const b = (icon: string, label: string, action: AgentAction) => iconButton(icon, label, `action-${action}-${agent.id}`, act(action));
  // An idle teammate is at work too: a message wakes it, stop ends it.
  const active = agent.status === 'running' || agent.status === 'queued' || agent.status === 'waiting' || agent.status === 'idle';
  return el('span', { className: 'actions' }, [
    active && ctx.message ? iconButton('mail', `Message ${agent.name} (M)`, `action-message-${agent.id}`, () => ctx.message!(agent)) : null,
    active ? b('debug-stop', `Stop ${agent.name} and its sub-agents`, 'stop') : null,
    b('output', `Show ${agent.name}'s transcript`, 'transcript'),
    !active ? b('comment-discussion', `Send ${agent.name} a follow-up`, 'followUp') : null,
    moreButton(`More actions for ${agent.name}`, `action-more-${agent.id}`),
  ]);
}

export function usageText(agent: AgentView): string {
  return [formatTokens(agent.tokens), formatCost(agent.costUsd)].filter(Boolean).join(' · ');
}

/** On a run's root, when the run has more agents than the root: what the whole tree used. */
function runTotals(run: RunHeader | null): HTMLElement | null {
  if (!run || run.agentCount < 2) return null;
  const text = ['total', formatTokens(run.tokens), formatCost(run.costUsd)].filter(Boolean).join(' ');
  const title = `The whole run: ${run.agentCount} agents, ${run.tokens.toLocaleString('en-US')} tokens${run.costUsd > 0 ? `, $${run.costUsd.toFixed(4)}` : ''}`;
  return el('span', { className: 'run-total', text, title });
}

/** The parts of an agent's view its row shows, except those patched in place on every chunk (activity, usage, the run's totals). */
export function rowSignature(agent: AgentView, run: RunHeader | null): string {
  const { tools: _t, children: _c, hiddenTools: _h, activity: _a, tokens: _k, costUsd: _u, ...rest } = agent;
  return JSON.stringify([rest, run && { folder: run.folder, many: run.agentCount > 1 }]);
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

/** `run` is the run's header when this is its root agent, else null. */
export function agentRow(agent: AgentView, expanded: boolean | null, run: RunHeader | null, ctx: RowContext): HTMLElement {
  const tooltip = rowTooltip(agent, run);
  const line = el('div', { className: 'line', title: tooltip }, [
    twistie(expanded),
    statusIcon(agent.status),
    accentDot(agent),
    el('span', { className: 'name', text: agent.name }),
    el('span', { className: 'description', text: agent.description }),
    el('span', { className: 'meta' }, [agent.background ? codicon('layers', 'background') : null, elapsedSpan(agent.startedAt, agent.endedAt, ctx)]),
    agentActions(agent, ctx),
  ]);
  const details = el('div', { className: 'subline details', title: tooltip }, [
    stateWord(agent),
    agent.agentName ? el('span', { className: 'agent-name', text: agent.agentName }) : null,
    el('span', { className: 'model', text: agent.model }),
    el('span', { className: 'usage', text: usageText(agent) }),
    runTotals(run),
    run?.folder ? el('span', { className: 'folder', text: run.folder }) : null,
  ]);
  const showError = agent.error && agent.status !== 'completed';
  return el('div', { className: 'row agent-row' }, [
    line,
    details,
    approvalBox(agent, ctx),
    el('div', { className: 'subline activity', text: agent.activity, testId: `activity-${agent.id}` }),
    messageLines(agent),
    worktreeLine(agent, ctx),
    ...(agent.notices ?? []).map((notice) =>
      el('div', { className: 'subline notice-text', title: notice }, [codicon('warning', 'notice-icon'), el('span', { text: notice })]),
    ),
    showError ? el('div', { className: 'subline error-text', text: agent.error ?? '', title: agent.error ?? '', testId: `error-${agent.id}` }) : null,
    resultLine(agent, ctx),
  ]);
}

/** Patches what changes on nearly every batch without rebuilding the row. */
export function patchAgentRow(row: HTMLElement, agent: AgentView, run: RunHeader | null): void {
  const activity = row.querySelector<HTMLElement>(':scope > .activity');
  if (activity && activity.textContent !== agent.activity) activity.textContent = agent.activity;
  const usage = row.querySelector<HTMLElement>(':scope > .details > .usage');
  const text = usageText(agent);
  if (usage && usage.textContent !== text) usage.textContent = text;
  const total = row.querySelector<HTMLElement>(':scope > .details > .run-total');
  const next = runTotals(run);
  if (total && next && (total.textContent !== next.textContent || total.title !== next.title)) total.replaceWith(next);
  const tooltip = rowTooltip(agent, run);
  for (const part of row.querySelectorAll<HTMLElement>(':scope > .line, :scope > .details')) if (part.title !== tooltip) part.title = tooltip;
}

export function toolRow(tool: ToolView, expanded: boolean | null): HTMLElement {
  const result = tool.status === 'running' ? '' : [tool.resultSummary, tool.durationMs !== null ? formatDuration(tool.durationMs) : ''].filter(Boolean).join(' · ');
  return el('div', { className: 'row' }, [
    twistie(expanded),
    // A running call has a still icon: its agent's row already spins, and hundreds of spinners cost every frame.
    codicon(tool.status === 'running' ? 'debug-stackframe-dot' : tool.status === 'ok' ? 'check' : 'close', `status tool-${tool.status}`),
    el('span', { className: 'name tool-name', text: callLabel(tool) }),
    el('span', { className: 'input', text: tool.inputSummary, title: tool.inputSummary }),
    el('span', { className: 'detail', text: result, title: result }),
  ]);
}

export function toolLabel(tool: ToolView): string {
  return `${callLabel(tool)} ${tool.inputSummary}, ${tool.status === 'running' ? 'running' : tool.status === 'ok' ? 'done' : 'failed'}${tool.resultSummary ? `: ${tool.resultSummary}` : ''}`;
}
