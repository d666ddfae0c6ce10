/**
 * An MCP server as an agent file or a configuration file declares it,
 * normalised over the formats (Claude Code's `.mcp.json` entries, Copilot's
 * `mcp-servers`, Gemini's `mcp_servers`, Codex's `[mcp_servers.*]`, VS Code's
 * `mcp.json`). Strings still hold the variables they were written with
 * (`${GITHUB_TOKEN}`): those are resolved when the server starts, against
 * the environment of that moment (see variables.ts), never at parse time,
 * so a listing or a cached definition never holds a secret it did not
 * already show.
 */

export const MCP_TRANSPORTS = ['stdio', 'http', 'sse'] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

/** Whose variable syntax a server's strings are written in (see variables.ts). */
export const MCP_VARIABLE_SYNTAXES = ['claude', 'copilot', 'gemini', 'codex', 'vscode'] as const;
export type McpVariableSyntax = (typeof MCP_VARIABLE_SYNTAXES)[number];

export interface McpServerSpec {
  transport: McpTransport;
  /** A URL written without a type (Gemini's `url`): Streamable HTTP first, then SSE if the server does not speak it. */
  sseFallback: boolean;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  /** Variables passed on from the environment by name (Codex `env_vars`). */
  forwardEnv: string[];
  /** The server's working directory; null: the agent's. */
  cwd: string | null;
  url: string | null;
  headers: Record<string, string>;
  /** Headers whose value is an environment variable's, by name (Codex `env_http_headers`). */
  envHeaders: Record<string, string>;
  /** An environment variable holding a bearer token (Codex `bearer_token_env_var`). */
  bearerTokenEnv: string | null;
  /** Loaded into the environment before `env` (VS Code `envFile`). */
  envFile: string | null;
  /** The server's tools the declaration enables (Copilot `tools`, Gemini `include_tools`, Codex `enabled_tools`); null: all. */
  include: string[] | null;
  /** Tools it disables (Gemini `exclude_tools`, Codex `disabled_tools`). */
  exclude: string[];
  /** Per-server limits (Codex `tool_timeout_sec`, Gemini `timeout`); null: the settings'. */
  callTimeoutMs: number | null;
  startupTimeoutMs: number | null;
  /** Codex `required`: the agent does not run without this server. */
  required: boolean;
  variables: McpVariableSyntax;
}

/**
 * One entry of an agent's own MCP field: a server defined in the file, or a
 * name referring to one configured elsewhere (Claude Code's `- github`).
 */
export type McpDeclaration = { name: string; spec: McpServerSpec } | { name: string; ref: true };

export function isInline(declaration: McpDeclaration): declaration is Extract<McpDeclaration, { spec: McpServerSpec }> {
  return 'spec' in declaration;
}

/** A spec with every optional part empty, to build the others from. */
export function emptySpec(variables: McpVariableSyntax): McpServerSpec {
  return {
    transport: 'stdio',
    sseFallback: false,
    command: null,
    args: [],
    env: {},
    forwardEnv: [],
    cwd: null,
    url: null,
    headers: {},
    envHeaders: {},
    bearerTokenEnv: null,
    envFile: null,
    include: null,
    exclude: [],
    callTimeoutMs: null,
    startupTimeoutMs: null,
    required: false,
    variables,
  };
}
