import path from 'node:path';
import { formatCost, formatDuration, formatTokens } from '../../protocol/format';
import { approvalHeadline } from '../../protocol/approvalText';
import { isActiveStatus, totalTokens } from '../../protocol/runEvents';
import type { AgentNode, RunSnapshot, ToolRow } from '../../protocol/runSnapshot';
import { statusDisplay } from '../../protocol/statusDisplay';
import { builtinTool, isSpawnToolName, toolLabel } from '../../protocol/tools';
import { TeamChatLog } from './teamLog';

/**
 * A run tree told as a chat response. Chat responses are append-only,
 * so the tree is not redrawn: it becomes a calm log of what changed since the
 * last look (an agent started, a few tools finished, an agent finished), one
 * line each, indented by depth and always naming its agent (parallel agents'
 * lines interleave), plus a progress line for what is happening now. Tools
 * that finish in a burst fold into counts. Plain code over RunStore
 * snapshots; the participant decides how often to look.
 */

export type ChatPart =
  | { kind: 'markdown'; text: string }
  | { kind: 'progress'; text: string }
  | { kind: 'reference'; filePath: string }
  | { kind: 'approval'; approvalId: string; text: string };

/** More tools than this finishing between two looks at one agent are folded into counts. */
const TOOL_LINES_BEFORE_FOLDING = 2;


/**
 * Text from a model, a tool, a file or an agent file, made literal for chat
 * Markdown on one line: every character Markdown could read as syntax
 * (emphasis, links, images, HTML, headings, tables) is escaped.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]<>()#+!|~]/g, '\\$&').replace(/\s+/g, ' ').trim();
}

/** A fence of backticks longer than any run of them in `text`, so nothing inside can close it. */
function fenceFor(text: string, min: number): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(Math.max(min, longest + 1));
}

/** Inline code on one line, whatever backticks the text holds: nothing in it is read as Markdown. */
export function code(text: string): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (!clean) return '';
  const fence = fenceFor(clean, 1);
  // A space keeps a backtick at either end from joining the fence (CommonMark strips one on each side).
  const pad = clean.startsWith('`') || clean.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${clean}${pad}${fence}`;
}

/** A code block holding `text` whole (every line), which no fence inside can close. */
export function codeBlock(text: string, language = ''): string {
  const fence = fenceFor(text, 3);
  return `${fence}${language}\n${text.replace(/\n$/, '')}\n${fence}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Non-collapsing indentation for a line at `depth` (Markdown drops leading spaces). */
function indent(depth: number): string {
  return '&emsp;'.repeat(depth);
}

function byStart(run: RunSnapshot): AgentNode[] {
  return Object.values(run.agents).sort((a, b) => a.startedAt - b.startedAt || a.depth - b.depth);
}

export function agentTotals(node: AgentNode): string {
  const cost = formatCost(node.usage.costUsd);
  return [formatDuration((node.endedAt ?? Date.now()) - node.startedAt), `${formatTokens(totalTokens(node.usage))} tok`, cost].filter(Boolean).join(' · ');
}

interface AgentSeen {
  /** The retry last told (its attempt), so each wait is told once. */
  retry: number;
  started: boolean;
  finished: boolean;
  /** When it ended, as last told: a new end means it was continued meanwhile. */
  endedAt: number | null;
  /** Tool rows already told, of those the store still holds. */
  tools: Set<string>;
  /** The node's foldedTools at the last look. */
  folded: number;
  approval: string | null;
  /** Notices already told (how many of the node's). */
  notices: number;
  /** Messages to the agent already told. */
  messages: Set<string>;
}

/**
 * Messages the user sent the agent from elsewhere (the Runs view, a
 * terminal), once each; an agent's own messages are told by its SendMessage
 * line, which names both agents.
 */
