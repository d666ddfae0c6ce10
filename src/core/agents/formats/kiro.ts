import { implicit, toolTable, tools, unsupported, type CanonicalToolName, type FieldDoc } from './toolTable';

/**
 * Kiro's custom agents: JSON files in `.kiro/agents/` (project) and
 * `~/.kiro/agents/` (user), top-level only, and the newer Markdown form
 * (YAML frontmatter, body the prompt), subfolders included, named by path.
 *
 * Sources: Kiro's configuration reference (the JSON fields below; `prompt`
 * inline or `file://` relative to the agent file; `tools` with `*`,
 * `@builtin`, `@server`, `@server/tool`; `allowedTools` used without asking;
 * `toolsSettings`; `resources` as `file://` paths and globs; `hooks`;
 * dotted model ids), its built-in tools page (the tool names and their
 * older Q Developer names), and the Amazon Q Developer CLI that Kiro CLI
 * grew from (`cli/agent/mod.rs`: the local agent wins over the global one of
 * the same name; an unknown key makes a JSON file fail to load).
 */

const KIRO_ONLY = (what: string) => unsupported(`Kiro's ${what} has no counterpart here`);

export const KIRO_TOOLS = toolTable([
  [['read', 'fs_read'], tools('Read', 'LS')],
  [['glob'], tools('Glob')],
  [['grep'], tools('Grep')],
  [['write', 'fs_write'], tools('Write', 'Edit', 'MultiEdit')],
  [['shell', 'execute_bash', 'execute_cmd'], tools('Bash')],
  [['web_search'], tools('WebSearch')],
  [['web_fetch'], tools('WebFetch')],
  [['use_subagent', 'delegate', 'subagent'], tools('Task')],
  [['todo', 'todo_list'], tools('TodoWrite')],
  [['aws', 'use_aws'], KIRO_ONLY('AWS tool (use the AWS CLI through the shell instead)')],
  [['introspect', 'report', 'report_issue', 'knowledge', 'code', 'session'], KIRO_ONLY('session tool')],
  [['thinking'], implicit('the model thinks without a tool here')],
]);

/** The newer Markdown form's tool categories. */
export const KIRO_CATEGORIES: Readonly<Record<string, readonly CanonicalToolName[]>> = {
  read: ['Read', 'Grep', 'Glob', 'LS'],
  write: ['Write', 'Edit', 'MultiEdit'],
  shell: ['Bash'],
  web: ['WebFetch', 'WebSearch'],
  subagent: ['Task'],
  context: [],
};

/** Kiro's hook events, and the one this runtime fires for each (null: none). */
export const KIRO_HOOK_EVENTS: Readonly<Record<string, 'SubagentStart' | 'SubagentStop' | null>> = {
  agentSpawn: 'SubagentStart',
  stop: 'SubagentStop',
  userPromptSubmit: null,
  preToolUse: null,
  postToolUse: null,
};

/** The JSON keys Kiro reads; any other key fails the file there. */
export const KIRO_KEYS: readonly string[] = [
  '$schema', 'name', 'description', 'prompt', 'mcpServers', 'tools', 'toolAliases', 'allowedTools', 'toolsSettings', 'resources', 'hooks',
  'includeMcpJson', 'useLegacyMcpJson', 'model', 'keyboardShortcut', 'welcomeMessage',
];

export const KIRO_FIELDS: readonly FieldDoc[] = [
  { key: 'name', doc: 'The agent\'s name; absent, the file name (the path below the agents folder for Markdown).' },
  { key: 'description', doc: 'What the agent is for.' },
  { key: 'prompt', doc: 'The system prompt, inline or `file://path` (relative to the agent file; read when the agent starts).' },
  { key: 'tools', doc: 'Tools it may see: `read`, `write`, `shell`, `glob`, `grep`, `web_search`, `web_fetch`, `use_subagent`, `todo` …, `@builtin`, `@server`, `@server/tool`, `*`.' },
  { key: 'allowedTools', doc: 'Tools used without asking (exact names, `@server`, globs); needs your consent to the file once.' },
  { key: 'toolsSettings', doc: 'Per-tool settings enforced by the permission gate: `shell.allowedCommands` / `deniedCommands` (anchored regular expressions), `write.allowedPaths` / `deniedPaths`, `read.allowedPaths` / `deniedPaths` (globs).' },
  { key: 'toolAliases', doc: 'Renames of MCP tools; kept, not used here.' },
  { key: 'mcpServers', doc: 'MCP servers for the agent: `name: { command, args, env, timeout }` or `{ url, headers }`. Their tools are `@name` / `@name/tool` in `tools`.' },
  { key: 'resources', doc: 'Files added to the agent\'s context when it starts: `file://` paths and globs.' },
  { key: 'hooks', doc: '`agentSpawn` runs when the agent starts (its output joins the context), `stop` when it ends; other events are not fired here.' },
  { key: 'model', doc: 'A Kiro model id (`claude-sonnet-4.5`, `claude-opus-4.6` …): a Claude family runs; absent, the parent\'s model.' },
  { key: 'includeMcpJson', doc: 'Also use the servers of Kiro\'s `mcp.json` files; kept, not read here.' },
  { key: 'keyboardShortcut', doc: 'UI only; kept.' },
  { key: 'welcomeMessage', doc: 'UI only; kept.' },
];
