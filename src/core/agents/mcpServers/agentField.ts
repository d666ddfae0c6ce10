import type { AgentFormat, AgentSource } from '../kinds';
import { quote, type WarningSink } from '../interpretation/fieldValues';
import { readServerEntry, readServerMap, type ServerDialect } from './serverEntries';
import type { McpDeclaration } from './spec';

/**
 * An agent file's own MCP field, each format's spelling read as its home
 * tool reads it:
 * - Claude Code `mcpServers`: a list whose entries are a server name
 *   (a reference to a server configured elsewhere: `.mcp.json`,
 *   `~/.claude.json`, a plugin) or a one-key map `name: { … }` (a server of
 *   the agent's own). Ignored for plugin agents, as Claude Code ignores it.
 * - Copilot `mcp-servers`, Gemini `mcp_servers`, Codex `[mcp_servers.*]`: a
 *   map of server names to their settings.
 * oh-my-pi reads no MCP field from agent files; one written there (copied
 * from another tool) is read as Claude Code's.
 */

const DIALECTS: Readonly<Record<AgentFormat, ServerDialect>> = {
  'claude-code': 'claude',
  'oh-my-pi': 'claude',
  copilot: 'copilot',
  gemini: 'gemini',
  codex: 'codex',
  // Qwen Code's newer `mcpServers` is Claude Code's; Kiro's entries are `{ command, args, env }` / `{ url, headers }`.
  qwen: 'claude',
  kiro: 'claude',
  // These formats declare no servers in agent files; a field copied there is read as Claude Code's.
  cursor: 'claude',
  opencode: 'claude',
  kilo: 'claude',
  roo: 'claude',
  factory: 'claude',
};

/** The field's name as the format spells it, for warnings. */
export const MCP_FIELD_NAMES: Readonly<Record<AgentFormat, string>> = {
  'claude-code': 'mcpServers',
  'oh-my-pi': 'mcpServers',
  copilot: 'mcp-servers',
  gemini: 'mcp_servers',
  codex: 'mcp_servers',
  qwen: 'mcpServers',
  kiro: 'mcpServers',
  cursor: 'mcpServers',
  opencode: 'mcpServers',
  kilo: 'mcpServers',
  roo: 'mcpServers',
  factory: 'mcpServers',
};

function claudeList(raw: unknown[], sink: WarningSink): McpDeclaration[] {
  const out: McpDeclaration[] = [];
  for (const item of raw) {
    if (typeof item === 'string' && item.trim()) {
      out.push({ name: item.trim(), ref: true });
    } else if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      for (const entry of readServerMap(item, 'mcpServers', 'claude', sink)) out.push(entry);
    } else {
      sink.warn(`"mcpServers" has an entry that is neither a server name nor "name: { command … }" (${quote(item)}); it is ignored`);
    }
  }
  return out;
}

export function readAgentMcpServers(raw: unknown, format: AgentFormat, source: AgentSource, sink: WarningSink): McpDeclaration[] {
  if (raw === undefined || raw === null) return [];
  const field = MCP_FIELD_NAMES[format];
  if (source === 'plugin' && (format === 'claude-code' || format === 'oh-my-pi')) {
    sink.warn(`"${field}" is ignored: plugin agents cannot declare MCP servers (as in Claude Code); the plugin's own .mcp.json servers can be named in its tools`);
    return [];
  }
  const dialect = DIALECTS[format];
  if (Array.isArray(raw)) {
    if (dialect !== 'claude') sink.warn(`"${field}" is a map of server names to settings in ${format} files; the list is read as Claude Code's`);
    return claudeList(raw, sink);
  }
  if (typeof raw === 'string') {
    // `mcpServers: github, slack`: names, as a CSV.
    return raw.split(',').map((name) => name.trim()).filter(Boolean).map((name) => ({ name, ref: true as const }));
  }
  const out: McpDeclaration[] = [];
  if (typeof raw === 'object') {
    for (const [name, entry] of Object.entries(raw as Record<string, unknown>)) {
      // `name: true` or `name: {}` in a map: a reference, as Claude Code's list spells `- name`.
      if (entry === true || (typeof entry === 'object' && entry !== null && Object.keys(entry).length === 0)) {
        out.push({ name, ref: true });
        continue;
      }
      const spec = readServerEntry(name, entry, dialect, sink);
      if (spec) out.push({ name, spec });
    }
    return out;
  }
  sink.warn(`"${field}" must be a map of server names to their settings; it is ignored`);
  return out;
}
