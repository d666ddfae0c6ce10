import { formatWait } from '../../core/engine/loop/network';
import { isActiveStatus } from '../../protocol/runEvents';
import { formatDuration, formatUsage } from '../../protocol/format';
import { terminalLine } from './terminalText';
import { toolLabel } from '../../protocol/tools';
import type { AgentColor } from '../../protocol/agentColor';
import { agentOf, type AgentMessage, type AgentNode, type RunSnapshot, type ToolRow } from '../../protocol/runSnapshot';
import { taskLines, teamModel } from '../../surfaces/team/teamModel';
import { statusDisplay, type StatusTone } from '../../protocol/statusDisplay';

/**
 * Renders a run tree snapshot as terminal lines: agents with their status,
 * model, elapsed time and tokens; under each, its tool rows, with the agents
 * a spawn call started nested under that call.
 */

export interface Style {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
  /** An agent's accent (its definition's `color`). */
  accent(color: AgentColor, s: string): string;
}

export { formatDuration, formatTokens, formatUsage } from '../../protocol/format';

const plain: Style = { green: (s) => s, red: (s) => s, yellow: (s) => s, dim: (s) => s, bold: (s) => s, accent: (_c, s) => s };
const ansi = (open: number | string, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`;
/** The 16 basic colours where one matches (they follow the terminal's theme); orange and pink from the 256-colour palette. */
const ACCENT_SGR: Readonly<Record<AgentColor, number | string>> = { red: 31, green: 32, yellow: 33, blue: 34, purple: 35, cyan: 36, orange: '38;5;208', pink: '38;5;211' };
export const colors: Style = {
  green: ansi(32, 39),
  red: ansi(31, 39),
  yellow: ansi(33, 39),
  dim: ansi(2, 22),
  bold: ansi(1, 22),
  accent: (color, s) => ansi(ACCENT_SGR[color], 39)(s),
};

export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Style {
  return stream.isTTY && !env.NO_COLOR && env.TERM !== 'dumb' ? colors : plain;
}

/** Each tone of the status table in a terminal's colours. */
const TONE_COLOUR: Record<StatusTone, keyof Pick<Style, 'green' | 'red' | 'yellow' | 'dim'>> = {
  active: 'yellow',
  attention: 'yellow',
  done: 'green',
  error: 'red',
  muted: 'dim',
  warning: 'yellow',
};

function agentIcon(node: AgentNode, s: Style): string {
  const d = statusDisplay(node.status);
  return s[TONE_COLOUR[d.tone]](d.symbol);
}

function toolIcon(row: ToolRow, s: Style): string {
  return row.status === 'ok' ? s.green('✓') : row.status === 'error' ? s.red('✕') : s.yellow('…');
}

function truncate(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text;
}

/** A retry being waited for (what failed, and in how long it goes out), else how many there were. */
function retryNote(node: AgentNode, now: number, s: Style): string | null {
  const wait = node.status === 'running' ? node.retryWait : null;
  if (wait && wait.until > now) return s.yellow(`${terminalLine(wait.reason)}: retrying in ${formatWait(wait.until - now)}`);
  if (wait) return s.yellow(`retry ${wait.attempt} sent (${terminalLine(wait.reason)})`);
  return node.retries ? s.yellow(`${node.retries} retr${node.retries === 1 ? 'y' : 'ies'}`) : null;
}

export function agentLine(node: AgentNode, now: number, s: Style): string {
  const elapsed = (node.endedAt ?? now) - node.startedAt;
  // A teammate goes by its name in the team, with the agent it runs.
  const name = node.member ? `${node.member} (${node.agentName})` : node.agentName;
  const parts = [
    `${agentIcon(node, s)} ${s.bold(node.color ? s.accent(node.color, terminalLine(name)) : terminalLine(name))}`,
    // Idle is spelled out: its faint icon alone reads like an ended agent's.
    node.status === 'idle' ? s.dim(statusDisplay('idle').label) : null,
    node.description && node.depth > 0 ? s.dim(terminalLine(node.description)) : null,
    s.dim(terminalLine(node.model)),
    s.dim(formatDuration(elapsed)),
    s.dim(formatUsage(node.usage)),
    node.background ? s.dim('background') : null,
    node.worktree ? s.dim(`branch ${terminalLine(node.worktree.branch)}`) : null,
    retryNote(node, now, s),
    node.approval ? s.yellow(`waits for approval: ${terminalLine(node.approval.toolName)} ${terminalLine(node.approval.summary)}`) : null,
  ];
  return parts.filter(Boolean).join(' · ');
}

/** A message to the agent: who sent it, what it says, whether it still waits for the agent's next turn. */
export function messageLine(message: AgentMessage, atWork: boolean, s: Style): string {
  const from = message.from ? `${terminalLine(message.from.agentName)} (${message.from.agentId})` : 'you';
  const what = message.kind === 'result' ? `result of ${from}` : `message from ${from}`;
  const waiting = message.deliveredAt !== null ? '' : s.yellow(atWork ? ' · waiting for its next turn' : ' · waiting: read when it is continued');
  return `✉ ${what}: ${s.dim(`“${terminalLine(message.text)}”`)}${waiting}`;
}

export function renderTree(run: RunSnapshot, options: { now?: number; style?: Style; width?: number } = {}): string[] {
  const s = options.style ?? plain;
  const now = options.now ?? Date.now();
  const width = options.width ?? 120;
  const lines: string[] = [];

  const walk = (node: AgentNode, prefix: string) => {
    const rows = node.tools;
    const nested = new Set(rows.map((r) => r.childAgentId).filter(Boolean));
    const orphans = node.children.filter((id) => !nested.has(id)).map((id) => agentOf(run, id)).filter((n): n is AgentNode => Boolean(n));
    const items: Array<{ kind: 'folded' } | { kind: 'notice'; message: string } | { kind: 'tool'; row: ToolRow } | { kind: 'message'; message: AgentMessage } | { kind: 'agent'; node: AgentNode } | { kind: 'text' }> = [];
    for (const message of node.notices ?? []) items.push({ kind: 'notice', message });
    if (node.foldedTools) items.push({ kind: 'folded' });
    // Tool calls and the messages the agent read, in the order they happened; messages still waiting come last.
    const timeline = [
      ...rows.map((row) => ({ at: row.startedAt, item: { kind: 'tool' as const, row } })),
      ...(node.messages ?? []).map((message) => ({ at: message.deliveredAt ?? Number.MAX_SAFE_INTEGER, item: { kind: 'message' as const, message } })),
    ];
    for (const { item } of timeline.sort((a, b) => a.at - b.at)) items.push(item);
    for (const orphan of orphans) items.push({ kind: 'agent', node: orphan });
    const live = node.status === 'running' && node.text.trim();
    if (live) items.push({ kind: 'text' });

    items.forEach((item, i) => {
      const last = i === items.length - 1;
      const branch = prefix + (last ? '└─ ' : '├─ ');
      const childPrefix = prefix + (last ? '   ' : '│  ');
      if (item.kind === 'folded') lines.push(truncate(`${branch}${s.dim(`… ${node.foldedTools} earlier tool calls`)}`, width));
      else if (item.kind === 'notice') lines.push(truncate(`${branch}${s.yellow(`⚠ ${terminalLine(item.message)}`)}`, width));
      else if (item.kind === 'text') lines.push(truncate(`${branch}${s.dim(`“${terminalLine(node.text.trim().split('\n').at(-1) ?? '')}”`)}`, width));
      else if (item.kind === 'message') lines.push(truncate(`${branch}${messageLine(item.message, isActiveStatus(node.status), s)}`, width));
      else if (item.kind === 'agent') {
        lines.push(truncate(`${branch}${agentLine(item.node, now, s)}`, width));
        walk(item.node, childPrefix);
      } else {
        const { row } = item;
        const summary = terminalLine(row.resultSummary);
        const result = summary ? ` · ${row.status === 'error' ? s.red(summary) : s.dim(summary)}` : '';
        const time = row.durationMs !== null ? ` · ${s.dim(formatDuration(row.durationMs))}` : '';
        lines.push(truncate(`${branch}${toolIcon(row, s)} ${terminalLine(toolLabel(row))} ${terminalLine(row.inputSummary)}${result}${time}`, width));
        const child = row.childAgentId ? agentOf(run, row.childAgentId) : undefined;
        if (child) {
          lines.push(truncate(`${childPrefix}└─ ${agentLine(child, now, s)}`, width));
          walk(child, `${childPrefix}   `);
        }
      }
    });
  };

  const root = agentOf(run, run.rootAgentId);
  if (!root) return lines;
  lines.push(truncate(agentLine(root, now, s), width));
  walk(root, '');
  // A team's task list, under its tree.
  const team = teamModel(run);
  if (team?.tasks.length) lines.push(...taskLines(team).map((line) => truncate(terminalLine(line), width)));
  return lines;
}
