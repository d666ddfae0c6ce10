import os from 'node:os';
import path from 'node:path';
import type { AgentCatalog } from '../../core/agents/catalog/catalog';
import type { TeamCatalog } from '../../core/agents/teams/teamCatalog';
import type { ShadowedDefinition } from '../../core/agents/definition';
import type { WorktreeRecord } from '../../core/isolation';
import type { AgentFamily, AgentSource } from '../../core/agents/kinds';
import { agentColor, type AgentColor } from '../../protocol/agentColor';
import { isActiveStatus } from '../../protocol/runEvents';
import { agentOf, type AgentNode, type RunSnapshot } from '../../protocol/runSnapshot';
import type { AgentView, ApprovalView, MessageView, RunHeader, RunView, TeamView, ToolView } from '../../protocol/webview';
import { teamModel } from '../team/teamModel';
import type { AgentServers } from '../../core/mcp/listing';
import { escapeHtml, markdownHtml } from '../transcript/transcriptHtml';

/**
 * Projections of the catalogs and the RunStore snapshots into the view
 * models the views render: the Agents tree (below) and the Runs webview
 * (protocol/webview.ts). No `vscode` here: plain functions of their inputs.
 */

export interface AgentSummary {
  name: string;
  description: string;
  source: AgentSource;
  family: AgentFamily | null;
  filePath: string;
  model: string | null;
  disabled: boolean;
  /** False for Copilot's `user-invocable: false`: there for other agents to start, not for the user. */
  userInvocable: boolean;
  /** Set when a higher-precedence definition of the same name wins: where that one lives. */
  shadowedBy: string | null;
  /** The definition's UI accent, when it names one Claude Code knows. */
  color: AgentColor | null;
  /** Its MCP servers (and editor tool sets) and whether they were reachable; absent: none. */
  mcp?: AgentServers;
  /** The folder it was found in and that folder's place in the search order (1 = searched first); null when unknown. */
  foundIn: { rank: number; dir: string } | null;
}

/** One folder discovery searched, in the order it searched them: where a name is looked up first wins. */
export interface SearchedDir {
  /** 1-based place in the search order. */
  rank: number;
  path: string;
  /** The path as the views show it: relative to the workspace folder, or `~/…`. */
  display: string;
  source: AgentSource;
  family: AgentFamily | null;
  pluginName: string | null;
  /** For a folder read only for some files in it (a project root's `.roomodes`, `opencode.json`): those files. */
  files?: readonly string[];
}

export interface WarningSummary {
  filePath: string;
  message: string;
}

/** A team file, as the Agents view lists it. */
export interface TeamSummary {
  name: string;
  description: string;
  source: 'project' | 'user';
  filePath: string;
  lead: string;
  members: Array<{ name: string; agent: string; model?: string; isolation?: 'worktree' | 'none' }>;
  /** Set when an agent of the same name wins over it (the team cannot be run by name). */
  shadowedBy: string | null;
}

/** One workspace folder's agents (each folder is a scope of its own). */
export interface FolderAgents {
  /** Identifies the folder (its URI). */
  key: string;
  name: string;
  agents: AgentSummary[];
  warnings: WarningSummary[];
  /** The folders searched, in precedence order (family by family, then plugins, then the built-in agents). */
  dirs: SearchedDir[];
  /** The folder's teams (team files), project first (absent: none). */
  teams?: TeamSummary[];
}

/** Tool rows sent per agent: the newest ones, plus every spawn row (children hang under them). */
const MAX_TOOL_ROWS = 40;
const MAX_ACTIVITY = 160;
const MAX_ERROR = 400;
/** An ended agent's answer, as the Runs view's Result line unfolds it; the transcript has all of it. */
const MAX_RESULT = 4000;

