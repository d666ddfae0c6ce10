import type { AgentDefinition } from '../agents/definition';
import { lookupToolName } from '../agents/interpretation/toolNames';
import { CLAUDE_SESSION_SOURCES, LOOKUP_ORDER, type ConfigSource, type NamedServer } from './configFiles';
import { MCP_FIELD_NAMES } from '../agents/mcpServers/agentField';
import { isInline, type McpServerSpec } from '../agents/mcpServers/spec';
import { namesServer, normalizeName, toolPattern, type ToolPattern } from '../agents/mcpServers/toolPatterns';

/**
 * Which MCP servers (and editor tool sets) one agent gets, and which of
 * their tools, from its file alone plus the servers configured around it:
 * - the servers its MCP field declares, and the ones it names there;
 * - the servers its `tools` list names (`mcp__github__x`, `github/*`,
 *   `mcp_github_*`) without declaring them, looked up by name, in its home
 *   tool's configuration first (configFiles.ts), and for Copilot files in
 *   the editor's tool sets first (VS Code's own MCP servers and extension
 *   tools);
 * - for a Claude Code file without a `tools` list (or one that lists
 *   `mcp__*`): also the servers a Claude Code session would connect, its
 *   `.mcp.json`, `~/.claude.json` and plugin servers, since Claude Code
 *   gives such a subagent every MCP tool of the session.
 * With a `tools` list only the tools it names are given (a server declared
 * but never named gets nothing, and is not started); `disallowedTools`
 * removes tools, or whole servers (`mcp__github`), from either.
 */

export interface PlannedServer {
  name: string;
  spec: McpServerSpec;
  /** `agent`: the agent file's own field. */
  source: 'agent' | ConfigSource;
  /** The file that declares it. */
  file: string;
  folder: string;
  /** Declared in a file the project brings: starts only in a trusted folder. */
  projectFile: boolean;
  pluginRoot?: string;
}

export interface AgentMcpPlan {
  servers: PlannedServer[];
  /** Editor tool sets to take (VS Code: an MCP server it runs, an extension's tools), by the name the file uses. */
  editorSets: string[];
  /** The patterns that pick tools; null: every tool of the servers and sets above. */
  allow: ToolPattern[] | null;
  deny: ToolPattern[];
  /** What could not be given, one message each, naming the agent's file's words. */
  problems: string[];
}

export interface PlanInput {
  definition: Pick<AgentDefinition, 'name' | 'format' | 'source' | 'filePath' | 'tools' | 'disallowedTools' | 'mcp'>;
  /** The agent's working directory: where its own servers run. */
  cwd: string;
  /** The servers configured around the agent; read only when the plan needs a name looked up. */
  configured: () => Promise<NamedServer[]>;
  /** The editor's tool sets (normalised names), or null where there is no editor (the CLI). */
  editorSets: ReadonlySet<string> | null;
  /** Give Claude Code files without a `tools` list the Claude Code session's servers (setting). */
  inheritClaudeSession: boolean;
}

function patterns(list: readonly string[] | null): ToolPattern[] | null {
  if (list === null) return null;
  return list.map(toolPattern).filter((p): p is ToolPattern => p !== null);
}

/** The dialect whose configuration a file's names are looked up in first. */
function homeOf(format: PlanInput['definition']['format']): 'claude' | 'gemini' | 'copilot' {
  return format === 'gemini' ? 'gemini' : format === 'copilot' ? 'copilot' : 'claude';
}

/** Whether the plan needs the configured servers at all (a file that declares its own servers and names nothing else does not). */
function needsConfiguration(input: Pick<PlanInput, 'definition' | 'inheritClaudeSession'>): boolean {
  const { definition } = input;
  const allow = patterns(definition.tools);
  const wildcard = allow?.some((p) => p.server === null && p.joined === null) ?? false;
  const inherit = (definition.format ?? 'claude-code') === 'claude-code' && input.inheritClaudeSession && (allow === null || wildcard);
  return (definition.mcp ?? []).some((d) => !isInline(d)) || (allow?.length ?? 0) > 0 || inherit;
}

export async function planAgentServers(input: PlanInput): Promise<AgentMcpPlan> {
  return planWithConfiguration({ ...input, configured: needsConfiguration(input) ? await input.configured() : [] });
}

