import path from 'node:path';
import { CompletionItemKind, DiagnosticSeverity, MarkupKind, type CompletionItem, type Range } from 'vscode-languageserver';
import type { AgentDefinition } from '../core/agents/definition';
import type { AgentFormat } from '../core/agents/kinds';
import type { Settings } from '../core/config';
import { MCP_FIELD_NAMES } from '../core/agents/mcpServers/agentField';
import { LOOKUP_ORDER, type NamedServer } from '../core/mcp/configFiles';
import { mcpLimits } from '../core/mcp/limits';
import { formatAgo } from '../core/mcp/listing';
import { planWithConfiguration, type AgentMcpPlan } from '../core/mcp/plan';
import { isInline, type McpServerSpec } from '../core/agents/mcpServers/spec';
import { editorIdentity, serverIdentity, type ServerTool } from '../core/mcp/status';
import { namesServer, normalizeName, toolPattern, type ToolPattern } from '../core/agents/mcpServers/toolPatterns';
import { field } from './agentDocument';
import type { AgentDocument, Span } from './documentModel';
import { toolItem } from './fieldChecks';
import { Code, listed, type Findings } from './findings';
import { knownTools, type McpFacts } from './mcpKnowledge';

/**
 * The language server's side of MCP: the names an agent file uses for MCP
 * servers and their tools (`mcp__github__create_issue`, `github/*`,
 * `mcp_github_*`, a name in `mcpServers`) checked against the servers the
 * agent would get (its own, the ones configured around it, the editor's
 * tool sets) and against the tools each server listed when a run last
 * started it; completion of those names; a hover saying which server a
 * tool belongs to. All from files and the status cache (mcpKnowledge.ts):
 * no server is ever started here.
 */

export interface McpContext {
  facts: McpFacts;
  folder: string;
  settings: Settings;
}

/** A server the file can reach, with what was last seen of its tools. */
interface Reachable {
  name: string;
  /** Where it is declared, for details: `its file`, `.mcp.json`, `VS Code`. */
  where: string;
  known: { tools: readonly ServerTool[]; checkedAt: number } | null;
  failed: { error: string; checkedAt: number } | null;
}

type Spelling = 'claude' | 'copilot' | 'gemini';

function spellingOf(format: AgentFormat): Spelling {
  return format === 'copilot' ? 'copilot' : format === 'gemini' ? 'gemini' : 'claude';
}

/** The spelling a written pattern uses, so a suggestion keeps it. */
function spellingOfPattern(pattern: ToolPattern): Spelling {
  return pattern.written.toLowerCase().startsWith('mcp__') ? 'claude' : pattern.joined !== null ? 'gemini' : 'copilot';
}

/** A server (tool null: every tool of it) in a spelling. */
export function spell(spelling: Spelling, server: string, tool: string | null): string {
  switch (spelling) {
    case 'copilot':
      return `${server}/${tool ?? '*'}`;
    case 'gemini':
      return `mcp_${server}_${tool ?? '*'}`;
    case 'claude':
      return tool === null ? `mcp__${normalizeName(server)}` : `mcp__${normalizeName(server)}__${tool}`;
  }
}

function whereOf(source: string, file: string): string {
  return source === 'agent' ? 'its file' : source === 'editor' ? 'VS Code' : path.basename(file);
}

function statusOf(facts: McpFacts, identity: string): Pick<Reachable, 'known' | 'failed'> {
  const status = facts.statuses[identity];
  return {
    known: knownTools(facts.statuses, identity),
    failed: status && !status.ok ? { error: status.error ?? 'no reason recorded', checkedAt: status.checkedAt } : null,
  };
}

function plan(own: AgentDefinition, context: McpContext): AgentMcpPlan {
  return planWithConfiguration({
    definition: own,
    cwd: context.folder,
    configured: context.facts.configured,
    editorSets: context.facts.editorSets ?? new Set(),
    inheritClaudeSession: mcpLimits(context.settings).inheritClaudeSession,
  });
}

function reachableOf(servers: ReadonlyArray<{ name: string; spec: McpServerSpec; folder: string; source: string; file: string }>, editorSets: readonly string[], facts: McpFacts): Reachable[] {
  return [
    ...servers.map((s) => ({ name: s.name, where: whereOf(s.source, s.file), ...statusOf(facts, serverIdentity(s.name, s.spec, s.folder)) })),
    ...editorSets.map((set) => ({ name: set, where: 'VS Code', ...statusOf(facts, editorIdentity(set)) })),
  ];
}

