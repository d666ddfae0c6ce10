/**
 * Names in an agent's `tools` / `disallowedTools` that stand for tools of an
 * MCP server or of the editor, in every format's spelling:
 * - Claude Code (and oh-my-pi): `mcp__server__tool`, `mcp__server` and
 *   `mcp__server__*` (every tool of the server), `mcp__*` (every MCP tool).
 * - Gemini CLI: `mcp_server_tool`, `mcp_server_*`, `mcp_*`.
 * - GitHub Copilot: `server/tool`, `server/*`; extension tools as
 *   `publisher.extension/tool`.
 * Any format may use any spelling (files are copied between tools). Server
 * names compare as Claude Code writes them in tool names: characters other
 * than letters, digits, `_` and `-` count as `_`, case ignored.
 */

export interface ToolPattern {
  /** As the file writes it. */
  written: string;
  /** The server (or editor tool set) named, or null for any. */
  server: string | null;
  /** The tool named, or null for every tool of the server. */
  tool: string | null;
  /**
   * Gemini's `mcp_server_tool` cannot be split without knowing the servers
   * (both parts may hold `_`): the text after `mcp_`, matched against each
   * server when the tools are known.
   */
  joined: string | null;
}

/** A name as Claude Code puts it into `mcp__server__tool`. */
export function normalizeName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_').toLowerCase();
}

/** The pattern `name` stands for, or null when it names no MCP or editor tool. */
export function toolPattern(name: string): ToolPattern | null {
  const written = name.trim();
  if (written === '' || /\s/.test(written)) return null;
  const lower = written.toLowerCase();
  if (lower.startsWith('mcp__')) {
    const rest = written.slice(5);
    if (rest === '*' || rest === '') return { written, server: null, tool: null, joined: null };
    const at = rest.indexOf('__');
    if (at < 0) return { written, server: rest, tool: null, joined: null };
    const tool = rest.slice(at + 2);
    return { written, server: rest.slice(0, at), tool: tool === '*' || tool === '' ? null : tool, joined: null };
  }
  if (lower.startsWith('mcp_')) {
    const rest = written.slice(4);
    if (rest === '*') return { written, server: null, tool: null, joined: null };
    if (rest === '' || rest.startsWith('_')) return null;
    return { written, server: null, tool: null, joined: rest };
  }
  const slash = written.indexOf('/');
  if (slash > 0 && slash < written.length - 1 && written.indexOf('/', slash + 1) < 0) {
    const tool = written.slice(slash + 1);
    return { written, server: written.slice(0, slash), tool: tool === '*' ? null : tool, joined: null };
  }
  return null;
}

/** Gemini's joined text, normalised but for a final `*` (every tool). */
function joinedKey(joined: string): string {
  return joined.endsWith('_*') ? `${normalizeName(joined.slice(0, -2))}_*` : normalizeName(joined);
}

/** Whether `pattern` names the server `server` (any of its tools). */
export function namesServer(pattern: ToolPattern, server: string): boolean {
  const key = normalizeName(server);
  if (pattern.joined !== null) return joinedKey(pattern.joined).startsWith(`${key}_`);
  return pattern.server === null || normalizeName(pattern.server) === key;
}

/** Whether `pattern` selects tool `tool` of server `server`. */
export function selects(pattern: ToolPattern, server: string, tool: string): boolean {
  if (pattern.joined !== null) {
    const joined = joinedKey(pattern.joined);
    const key = normalizeName(server);
    return joined === `${key}_*` || joined === `${key}_${normalizeName(tool)}`;
  }
  if (pattern.server !== null && normalizeName(pattern.server) !== normalizeName(server)) return false;
  return pattern.tool === null || normalizeName(pattern.tool) === normalizeName(tool);
}

/** The server a pattern names, when it names exactly one without knowing the servers (not `mcp__*`, not Gemini's joined form). */
export function patternServer(pattern: ToolPattern): string | null {
  return pattern.joined === null ? pattern.server : null;
}