export function displayPath(filePath: string, folder: string, home = os.homedir()): string {
  const inFolder = path.relative(folder, filePath);
  if (!inFolder.startsWith('..') && !path.isAbsolute(inFolder)) return inFolder;
  const inHome = path.relative(home, filePath);
  if (!inHome.startsWith('..') && !path.isAbsolute(inHome)) return `~/${inHome}`;
  return filePath;
}

function shadowText(s: ShadowedDefinition, folder: string): string {
  return `${s.shadowedBy.source} agent ${displayPath(s.shadowedBy.filePath, folder)}`;
}

export function folderAgents(
  scope: {
    key: string;
    name: string;
    folder: string;
    catalog: AgentCatalog | null;
    disabled: readonly string[];
    mcpServers?: ReadonlyMap<string, AgentServers>;
    teams?: Pick<TeamCatalog, 'teams' | 'shadowed' | 'problems'> | null;
  },
): FolderAgents {
  const { catalog, folder } = scope;
  const dirs: SearchedDir[] = (catalog?.dirs ?? []).map((d, i) => {
    const files = d.rules?.only;
    // A dir standing for single files shows them: `.roomodes`, `opencode.json, opencode.jsonc`.
    const shown = displayPath(d.path, folder);
    return {
      rank: i + 1,
      path: d.path,
      display: files ? `${shown === '' ? '' : `${shown}/`}${files.join(', ')}` : shown,
      source: d.source,
      family: d.family,
      pluginName: d.pluginName ?? null,
      ...(files ? { files } : {}),
    };
  });
  const foundIn = (filePath: string) => {
    const dir = dirs.find((d) => (d.files ? d.files.some((f) => path.join(d.path, f) === filePath) : isWithin(filePath, d.path)));
    return dir ? { rank: dir.rank, dir: dir.display } : null;
  };
  const summary = (a: AgentCatalog['agents'][number], shadowedBy: string | null): AgentSummary => ({
    name: a.name,
    description: a.description,
    source: a.source,
    family: a.family,
    filePath: a.filePath,
    model: a.model,
    disabled: scope.disabled.includes(a.name),
    userInvocable: a.userInvocable !== false,
    shadowedBy,
    color: agentColor(a.color),
    ...(!shadowedBy && scope.mcpServers?.has(a.name) ? { mcp: scope.mcpServers.get(a.name)! } : {}),
    foundIn: foundIn(a.filePath),
  });
  return {
    key: scope.key,
    name: scope.name,
    agents: catalog
      ? [...catalog.agents.map((a) => summary(a, null)), ...catalog.shadowed.map((s) => summary(s.definition, shadowText(s, folder)))]
      : [],
    warnings: [
      ...(catalog?.warnings ?? []).map((w) => ({ filePath: w.filePath, message: `${displayPath(w.filePath, folder)}: ${w.message}` })),
      // A team file's problems stand with the agent files' (a file that is no team is listed nowhere else).
      ...(scope.teams?.problems ?? []).map((p) => ({ filePath: p.filePath, message: `${displayPath(p.filePath, folder)}: ${p.message}` })),
    ],
    dirs,
    teams: (scope.teams?.teams ?? []).map((t) => ({
      name: t.name,
      description: t.description,
      source: t.source,
      filePath: t.filePath,
      lead: t.lead,
      members: t.members,
      shadowedBy: catalog?.find(t.name) ? `agent ${displayPath(catalog.find(t.name)!.filePath, folder)}` : null,
    })),
  };
}