/** The server among `reachable` a pattern names (Gemini's joined form: the longest name it starts with). */
function serverFor(pattern: ToolPattern, reachable: readonly Reachable[]): Reachable | undefined {
  if (pattern.joined === null) return pattern.server === null ? undefined : reachable.find((r) => normalizeName(r.name) === normalizeName(pattern.server!));
  return reachable.filter((r) => namesServer(pattern, r.name)).sort((a, b) => b.name.length - a.name.length)[0];
}

/** The tool a pattern names of `server`, or null for every tool. */
function toolOf(pattern: ToolPattern, server: string): string | null {
  if (pattern.joined === null) return pattern.tool;
  const rest = pattern.joined.slice(normalizeName(server).length + 1);
  return rest === '*' || rest === '' ? null : rest;
}

const NOT_SEEN_EDITOR = ' VS Code\'s own tool sets are not known here yet: they are recorded once the Subagents extension has run in VS Code.';

export function checkMcp(doc: AgentDocument, format: AgentFormat, own: AgentDefinition | null, context: McpContext | null, findings: Findings): void {
  if (!own || !context) return;
  const { facts } = context;
  const agentPlan = plan(own, context);
  const reachable = reachableOf(agentPlan.servers, agentPlan.editorSets, facts);
  const problems = new Set(agentPlan.problems);
  const editorUnknown = facts.editorSets === null;
  const mcpField = field(doc, MCP_FIELD_NAMES[format]) ?? (format === 'gemini' ? field(doc, 'mcpServers') : undefined);
  const reported = new Set<string>();

  for (const key of ['tools', 'disallowedTools']) {
    const entry = field(doc, key);
    if (!entry) continue;
    for (const item of entry.items) {
      const tool = toolItem(item, doc.text);
      const pattern = toolPattern(tool.base);
      if (!pattern || (pattern.server === null && pattern.joined === null)) continue;
      const server = serverFor(pattern, reachable);
      if (!server) {
        if (key !== 'tools') continue;
        const problem = [...problems].find((p) => p.startsWith(`"${pattern.written}" in its tools`));
        if (!problem) continue;
        problems.delete(problem);
        findings.add(tool.baseSpan, editorUnknown ? DiagnosticSeverity.Information : DiagnosticSeverity.Warning, Code.unknownMcpServer,
          `${capitalised(problem.replace(/^"[^"]*" in its tools /, `"${pattern.written}" `))}.${editorUnknown ? NOT_SEEN_EDITOR : ''}`);
        continue;
      }
      const named = toolOf(pattern, server.name);
      if (named !== null && server.known) {
        const tools = server.known.tools;
        if (!tools.some((t) => normalizeName(t.name) === normalizeName(named))) {
          const spelling = spellingOfPattern(pattern);
          findings.unknownName(tool.baseSpan, DiagnosticSeverity.Warning, Code.unknownMcpTool, tool.base, tools.map((t) => spell(spelling, server.name, t.name)),
            (didYouMean) => `MCP server "${server.name}" has no tool "${named}" (its tools when a run last started it, ${formatAgo(Date.now() - server.known!.checkedAt)}: ${listed(tools.map((t) => t.name))}).${didYouMean}`,
            (x) => `Change to "${x}"`);
        }
      }
      if (server.failed && !reported.has(server.name)) {
        reported.add(server.name);
        findings.add(tool.baseSpan, DiagnosticSeverity.Information, Code.mcpServer, failedMessage(server));
      }
    }
  }
  const fallback: Span = mcpField?.keySpan ?? field(doc, 'tools')?.keySpan ?? (doc.frontmatter.kind === 'ok' ? doc.frontmatter.openSpan : [0, 0]);
  for (const problem of problems) findings.add(fallback, DiagnosticSeverity.Warning, Code.mcpServer, `${capitalised(problem.replace(/^its /, 'Its '))}.`);
  if (mcpField) {
    for (const server of reachable) {
      if (server.failed && !reported.has(server.name) && server.where === 'its file') {
        reported.add(server.name);
        findings.add(mcpField.keySpan, DiagnosticSeverity.Information, Code.mcpServer, failedMessage(server));
      }
    }
  }
}

