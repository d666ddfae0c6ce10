import path from 'node:path';
import * as vscode from 'vscode';
import type { AgentDefinition, AgentSource } from '../../core/agents/definition';
import { formatDuration, formatTokens } from '../../protocol/format';
import { isActiveStatus, totalTokens } from '../../protocol/runEvents';
import { agentOf, type RunSnapshot } from '../../protocol/runSnapshot';
import { statusText } from '../../protocol/statusDisplay';
import type { FolderScope } from '../scopes';
import type { Services } from '../services';
import { code, escapeMarkdown } from '../../surfaces/chat/chatLog';

/** `/list`, `/status`, and the buttons under a finished run. */

const SOURCE_TITLES: Record<AgentSource, string> = {
  project: 'Project',
  user: 'User',
  plugin: 'Plugins',
  bundled: 'Built-in',
};

function clip(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function fileLabel(agent: AgentDefinition, folder: string): string {
  const rel = path.relative(folder, agent.filePath);
  if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  return agent.source === 'bundled' ? path.basename(agent.filePath) : agent.filePath.replace(process.env.HOME ?? '\0', '~');
}

/** `/list`: the agents of every folder (a heading per folder in a multi-root window), by source, each with its model and a link to its file. */
export function agentList(stream: vscode.ChatResponseStream, scopes: readonly FolderScope[]): void {
  const count = scopes.reduce((sum, s) => sum + s.agents.length, 0);
  if (count === 0) {
    stream.markdown('No agents found. Add one with **Subagents: New Agent…**, or put Markdown agent files in `.claude/agents/`.');
    return;
  }
  const where = scopes.length === 1 ? escapeMarkdown(scopes[0]!.folder.name) : `${scopes.length} folders`;
  stream.markdown(`**${count} agents** in ${where}. Run one with \`@agent <name> <task>\`.\n\n`);
  for (const scope of scopes) {
    if (scopes.length > 1) stream.markdown(`### ${escapeMarkdown(scope.folder.name)}\n\n`);
    folderAgents(stream, scope);
  }
}

function folderAgents(stream: vscode.ChatResponseStream, scope: FolderScope): void {
  const agents = scope.agents;
  const disabled = new Set(scope.settings.disabledAgents);
  for (const source of Object.keys(SOURCE_TITLES) as AgentSource[]) {
    const group = agents.filter((a) => a.source === source);
    if (group.length === 0) continue;
    stream.markdown(`#### ${SOURCE_TITLES[source]}\n\n`);
    for (const agent of group) {
      const model = agent.model ? ` ${code(agent.model)}` : '';
      const off = disabled.has(agent.name) ? ' _(disabled)_' : '';
      stream.markdown(`- **${escapeMarkdown(agent.name)}**${model}${off} — ${escapeMarkdown(clip(agent.description, 160)) || '_no description_'} · `);
      stream.anchor(vscode.Uri.file(agent.filePath), fileLabel(agent, scope.folder.uri.fsPath));
      stream.markdown('\n');
    }
    stream.markdown('\n');
  }
  const teams = scope.teams?.teams ?? [];
  if (teams.length) {
    stream.markdown('#### Teams\n\n');
    for (const team of teams) {
      const members = team.members.map((m) => `${m.name} (${m.agent})`).join(', ') || 'no members declared';
      stream.markdown(`- **${escapeMarkdown(team.name)}** — lead ${code(team.lead)}; ${escapeMarkdown(members)}${team.description ? ` — ${escapeMarkdown(clip(team.description, 160))}` : ''} · `);
      stream.anchor(vscode.Uri.file(team.filePath), path.basename(team.filePath));
      stream.markdown('\n');
    }
    stream.markdown('\n');
  }
  const shadowed = scope.catalog?.shadowed.length ?? 0;
  const warnings = scope.catalog?.warnings.length ?? 0;
  if (shadowed || warnings) {
    stream.markdown(`_${[shadowed ? `${shadowed} shadowed by a higher-precedence file of the same name` : '', warnings ? `${warnings} file problem${warnings === 1 ? '' : 's'}` : ''].filter(Boolean).join('; ')}: see the Subagents view._\n\n`);
  }
}


function ago(ms: number): string {
  return ms < 60_000 ? 'just now' : `${formatDuration(ms).replace(/\d+s$/, '')} ago`;
}

/** `/status`: running and waiting runs first, then the most recent ones, each with a button that opens it. */
export function runStatus(stream: vscode.ChatResponseStream, services: Services): void {
  const runs = services.store.list();
  if (runs.length === 0) {
    stream.markdown('No runs yet. Start one with `@agent <name> <task>`.');
    return;
  }
  const active = runs.filter((r) => isActiveStatus(r.status));
  const recent = runs.filter((r) => !isActiveStatus(r.status)).slice(0, Math.max(3, 8 - active.length));
  const now = Date.now();
  const line = (run: RunSnapshot) => {
    const root = agentOf(run, run.rootAgentId);
    const agents = Object.keys(run.agents).length;
    const waiting = Object.values(run.agents).filter((a) => a.approval).length;
    const when = isActiveStatus(run.status) ? `for ${formatDuration(now - run.startedAt)}` : ago(now - (run.endedAt ?? run.startedAt));
    return `- ${statusText(run.status)} **${escapeMarkdown(root?.agentName ?? run.runId)}** — ${escapeMarkdown(clip(root?.description ?? '', 80))} · ${agents} agent${agents === 1 ? '' : 's'} · ${formatTokens(totalTokens(run.usage))} tok · ${when}${waiting ? ` · **${waiting} waiting for approval**` : ''}`;
  };
  if (active.length) stream.markdown(`#### Running\n\n${active.map(line).join('\n')}\n\n`);
  if (recent.length) stream.markdown(`#### Recent\n\n${recent.map(line).join('\n')}\n\n`);
  commandLinks(
    stream,
    [...active, ...recent].slice(0, 6).map((run) => ({ title: `Show ${agentOf(run, run.rootAgentId)?.agentName ?? 'run'}`, command: 'subagents.showRun', args: [{ runId: run.runId }] })),
  );
}

interface CommandLink {
  title: string;
  command: string;
  args: unknown[];
}

/**
 * Our commands as a row of links, in a trusted Markdown part of its own
 * (never one that holds model text: trust covers a whole part, and only
 * the commands listed here). Links rather than chat buttons: VS Code
 * disables the buttons of a response restored after a reload, and these
 * keep working there.
 */
export function commandLinks(stream: vscode.ChatResponseStream, links: readonly CommandLink[]): void {
  if (links.length === 0) return;
  const text = links.map((l) => `[${escapeMarkdown(l.title)}](command:${l.command}?${encodeURIComponent(JSON.stringify(l.args))})`).join(' &nbsp;·&nbsp; ');
  const md = new vscode.MarkdownString(`${text}\n\n`);
  md.isTrusted = { enabledCommands: [...new Set(links.map((l) => l.command))] };
  stream.markdown(md);
}

/** Under a finished run: show it in the sidebar, review / apply / discard worktree changes, open the transcript. */
export function runButtons(stream: vscode.ChatResponseStream, run: RunSnapshot): void {
  const links: CommandLink[] = [{ title: 'Show in Sidebar', command: 'subagents.showRun', args: [{ runId: run.runId }] }];
  const changed = Object.values(run.agents).filter((node) => node.worktree?.filesChanged);
  // A team's work, all of it in turn (asking before one teammate's change merges over another's), then per teammate.
  if (changed.filter((node) => node.member).length > 1) links.push({ title: 'Apply All Teammates', command: 'subagents.applyTeam', args: [run.runId] });
  for (const node of changed) {
    const who = Object.keys(run.agents).length > 1 ? ` (${node.member ?? node.agentName})` : '';
    links.push(
      { title: `Review Changes${who}`, command: 'subagents.reviewWorktree', args: [node.agentId] },
      { title: `Apply${who}`, command: 'subagents.applyWorktree', args: [node.agentId] },
      // It asks first, in a modal that says it cannot be undone.
      { title: `Discard…${who}`, command: 'subagents.discardWorktree', args: [node.agentId] },
    );
  }
  links.push({ title: 'Open Transcript', command: 'subagents.showTranscript', args: [run.rootAgentId] });
  commandLinks(stream, links);
}