function isWithin(filePath: string, dir: string): boolean {
  const rel = path.relative(dir, filePath);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function lastLine(text: string, max: number): string {
  const lines = text.trimEnd().split('\n');
  const line = (lines.at(-1) ?? '').trim();
  return line.length > max ? `…${line.slice(-(max - 1))}` : line;
}

function toolRows(node: AgentNode): { tools: ToolView[]; hidden: number } {
  const cut = Math.max(0, node.tools.length - MAX_TOOL_ROWS);
  const rows = node.tools.filter((row, i) => i >= cut || row.childAgentId !== null);
  return {
    tools: rows.map((row) => ({
      toolUseId: row.toolUseId,
      name: row.name,
      inputSummary: oneLine(row.inputSummary, 200),
      status: row.status,
      resultSummary: oneLine(row.resultSummary, 200),
      durationMs: row.durationMs,
      childAgentId: row.childAgentId,
      ...(row.server ? { server: row.server } : {}),
    })),
    hidden: node.foldedTools + node.tools.length - rows.length,
  };
}

function worktreeView(node: AgentNode, record: WorktreeRecord | undefined): AgentView['worktree'] {
  if (!node.worktree && !node.worktreePath && !record) return null;
  const info = node.worktree ?? record?.info ?? null;
  const state = record?.state === 'creating' ? 'active' : (record?.state ?? (isActiveStatus(node.status) ? 'active' : 'finished'));
  if (!info && state !== 'active') return null;
  return {
    branch: node.worktree?.branch ?? record?.branch ?? '',
    state,
    filesChanged: info?.filesChanged ?? null,
    insertions: info?.insertions ?? 0,
    deletions: info?.deletions ?? 0,
    applied: state === 'finished' ? (record?.appliedPaths?.length ?? 0) : 0,
  };
}

/** What an ended agent answered, for its Result line. */
function resultOf(node: AgentNode): string | null {
  if (isActiveStatus(node.status)) return null;
  const text = node.structuredOutput !== undefined ? JSON.stringify(node.structuredOutput, null, 2) : (node.output ?? '').trim();
  if (!text) return null;
  return text.length > MAX_RESULT ? `${text.slice(0, MAX_RESULT)}\n… (${text.length - MAX_RESULT} more characters in the transcript)` : text;
}

/** The result as text (its preview, copying) and as Markdown made safe HTML, the way the transcript renders it. */
function resultParts(node: AgentNode): { result: string | null; resultHtml: string | null } {
  const result = resultOf(node);
  if (result === null) return { result, resultHtml: null };
  const structured = node.structuredOutput !== undefined;
  const last = rendered.get(node);
  if (last && last.result === result && last.structured === structured) return { result, resultHtml: last.html };
  const html = structured ? `<pre><code>${escapeHtml(result)}</code></pre>` : markdownHtml(result);
  rendered.set(node, { result, structured, html });
  return { result, resultHtml: html };
}

/**
 * Each agent's result as last rendered: a view is built again whenever
 * anything of its run changes (200 agents of a run, ten times a second), and
 * a finished agent's result does not change.
 */
const rendered = new WeakMap<AgentNode, { result: string; structured: boolean; html: string }>();

export function agentView(node: AgentNode, record: WorktreeRecord | undefined): AgentView {
  const { tools, hidden } = toolRows(node);
  const u = node.usage;
  return {
    id: node.agentId,
    parentId: node.parentId,
    name: node.agentName,
    description: oneLine(node.description, 200),
    status: node.status,
    model: node.model,
    background: node.background,
    startedAt: node.startedAt,
    endedAt: node.endedAt,
    tokens: u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens,
    costUsd: u.costUsd,
    // A waiting agent's question shows in its own box (approvalView), not as live text;
    // an agent waiting to send a turn again says so (what failed, how long it waits).
    activity: node.status !== 'running' ? '' : node.retryWait ? oneLine(`↻ Retry ${node.retryWait.attempt}: ${node.retryWait.reason}`, MAX_ACTIVITY) : lastLine(node.text, MAX_ACTIVITY),
    error: node.error ? oneLine(node.error, MAX_ERROR) : null,
    filePath: node.filePath,
    color: node.color ?? null,
    tools,
    hiddenTools: hidden,
    children: node.children,
    worktree: worktreeView(node, record),
    approval: approvalView(node),
    ...(node.notices?.length ? { notices: node.notices.map((n) => oneLine(n, MAX_ERROR)) } : {}),
    ...resultParts(node),
    messages: messageViews(node),
    // A teammate's row goes by its team name, with the agent it runs beside it.
    ...(node.member ? { name: node.member, agentName: node.agentName } : {}),
  };
}

/** Messages a row lists: the newest few, each cut to a line. */
const MESSAGES_SHOWN = 3;

function messageViews(node: AgentNode): MessageView[] {
  return (node.messages ?? []).slice(-MESSAGES_SHOWN).map((m) => ({ id: m.messageId, kind: m.kind, from: m.from?.agentName ?? null, text: oneLine(m.text, 200), delivered: m.deliveredAt !== null }));
}

/** The pending approval of a `waiting` agent (the permission inbox). */
function approvalView(node: AgentNode): ApprovalView | null {
  const pending = node.approval;
  if (!pending || node.status !== 'waiting') return null;
  return {
    approvalId: pending.approvalId,
    toolName: pending.toolName,
    kind: pending.kind,
    summary: oneLine(pending.summary, 300),
    protectedReason: pending.protectedReason ?? null,
    detail: pending.detail ?? null,
  };
}

/** Messages between teammates the team view lists: the newest. */
const TEAM_MESSAGES_SHOWN = 30;

/** A team run's roster, task board and messages, as the Runs view shows them above its tree (null for any other run). */
export function teamView(run: RunSnapshot, worktree: WorktreeLookup = () => undefined): TeamView | null {
  const model = teamModel(run);
  if (!model) return null;
  const messages = model.messages.slice(-TEAM_MESSAGES_SHOWN);
  return {
    name: model.name,
    roster: model.roster.map((r) => {
      const node = r.agentId ? agentOf(run, r.agentId) : undefined;
      const tree = node ? worktreeView(node, node.worktree || node.worktreePath ? worktree(node.agentId) : undefined) : null;
      const u = r.usage;
      return {
        agentId: r.agentId,
        name: r.name,
        agent: r.agent,
        role: r.role,
        state: r.state,
        model: r.model,
        tokens: u ? u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens : 0,
        costUsd: u?.costUsd ?? 0,
        worktree: tree ? { branch: tree.branch, state: tree.state, filesChanged: tree.filesChanged, insertions: tree.insertions, deletions: tree.deletions } : null,
        // The lead's answer is its Result line already; a teammate's last words are news.
        said: r.said && r.role === 'member' ? oneLine(r.said, 200) : null,
      };
    }),
    tasks: model.tasks.map((t) => ({ id: t.id, subject: oneLine(t.subject, 200), status: t.status, owner: t.owner, blockedBy: t.blockedBy })),
    messages: messages.map((m) => ({ id: m.messageId, from: m.from, to: m.to, text: oneLine(m.text, 300), sentAt: m.sentAt, delivered: m.deliveredAt !== null })),
    olderMessages: model.messages.length - messages.length,
  };
}

export function runHeader(run: RunSnapshot, folder: string | null, worktree?: WorktreeLookup): RunHeader {
  const u = run.usage;
  const team = teamView(run, worktree);
  return {
    runId: run.runId,
    rootAgentId: run.rootAgentId,
    status: run.status,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    folder,
    agentCount: Object.keys(run.agents).length,
    tokens: u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens,
    costUsd: u.costUsd,
    ...(team ? { team } : {}),
  };
}

export type WorktreeLookup = (agentId: string) => WorktreeRecord | undefined;

export function agentViewOf(node: AgentNode, worktree: WorktreeLookup): AgentView {
  return agentView(node, node.worktree || node.worktreePath ? worktree(node.agentId) : undefined);
}

export function runView(run: RunSnapshot, folder: string | null, worktree: WorktreeLookup): RunView {
  const agents: Record<string, AgentView> = {};
  for (const node of Object.values(run.agents)) agents[node.agentId] = agentViewOf(node, worktree);
  return { ...runHeader(run, folder, worktree), agents };
}