function failedMessage(server: Reachable): string {
  return `MCP server "${server.name}" (${server.where}) could not be started when a run last tried, ${formatAgo(Date.now() - server.failed!.checkedAt)}: ${server.failed!.error}`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Every server a file of this format could name: its own, then the configured ones (its home tool's first), then the editor's tool sets. */
function candidates(format: AgentFormat, own: AgentDefinition | null, context: McpContext): Reachable[] {
  const seen = new Set<string>();
  const servers: Array<{ name: string; spec: McpServerSpec; folder: string; source: string; file: string }> = [];
  const add = (server: { name: string; spec: McpServerSpec; folder: string; source: string; file: string }) => {
    if (seen.has(normalizeName(server.name))) return;
    seen.add(normalizeName(server.name));
    servers.push(server);
  };
  for (const declaration of own?.mcp ?? []) if (isInline(declaration)) add({ name: declaration.name, spec: declaration.spec, folder: context.folder, source: 'agent', file: own!.filePath });
  const order = LOOKUP_ORDER[spellingOf(format)]!;
  const configured: NamedServer[] = [...context.facts.configured].sort((a, b) => order.indexOf(a.source) - order.indexOf(b.source));
  for (const server of configured) add(server);
  const editorSets = [...(context.facts.editorSets ?? [])].filter((set) => !seen.has(set));
  return reachableOf(servers, editorSets, context.facts);
}

/** Completion in `tools` / `disallowedTools`: each server the file could name (every tool of it), then each tool it was seen to have. */
export function mcpToolCompletions(format: AgentFormat, own: AgentDefinition | null, context: McpContext | null, range: Range): CompletionItem[] {
  if (!context) return [];
  const spelling = spellingOf(format);
  const items: CompletionItem[] = [];
  for (const server of candidates(format, own, context)) {
    const whole = spell(spelling, server.name, null);
    const seen = server.known ? `${server.known.tools.length} tools when a run last started it (${formatAgo(Date.now() - server.known.checkedAt)})` : 'its tools are known once a run has started it (or `subagents agents --check-mcp`)';
    items.push({
      label: whole,
      kind: CompletionItemKind.Module,
      detail: `every tool of MCP server ${server.name} (${server.where})`,
      documentation: { kind: MarkupKind.Markdown, value: `MCP server **${server.name}**, declared in ${server.where}: ${seen}.` },
      sortText: `~1${server.name}`,
      textEdit: { range, newText: whole },
    });
    for (const tool of server.known?.tools ?? []) {
      const name = spell(spelling, server.name, tool.name);
      items.push({
        label: name,
        kind: CompletionItemKind.Function,
        detail: `${server.name} › ${tool.name}${tool.readOnly ? ' (read-only)' : ''}`,
        documentation: { kind: MarkupKind.Markdown, value: `${tool.description || '_(no description)_'}\n\nTool of MCP server **${server.name}** (${server.where}).` },
        sortText: `~2${server.name}\u0000${tool.name}`,
        textEdit: { range, newText: name },
      });
    }
  }
  return items;
}

/** Completion of server names where the MCP field names servers configured elsewhere (Claude Code's `mcpServers: [github]`). */
export function mcpServerNameCompletions(format: AgentFormat, context: McpContext | null, range: Range): CompletionItem[] {
  if (!context) return [];
  return candidates(format, null, context)
    .filter((server) => server.where !== 'VS Code')
    .map((server, i) => ({
      label: server.name,
      kind: CompletionItemKind.Module,
      detail: `MCP server (${server.where})`,
      sortText: String(i).padStart(4, '0'),
      textEdit: { range, newText: server.name },
    }));
}

/** Hover on an MCP tool name: the server it belongs to, and the tool's description when it was seen. */
export function mcpHover(word: string, format: AgentFormat, own: AgentDefinition | null, context: McpContext | null): string | null {
  const pattern = toolPattern(word.replace(/\(.*$/s, ''));
  if (!pattern) return null;
  if (pattern.server === null && pattern.joined === null) return `\`${pattern.written}\`: every MCP tool the agent gets.`;
  if (!context) return `\`${pattern.written}\`: a tool of an MCP server.`;
  const server = serverFor(pattern, candidates(format, own, context));
  if (!server) return `\`${pattern.written}\` names an MCP server that is not declared in this file nor configured around it.`;
  const named = toolOf(pattern, server.name);
  const where = `MCP server **${server.name}** (${server.where})`;
  if (named === null) return `Every tool of ${where}${server.known ? `: ${listed(server.known.tools.map((t) => `\`${t.name}\``))}` : ''}.`;
  const tool = server.known?.tools.find((t) => normalizeName(t.name) === normalizeName(named));
  if (!tool) return `Tool \`${named}\` of ${where}${server.known ? '; the server did not list it when a run last started it' : ''}.`;
  return `Tool \`${tool.name}\` of ${where}${tool.readOnly ? ', read-only' : ''}.\n\n${tool.description}`;
}
