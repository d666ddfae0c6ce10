import { quote, type WarningSink } from '../interpretation/fieldValues';
import { emptySpec, type McpServerSpec, type McpVariableSyntax } from './spec';

/**
 * One server entry (`name: { command, args, … }`) read the way the tool that
 * wrote it reads it. The same entry shape appears in agent files and in
 * configuration files (`.mcp.json`, `.gemini/settings.json`, VS Code's
 * `mcp.json`), so both use this module.
 *
 * Sources, per dialect:
 * - claude: Claude Code's MCP documentation (`.mcp.json` entries: `type`
 *   stdio, http, sse or ws; `command`, `args`, `env`; `url`, `headers`) and
 *   its subagent documentation (the same schema inline in `mcpServers`).
 * - copilot: GitHub's custom agents configuration reference and the cloud
 *   agent's MCP JSON format (`type` local or stdio, http, sse; `tools`, the
 *   server's tools to enable, required there).
 * - gemini: gemini-cli's agent loader (`mcp_servers`: command, args, env,
 *   cwd, url, http_url, headers, type sse or http, timeout in ms,
 *   include_tools, exclude_tools) and its MCP client (a `url` without a type
 *   is Streamable HTTP, falling back to SSE; `httpUrl` is Streamable HTTP).
 * - codex: Codex's `RawMcpServerConfig` (command, args, env, env_vars, cwd;
 *   url, bearer_token_env_var, http_headers, env_http_headers;
 *   startup_timeout_sec / _ms, tool_timeout_sec, enabled, required,
 *   enabled_tools, disabled_tools; a `url` is Streamable HTTP).
 * - vscode: VS Code's `mcp.json` (`type` stdio, http or sse; command, args,
 *   env, envFile, cwd; url, headers).
 */

/** Whose rules an entry is read by; its strings use the same tool's variable syntax. */
export type ServerDialect = McpVariableSyntax;

type Raw = Record<string, unknown>;

function isRecord(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first of `keys` the entry sets. */
function pick(raw: Raw, ...keys: string[]): unknown {
  for (const key of keys) if (raw[key] !== undefined && raw[key] !== null) return raw[key];
  return undefined;
}

class EntryReader {
  constructor(
    readonly server: string,
    readonly raw: Raw,
    readonly sink: WarningSink,
  ) {}

  warn(message: string): void {
    this.sink.warn(`MCP server "${this.server}": ${message}`);
  }

  string(...keys: string[]): string | null {
    const value = pick(this.raw, ...keys);
    if (value === undefined) return null;
    if (typeof value === 'string' && value.trim()) return value.trim();
    if (typeof value === 'number') return String(value);
    this.warn(`"${keys[0]}" must be text, not ${quote(value)}; it is ignored`);
    return null;
  }

  strings(...keys: string[]): string[] | null {
    const value = pick(this.raw, ...keys);
    if (value === undefined) return null;
    if (typeof value === 'string') return [value];
    if (Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number')) return value.map(String);
    this.warn(`"${keys[0]}" must be a list of text, not ${quote(value)}; it is ignored`);
    return null;
  }

  map(...keys: string[]): Record<string, string> {
    const value = pick(this.raw, ...keys);
    if (value === undefined) return {};
    if (!isRecord(value)) {
      this.warn(`"${keys[0]}" must be a map of names to values, not ${quote(value)}; it is ignored`);
      return {};
    }
    const out: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') out[key] = String(item);
      else this.warn(`"${keys[0]}.${key}" must be text; it is ignored`);
    }
    return out;
  }

  number(...keys: string[]): number | null {
    const value = pick(this.raw, ...keys);
    if (value === undefined) return null;
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n === 'number' && Number.isFinite(n) && n > 0) return n;
    this.warn(`"${keys[0]}" must be a number above 0, not ${quote(value)}; it is ignored`);
    return null;
  }

  flag(...keys: string[]): boolean | null {
    const value = pick(this.raw, ...keys);
    if (value === undefined) return null;
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    this.warn(`"${keys[0]}" must be true or false, not ${quote(value)}; it is ignored`);
    return null;
  }
}

/** The tool list of a Copilot `tools` or Gemini `include_tools`: `*` (or none listed) means all. */
function toolFilter(list: string[] | null): string[] | null {
  return list === null || list.includes('*') ? null : list;
}

/**
 * Reads one entry; null when it cannot run here (the warnings say why): no
 * command or URL, a transport this runtime lacks (WebSocket, TCP), or an
 * entry switched off (Codex `enabled = false`).
 */
