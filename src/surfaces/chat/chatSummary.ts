import { formatCost, formatDuration, formatTokens } from '../../protocol/format';
import { totalTokens, type Usage } from '../../protocol/runEvents';
import { agentOf, type AgentNode, type RunSnapshot } from '../../protocol/runSnapshot';
import { statusDisplay, statusText } from '../../protocol/statusDisplay';
import { code, escapeMarkdown } from './chatLog';
import { teamSummary } from './teamLog';

/**
 * What a chat response ends with: every agent of the run tree, in tree
 * order, with its status, model, turns, tokens (input / output / cache) and
 * cost and time, under a headline with the tree's total (per agent and
 * rolled up). A nested list rather than a table: the chat panel is narrow, and
 * a seven-column table there is a scroll bar. Read from the RunStore
 * snapshot, so it says what the sidebar says.
 */

/** A completed agent's line needs no word: its ✓ says it. */
function statusMark(status: AgentNode['status']): string {
  return status === 'completed' ? statusDisplay(status).symbol : statusText(status);
}

/** The agents of a run in tree order: each parent before its children, children in start order. */
export function treeOrder(run: RunSnapshot): AgentNode[] {
  const out: AgentNode[] = [];
  const visit = (id: string) => {
    const node = agentOf(run, id);
    if (!node) return;
    out.push(node);
    const children = node.children.map((c) => agentOf(run, c)).filter((c): c is AgentNode => Boolean(c));
    for (const child of children.sort((a, b) => a.startedAt - b.startedAt)) visit(child.agentId);
  };
  visit(run.rootAgentId);
  return out;
}

function tokens(u: Usage): string {
  return `${formatTokens(totalTokens(u))} tok (${formatTokens(u.inputTokens)} in · ${formatTokens(u.outputTokens)} out · ${formatTokens(u.cacheReadTokens + u.cacheWriteTokens)} cache)`;
}

function turns(n: number): string {
  return `${n} turn${n === 1 ? '' : 's'}`;
}

function agentLine(node: AgentNode): string {
  const cost = formatCost(node.usage.costUsd);
  const time = formatDuration((node.endedAt ?? Date.now()) - node.startedAt);
  const changes = node.worktree?.filesChanged ? ` · ${node.worktree.filesChanged} file${node.worktree.filesChanged === 1 ? '' : 's'} changed` : '';
  const facts = [turns(node.turns), tokens(node.usage), cost, time].filter(Boolean).join(' · ');
  // A teammate by its team name, with the agent it ran.
  const name = node.member ? `**${escapeMarkdown(node.member)}** (${escapeMarkdown(node.agentName)})` : `**${escapeMarkdown(node.agentName)}**`;
  return `${'  '.repeat(node.depth)}- ${statusMark(node.status)} ${name} ${code(node.model)} — ${facts}${changes}`;
}

export function runSummary(run: RunSnapshot): string {
  const agents = treeOrder(run);
  const cost = formatCost(run.usage.costUsd);
  const headline = [
    `${agents.length} agent${agents.length === 1 ? '' : 's'}`,
    turns(agents.reduce((n, a) => n + a.turns, 0)),
    `${formatTokens(totalTokens(run.usage))} tokens`,
    cost,
    formatDuration((run.endedAt ?? Date.now()) - run.startedAt),
  ]
    .filter(Boolean)
    .join(' · ');
  const team = teamSummary(run, escapeMarkdown);
  return [`**Run summary:** ${headline}`, '', ...agents.map(agentLine), ...(team ? ['', team] : [])].join('\n');
}