function messageLines(node: AgentNode, told: Set<string>): string[] {
  const lines: string[] = [];
  for (const message of node.messages ?? []) {
    if (told.has(message.messageId)) continue;
    told.add(message.messageId);
    if (message.kind !== 'message' || message.from) continue;
    lines.push(`${indent(node.depth + 1)}✉ **you → ${escapeMarkdown(node.agentName)}**: “${escapeMarkdown(clip(message.text, 160))}”${message.deliveredAt === null ? ' _(read at its next turn)_' : ''}`);
  }
  return lines;
}

/**
 * A waiting agent's question as chat Markdown: the headline, then what it
 * approves, whole, as a code block (the command, every line; a tool call's
 * arguments; or the diff of the file change), and why a protected file asks.
 */
function approvalText(node: AgentNode): string {
  const { toolName, summary, kind, protectedReason, detail } = node.approval!;
  const headline = approvalHeadline({ agentName: node.agentName, background: node.background, kind, toolName, summary: '' }).replace(/ a file$/, '');
  // A call's arguments follow whole: their cut one-line summary would only repeat them.
  const wholeBelow = kind === 'bash' || (kind === 'mcp' && Boolean(detail));
  const target = wholeBelow ? '' : ` ${code(summary) || escapeMarkdown(toolName)}`;
  const why = protectedReason ? ` _(protected: ${escapeMarkdown(protectedReason)})_` : '';
  const whole = detail ?? (kind === 'bash' ? summary : null);
  const block = whole ? `\n\n${codeBlock(whole, kind === 'bash' ? 'sh' : kind === 'mcp' ? 'json' : 'diff')}` : '';
  return `${indent(node.depth + 1)}**Approval needed:** ${escapeMarkdown(headline)}${target}${wholeBelow ? ':' : ''}${why}${block}`;
}

/** How the log names an agent: a teammate by its team name. */
function nameOf(node: AgentNode): string {
  return node.member ?? node.agentName;
}

export class ChatRunLog {
  readonly #seen = new Map<string, AgentSeen>();
  readonly #files = new Set<string>();
  readonly #team = new TeamChatLog(escapeMarkdown);

  /**
   * Takes `run` as already told: a follow-up's response tells only what
   * happens from now on, not the earlier rounds of the same tree.
   */
  prime(run: RunSnapshot): void {
    for (const node of Object.values(run.agents)) {
      const seen = this.#state(node.agentId);
      seen.started = true;
      seen.finished = !isActiveStatus(node.status);
      seen.endedAt = node.endedAt;
      seen.folded = node.foldedTools;
      seen.notices = node.notices?.length ?? 0;
      for (const row of node.tools) if (row.status !== 'running') seen.tools.add(row.toolUseId);
      for (const message of node.messages ?? []) seen.messages.add(message.messageId);
    }
    this.#team.prime(run);
  }