/** The same plan from configured servers already read (the language server, which must answer at once). */
export function planWithConfiguration(input: Omit<PlanInput, 'configured'> & { configured: readonly NamedServer[] }): AgentMcpPlan {
  const { definition, configured } = input;
  const format = definition.format ?? 'claude-code';
  const home = homeOf(format);
  const allow = patterns(definition.tools);
  const deny = patterns(definition.disallowedTools) ?? [];
  const plan: AgentMcpPlan = { servers: [], editorSets: [], allow, deny, problems: [] };
  const declared = definition.mcp ?? [];
  const wildcard = allow?.some((p) => p.server === null && p.joined === null) ?? false;
  const inherit = format === 'claude-code' && input.inheritClaudeSession && (allow === null || wildcard);

  const taken = new Set<string>();
  const has = (name: string) => taken.has(normalizeName(name));
  const takeServer = (server: PlannedServer) => {
    taken.add(normalizeName(server.name));
    plan.servers.push(server);
  };
  const takeConfigured = (found: NamedServer) =>
    takeServer({ name: found.name, spec: found.spec, source: found.source, file: found.file, folder: found.folder, projectFile: found.projectFile, ...(found.pluginRoot ? { pluginRoot: found.pluginRoot } : {}) });
  const takeEditor = (name: string) => {
    taken.add(normalizeName(name));
    plan.editorSets.push(name);
  };
  const editorHas = (name: string) => input.editorSets?.has(normalizeName(name)) ?? false;

  /** Finds a name in the configuration (home tool first) or the editor; false when nothing has it. */
  const lookUp = (name: string): boolean => {
    if (has(name)) return true;
    if (home === 'copilot' && editorHas(name)) {
      takeEditor(name);
      return true;
    }
    for (const source of LOOKUP_ORDER[home]!) {
      const found = configured.find((s) => s.source === source && normalizeName(s.name) === normalizeName(name));
      if (found) {
        takeConfigured(found);
        return true;
      }
    }
    if (editorHas(name)) {
      takeEditor(name);
      return true;
    }
    return false;
  };

  const places = home === 'copilot' ? '.vscode/mcp.json, ~/.copilot/mcp-config.json, .mcp.json' : home === 'gemini' ? '.gemini/settings.json, .mcp.json' : '.mcp.json, ~/.claude.json, a plugin';
  const editor = input.editorSets === null ? "; outside VS Code, VS Code's own MCP servers and its extensions' tools cannot be reached" : ", nor a tool set of VS Code's";
  const field = MCP_FIELD_NAMES[format];

  for (const declaration of declared) {
    if (has(declaration.name)) continue;
    if (isInline(declaration)) {
      takeServer({ name: declaration.name, spec: declaration.spec, source: 'agent', file: definition.filePath, folder: input.cwd, projectFile: definition.source === 'project' });
    } else if (!lookUp(declaration.name)) {
      plan.problems.push(`its ${field} names "${declaration.name}", but no MCP server of that name is configured (${places})${editor}`);
    }
  }
  for (const pattern of allow ?? []) {
    if (pattern.joined !== null) {
      // Gemini's mcp_server_tool: the longest server name it starts with.
      const names = [...configured.map((s) => s.name), ...(input.editorSets ?? []), ...plan.servers.map((s) => s.name)];
      const match = names.filter((n) => namesServer(pattern, n)).sort((a, b) => b.length - a.length)[0];
      if (!match || !lookUp(match)) plan.problems.push(`"${pattern.written}" in its tools names no MCP server it declares or that is configured (${places})${editor}`);
    } else if (pattern.server !== null && !lookUp(pattern.server)) {
      // A VS Code tool the format's table knows (`read/problems`): its own warning already says the CLI has none.
      const known = lookupToolName(pattern.written, format);
      if (input.editorSets === null && known !== null && !('external' in known)) continue;
      plan.problems.push(`"${pattern.written}" in its tools names the MCP server "${pattern.server}", which is neither declared in its ${field} nor configured (${places})${editor}`);
    }
  }
  if (inherit) for (const found of configured) if (CLAUDE_SESSION_SOURCES.includes(found.source) && !has(found.name)) takeConfigured(found);
  if (wildcard && home === 'gemini') for (const found of configured) if (found.source.startsWith('gemini-') && !has(found.name)) takeConfigured(found);

  // A whole server denied (`mcp__github`, `github/*`, `mcp__*`): never started.
  const deniedWhole = (name: string) => deny.some((p) => p.tool === null && (p.joined === null ? p.server === null || normalizeName(p.server) === normalizeName(name) : namesServer(p, name) && p.joined.endsWith('_*')));
  // With a tools list, a server none of whose tools it names is not started.
  const named = (name: string) => allow === null || allow.some((p) => namesServer(p, name));
  const keep = (name: string, declaredHere: boolean) => {
    if (deniedWhole(name)) return false;
    if (named(name)) return true;
    if (declaredHere) plan.problems.push(`MCP server "${name}" is declared but no tool of it is in "tools" (add mcp__${normalizeName(name)} or ${name}/* there to use it); it is not started`);
    return false;
  };
  const declaredNames = new Set(declared.map((d) => normalizeName(d.name)));
  plan.servers = plan.servers.filter((s) => keep(s.name, declaredNames.has(normalizeName(s.name))));
  plan.editorSets = plan.editorSets.filter((name) => keep(name, declaredNames.has(normalizeName(name))));
  return plan;
}
