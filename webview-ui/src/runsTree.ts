import type { AgentAction, AgentView, RunView, ToolView, WebviewToHost } from '../../src/protocol/webview';
import { codicon, el, iconButton, treeItem } from './dom';
import { formatCost, formatDuration, formatTokens, STATUS_ICONS, STATUS_LABELS } from './format';

/**
 * One run as a tree (S6.1): agent → its tool rows → the agents a spawn row
 * started, nested under that row; children without a row (resumed, or their
 * row folded away) follow the tool rows. Each row shows status, elapsed
 * time, tokens/cost, model and the worktree, with the actions that apply.
 */

type Post = (message: WebviewToHost) => void;

export interface RunRenderContext {
  post: Post;
  /** Whether a node is expanded (the user's choice, or the default for its run). */
  expanded(key: string, byDefault: boolean): boolean;
  /** Host clock minus webview clock, for elapsed times. */
  clockOffset(): number;
}

function elapsedSpan(startedAt: number, endedAt: number | null, ctx: RunRenderContext): HTMLElement {
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

function twistie(expanded: boolean | null): HTMLElement {
  if (expanded === null) return el('span', { className: 'twistie-space' });
  return codicon(expanded ? 'chevron-down' : 'chevron-right', 'twistie');
}

function agentActions(agent: AgentView, ctx: RunRenderContext): HTMLElement {
  const act = (action: AgentAction) => () => ctx.post({ type: 'agentAction', action, agentId: agent.id });
  const b = (icon: string, label: string, action: AgentAction) => iconButton(icon, label, `action-${action}-${agent.id}`, act(action));
  const running = agent.status === 'running' || agent.status === 'queued' || agent.status === 'waiting';
  const wt = agent.worktree;
  return el('span', { className: 'actions' }, [
    running ? b('debug-stop', `Stop ${agent.name} and its sub-agents`, 'stop') : null,
    b('output', `Show ${agent.name}'s transcript`, 'transcript'),
    !running ? b('comment-discussion', `Send ${agent.name} a follow-up`, 'followUp') : null,
    wt && wt.state !== 'discarded' && wt.state !== 'active' ? b('diff', 'Review the changes', 'reviewWorktree') : null,
    wt && wt.state === 'finished' ? b('check', 'Apply the changes to the workspace', 'applyWorktree') : null,
    wt && (wt.state === 'finished' || wt.state === 'applied') ? b('trash', 'Discard the worktree and its branch', 'discardWorktree') : null,
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

function toolItem(tool: ToolView, owner: AgentView, run: RenderableRun, ctx: RunRenderContext, rendered: Set<string>): HTMLLIElement {
  const child = tool.childAgentId ? run.agents[tool.childAgentId] : undefined;
  const key = `tool:${tool.id}`;
  const open = child ? ctx.expanded(key, true) : null;
  const result = tool.status === 'running' ? '' : [tool.result, tool.durationMs !== null ? formatDuration(tool.durationMs) : ''].filter(Boolean).join(' · ');
  const row = el('div', { className: 'row' }, [
    twistie(open),
    codicon(tool.status === 'running' ? 'loading' : tool.status === 'ok' ? 'check' : 'close', `status tool-${tool.status}${tool.status === 'running' ? ' codicon-modifier-spin' : ''}`),
    el('span', { className: 'name tool-name', text: tool.name }),
    el('span', { className: 'input', text: tool.input, title: tool.input }),
    el('span', { className: 'detail', text: result, title: tool.result }),
  ]);
  let group: HTMLElement | undefined;
  if (child) {
    rendered.add(child.id);
    group = el('ul', { role: 'group' }, [agentItem(child, run, ctx, rendered)]);
  }
  const item = treeItem(
    {
      className: `tool tool-${tool.status}`,
      testId: `tool-${tool.id}`,
      key,
      label: `${tool.name} ${tool.input}, ${tool.status === 'running' ? 'running' : tool.status === 'ok' ? 'done' : 'failed'}${tool.result ? `: ${tool.result}` : ''}`,
      activate: () => ctx.post({ type: 'agentAction', action: 'transcript', agentId: owner.id }),
    },
    row,
    group,
  );
  item.dataset.status = tool.status;
  if (open !== null) item.setAttribute('aria-expanded', String(open));
  return item;
}

export type RenderableRun = RunView & {
  /** Whether the run's root starts expanded (recent runs do, old ones stay folded). */
  defaultOpen: boolean;
};

export function agentItem(agent: AgentView, run: RenderableRun, ctx: RunRenderContext, rendered = new Set<string>([agent.id])): HTMLLIElement {
  const key = `agent:${agent.id}`;
  const isRoot = agent.id === run.rootAgentId;
  const hasContent = agent.tools.length > 0 || agent.children.length > 0 || agent.hiddenTools > 0;
  const open = hasContent ? ctx.expanded(key, !isRoot || run.status === 'running' || run.status === 'waiting' || run.defaultOpen) : null;
  const usage = [formatTokens(agent.tokens), formatCost(agent.costUsd)].filter(Boolean).join(' · ');
  const line = el('div', { className: 'line' }, [
    twistie(open),
    statusIcon(agent.status),
    el('span', { className: 'name', text: agent.name }),
    el('span', { className: 'description', text: agent.description, title: agent.description }),
    el('span', { className: 'meta' }, [agent.background ? codicon('layers', 'background') : null, elapsedSpan(agent.startedAt, agent.endedAt, ctx)]),
    agentActions(agent, ctx),
  ]);
  const details = el('div', { className: 'subline details' }, [
    el('span', { className: 'model', text: agent.model }),
    el('span', { className: 'usage', text: usage }),
    run.folder && isRoot ? el('span', { className: 'folder', text: run.folder }) : null,
  ]);
  const showError = agent.error && agent.status !== 'completed';
  const row = el('div', { className: 'row agent-row' }, [
    line,
    details,
    agent.activity ? el('div', { className: 'subline activity', text: agent.activity, testId: `activity-${agent.id}` }) : null,
    worktreeLine(agent),
    showError ? el('div', { className: 'subline error-text', text: agent.error ?? '', title: agent.error ?? '', testId: `error-${agent.id}` }) : null,
  ]);
  const children: HTMLElement[] = [];
  if (agent.hiddenTools > 0) {
    children.push(el('li', { className: 'folded', text: `${agent.hiddenTools} earlier tool call${agent.hiddenTools === 1 ? '' : 's'} (see the transcript)` }));
  }
  for (const tool of agent.tools) children.push(toolItem(tool, agent, run, ctx, rendered));
  for (const childId of agent.children) {
    const child = run.agents[childId];
    if (!child || rendered.has(childId)) continue;
    rendered.add(childId);
    children.push(agentItem(child, run, ctx, rendered));
  }
  const group = hasContent ? el('ul', { role: 'group' }, children) : undefined;
  const item = treeItem(
    {
      className: `run-agent status-${agent.status}${isRoot ? ' root' : ''}`,
      testId: `run-agent-${agent.id}`,
      key,
      label: `${agent.name}, ${STATUS_LABELS[agent.status]}: ${agent.description}`,
      title: `${agent.name} · ${agent.model}\n${agent.description}`,
      activate: () => ctx.post({ type: 'agentAction', action: 'transcript', agentId: agent.id }),
    },
    row,
    group,
  );
  item.dataset.status = agent.status;
  item.dataset.agentName = agent.name;
  if (open !== null) item.setAttribute('aria-expanded', String(open));
  return item;
}

export function renderRun(run: RenderableRun, ctx: RunRenderContext): HTMLElement {
  const root = run.agents[run.rootAgentId];
  const tree = el('ul', { role: 'tree', className: 'tree run', testId: `run-${run.runId}`, key: `run:${run.runId}` });
  tree.dataset.status = run.status;
  tree.setAttribute('aria-label', `Run of ${root?.name ?? 'an agent'}`);
  if (root) tree.append(agentItem(root, run, ctx));
  return tree;
}