  /** What changed in `run` since the last call, as parts to append. */
  update(run: RunSnapshot): ChatPart[] {
    const lines: string[] = [];
    const parts: ChatPart[] = [];
    const flushLines = () => {
      if (lines.length) parts.push({ kind: 'markdown', text: `${lines.join('  \n')}  \n` });
      lines.length = 0;
    };
    for (const node of byStart(run)) {
      const seen = this.#state(node.agentId);
      if (!seen.started) {
        seen.started = true;
        lines.push(this.#startLine(node));
      } else if (seen.finished && (isActiveStatus(node.status) || node.endedAt !== seen.endedAt)) {
        // An agent told as finished worked again (maybe all between two looks): a follow-up continues it.
        seen.finished = false;
        lines.push(this.#startLine(node, 'continues'));
      }
      for (const notice of (node.notices ?? []).slice(seen.notices)) lines.push(`${indent(node.depth + 1)}⚠ ${escapeMarkdown(clip(notice, 300))}`);
      seen.notices = node.notices?.length ?? 0;
      lines.push(...messageLines(node, seen.messages));
      lines.push(...this.#toolLines(node, seen));
      const wait = node.status === 'running' ? node.retryWait : null;
      if (wait && wait.attempt !== seen.retry) {
        seen.retry = wait.attempt;
        lines.push(`${indent(node.depth + 1)}↻ **${escapeMarkdown(nameOf(node))}** retry ${wait.attempt}: ${escapeMarkdown(clip(wait.reason, 200))}`);
      }
      for (const file of this.#files.size < 500 ? this.#touchedFiles(node) : []) parts.push({ kind: 'reference', filePath: file });
      const approvalId = node.approval?.approvalId ?? null;
      // Chat cannot take back buttons it has written: it says they are spent, right below them.
      if (seen.approval && seen.approval !== approvalId) {
        lines.push(`${indent(node.depth + 1)}☑ _${escapeMarkdown(node.agentName)}'s question was answered: its buttons above no longer act._`);
        seen.approval = null;
      }
      if (approvalId && seen.approval !== approvalId) {
        seen.approval = approvalId;
        flushLines();
        parts.push({ kind: 'approval', approvalId, text: approvalText(node) });
      }
      if (!seen.finished && !isActiveStatus(node.status)) {
        seen.finished = true;
        seen.endedAt = node.endedAt;
        lines.push(this.#finishLine(node));
      }
    }
    lines.push(...this.#team.update(run));
    flushLines();
    // The current state, every time: the stream decides when it is worth a write.
    const progress = this.#progressText(run);
    if (progress) parts.push({ kind: 'progress', text: progress });
    return parts;
  }

  #state(agentId: string): AgentSeen {
    let seen = this.#seen.get(agentId);
    if (!seen) {
      seen = { retry: 0, started: false, finished: false, endedAt: null, tools: new Set(), folded: 0, approval: null, notices: 0, messages: new Set() };
      this.#seen.set(agentId, seen);
    }
    return seen;
  }

  #startLine(node: AgentNode, note = ''): string {
    const notes = [note, node.background ? 'background' : '', node.worktreePath || node.worktree ? 'in a worktree' : ''].filter(Boolean).join(', ');
    // The root's task is the user's own message, right above.
    const task = node.depth > 0 && node.description ? ` — ${escapeMarkdown(clip(node.description, 100))}` : '';
    return `${indent(node.depth)}▸ **${escapeMarkdown(nameOf(node))}** ${code(node.model)}${task}${notes ? ` _(${notes})_` : ''}`;
  }

  #finishLine(node: AgentNode): string {
    const status = statusDisplay(node.status);
    const worktree = node.worktree?.filesChanged ? ` · ${node.worktree.filesChanged} file${node.worktree.filesChanged === 1 ? '' : 's'} changed on ${code(node.worktree.branch)}` : '';
    const error = node.status !== 'completed' && node.error ? ` — ${escapeMarkdown(clip(node.error, 200))}` : '';
    return `${indent(node.depth)}${status.symbol} **${escapeMarkdown(nameOf(node))}** ${status.sentence} · ${agentTotals(node)}${worktree}${error}`;
  }

  /**
   * Rows the store folded away (it keeps only the newest per agent) before
   * this log saw them: the fold since the last look, less the rows it had told.
   */
  #foldedUnseen(node: AgentNode, seen: AgentSeen): number {
    const folded = node.foldedTools - seen.folded;
    seen.folded = node.foldedTools;
    if (folded === 0) return 0;
    const held = new Set(node.tools.map((row) => row.toolUseId));
    let toldAndFolded = 0;
    for (const id of seen.tools) {
      if (held.has(id)) continue;
      seen.tools.delete(id);
      toldAndFolded++;
    }
    return Math.max(0, folded - toldAndFolded);
  }

  /** Tool rows that finished since the last look, one line each, or one line of counts when many did. */
  #toolLines(node: AgentNode, seen: AgentSeen): string[] {
    const unseen = this.#foldedUnseen(node, seen);
    const fresh: ToolRow[] = [];
    for (const row of node.tools) {
      if (row.status === 'running' || seen.tools.has(row.toolUseId)) continue;
      seen.tools.add(row.toolUseId);
      // The spawn tool's rows are told by the child agent's own lines.
      if (!isSpawnToolName(row.name)) fresh.push(row);
    }
    if (fresh.length === 0 && unseen === 0) return [];
    const pad = indent(node.depth + 1);
    const who = `**${escapeMarkdown(nameOf(node))}**`;
    if (unseen === 0 && fresh.length <= TOOL_LINES_BEFORE_FOLDING) {
      return fresh.map((row) => {
        const failed = row.status === 'error';
        const result = failed && row.resultSummary ? ` — ${escapeMarkdown(clip(row.resultSummary, 120))}` : '';
        return `${pad}${failed ? '✕' : '✓'} ${who} ${escapeMarkdown(toolLabel(row))} ${code(clip(row.inputSummary, 80))}${result}`;
      });
    }
    const counts = new Map<string, { n: number; failed: number }>();
    for (const row of fresh) {
      const label = escapeMarkdown(toolLabel(row));
      const c = counts.get(label) ?? { n: 0, failed: 0 };
      c.n++;
      if (row.status === 'error') c.failed++;
      counts.set(label, c);
    }
    const list = [...counts].map(([name, c]) => `${name} ×${c.n}${c.failed ? ` (${c.failed} failed)` : ''}`);
    if (unseen) list.push(`${unseen} more tool call${unseen === 1 ? '' : 's'}`);
    return [`${pad}✓ ${who} ${list.join(' · ')}`];
  }

  /** Files the agent's file tools read or changed, once each. */
  #touchedFiles(node: AgentNode): string[] {
    const out: string[] = [];
    for (const row of node.tools) {
      if (row.status !== 'ok' || builtinTool(row.name)?.subject !== 'file' || !row.inputSummary) continue;
      const file = path.resolve(node.cwd, row.inputSummary);
      if (this.#files.has(file)) continue;
      this.#files.add(file);
      out.push(file);
    }
    return out;
  }

  /** What is happening now: a question waiting for the user first, then the newest running tool, then who is thinking. */
  #progressText(run: RunSnapshot): string {
    const active = byStart(run).filter((n) => isActiveStatus(n.status));
    if (active.length === 0) return '';
    const waiting = active.find((n) => n.approval);
    if (waiting) {
      const { toolName, toolUseId, summary } = waiting.approval!;
      // `notes › note` for an MCP tool, as its row says.
      const row = waiting.tools.findLast((t) => t.toolUseId === toolUseId);
      return `${nameOf(waiting)} is waiting for your approval: ${row ? toolLabel(row) : toolName} ${clip(summary, 80)}`;
    }
    const retrying = active.find((n) => n.status === 'running' && n.retryWait);
    if (retrying) return `${nameOf(retrying)} is waiting to retry (${retrying.retryWait!.attempt}): ${clip(retrying.retryWait!.reason, 100)}`;
    let newest: { node: AgentNode; row: ToolRow } | null = null;
    for (const node of active) {
      for (const row of node.tools) {
        if (row.status === 'running' && !isSpawnToolName(row.name) && (!newest || row.startedAt > newest.row.startedAt)) newest = { node, row };
      }
    }
    if (newest) return `${nameOf(newest.node)}: ${toolLabel(newest.row)} ${clip(newest.row.inputSummary, 80)}`;
    // An idle teammate is alive but not thinking: it waits for a message.
    const working = active.filter((n) => n.status !== 'idle');
    const idle = active.length - working.length;
    const idleNote = idle ? `${idle} teammate${idle === 1 ? '' : 's'} idle, waiting for a message` : '';
    if (working.length === 0) return idleNote;
    const deepest = working.reduce((a, b) => (b.depth >= a.depth ? b : a));
    const others = working.length - 1;
    return `${nameOf(deepest)} is thinking…${others ? ` (${others} more agent${others === 1 ? '' : 's'} at work)` : ''}${idle ? ` · ${idleNote}` : ''}`;
  }
}