export function readServerEntry(name: string, raw: unknown, dialect: ServerDialect, sink: WarningSink): McpServerSpec | null {
  if (!isRecord(raw)) {
    sink.warn(`MCP server "${name}" must be a map of settings (command, args, url …), not ${quote(raw)}; it is ignored`);
    return null;
  }
  const r = new EntryReader(name, raw, sink);
  const spec = emptySpec(dialect);
  if (dialect === 'codex' && r.flag('enabled') === false) return null;

  const type = r.string('type', 'transport')?.toLowerCase() ?? null;
  const command = r.string('command');
  const url = dialect === 'gemini' ? r.string('httpUrl', 'http_url') : null;
  const plainUrl = r.string('url', ...(dialect === 'copilot' ? ['serverUrl'] : []));

  if (type === 'ws' || type === 'websocket' || raw.tcp !== undefined) {
    r.warn('WebSocket and TCP servers are not supported here (stdio, Streamable HTTP and SSE are); it is ignored');
    return null;
  }
  if (type !== null && !['stdio', 'local', 'http', 'streamable-http', 'streamable_http', 'sse'].includes(type)) {
    r.warn(`"type" must be stdio, http or sse, not "${type}"; it is ignored`);
    return null;
  }

  if (url) {
    spec.transport = 'http';
    spec.url = url;
  } else if (plainUrl && type !== 'stdio' && type !== 'local') {
    spec.url = plainUrl;
    if (type === 'sse') spec.transport = 'sse';
    else {
      spec.transport = 'http';
      // A URL written without a type: Gemini tries Streamable HTTP, then SSE; Claude Code and VS Code need the type, and older configurations meant SSE.
      spec.sseFallback = type === null && dialect !== 'codex';
    }
  } else if (command) {
    spec.transport = 'stdio';
    spec.command = command;
  } else {
    const needs = type === 'http' || type === 'sse' ? '"url"' : type === 'stdio' || type === 'local' ? '"command"' : '"command" (a local server) or "url" (a remote one)';
    r.warn(`it has no ${needs}; it is ignored`);
    return null;
  }
  if (spec.transport === 'stdio') {
    spec.args = r.strings('args') ?? [];
    spec.env = r.map('env');
    spec.cwd = r.string('cwd');
    if (dialect === 'codex') spec.forwardEnv = r.strings('env_vars') ?? [];
    if (dialect === 'vscode') spec.envFile = r.string('envFile');
  } else {
    spec.headers = r.map(...(dialect === 'codex' ? ['http_headers'] : ['headers']));
    if (dialect === 'codex') {
      spec.envHeaders = r.map('env_http_headers');
      spec.bearerTokenEnv = r.string('bearer_token_env_var');
      if (raw.bearer_token !== undefined) r.warn('"bearer_token" is not read (Codex refuses it too); use "bearer_token_env_var"');
    }
    if (raw.headersHelper !== undefined) r.warn('"headersHelper" (a command printing headers) is not run here; the server gets the static "headers" only');
  }

  switch (dialect) {
    case 'copilot':
      spec.include = toolFilter(r.strings('tools'));
      break;
    case 'gemini':
      spec.include = toolFilter(r.strings('include_tools', 'includeTools'));
      spec.exclude = r.strings('exclude_tools', 'excludeTools') ?? [];
      spec.callTimeoutMs = r.number('timeout');
      break;
    case 'codex': {
      spec.include = r.strings('enabled_tools');
      spec.exclude = r.strings('disabled_tools') ?? [];
      const toolSeconds = r.number('tool_timeout_sec');
      spec.callTimeoutMs = toolSeconds === null ? null : toolSeconds * 1000;
      const startupSeconds = r.number('startup_timeout_sec');
      spec.startupTimeoutMs = startupSeconds === null ? r.number('startup_timeout_ms') : startupSeconds * 1000;
      spec.required = r.flag('required') ?? false;
      break;
    }
    default:
      break;
  }
  return spec;
}

/**
 * A map of server names to entries (`mcp-servers`, `mcp_servers`,
 * `[mcp_servers.*]`, a configuration file's `mcpServers` or `servers`).
 */
export function readServerMap(raw: unknown, field: string, dialect: ServerDialect, sink: WarningSink): Array<{ name: string; spec: McpServerSpec }> {
  if (raw === undefined || raw === null) return [];
  if (!isRecord(raw)) {
    sink.warn(`"${field}" must be a map of server names to their settings; it is ignored`);
    return [];
  }
  const out: Array<{ name: string; spec: McpServerSpec }> = [];
  for (const [name, entry] of Object.entries(raw)) {
    const spec = readServerEntry(name, entry, dialect, sink);
    if (spec) out.push({ name, spec });
  }
  return out;
}
