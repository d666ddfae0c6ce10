import { implicit, toolTable, tools, unsupported, type FieldDoc } from './toolTable';

/**
 * Gemini CLI's subagents (`.gemini/agents/*.md`, `~/.gemini/agents/`).
 *
 * Sources: gemini-cli's agent loader (`packages/core/src/agents/agentLoader.ts`:
 * local and remote agent schemas, `_`-prefixed files skipped), its tool
 * registry (`tools/tool-names.ts`, `tools/definitions/coreTools.ts`: every
 * built-in name across versions, the legacy alias search_file_content →
 * grep_search) and the subagent documentation (wildcards `*`, `mcp_*`;
 * subagents cannot start other subagents).
 */

const CLI_ONLY = (what: string) => unsupported(`Gemini CLI's ${what} has no counterpart here`);

export const GEMINI_TOOLS = toolTable([
  [['read_file', 'read_many_files', 'read_files'], tools('Read')],
  [['write_file'], tools('Write')],
  [['replace', 'edit_file', 'edit'], tools('Edit')],
  [['glob'], tools('Glob')],
  [['grep_search', 'search_file_content', 'grep'], tools('Grep')],
  [['list_directory', 'ls'], tools('LS')],
  [['run_shell_command', 'shell'], tools('Bash')],
  [['web_fetch'], tools('WebFetch')],
  [['google_web_search', 'web_search'], tools('WebSearch')],
  [['write_todos'], tools('TodoWrite')],
  [
    ['tracker_create_task', 'tracker_update_task', 'tracker_get_task', 'tracker_list_tasks', 'tracker_add_dependency', 'tracker_visualize'],
    tools('TodoWrite'),
  ],
  [['complete_task'], implicit('the runtime ends and reports results itself')],
  [['save_memory'], CLI_ONLY('memory tool')],
  [['get_internal_docs'], CLI_ONLY('documentation tool')],
  [['activate_skill'], CLI_ONLY('skills')],
  [['ask_user'], unsupported('an agent here cannot stop to ask the user a question')],
  [['enter_plan_mode', 'exit_plan_mode'], unsupported('plan mode is a permission mode here (permissionMode: plan), not a tool')],
  [['update_topic'], CLI_ONLY('topic tool')],
  [['codebase_investigator', 'cli_help', 'generalist', 'generalist_agent', 'browser_agent', 'delegate_to_agent'], unsupported('Gemini CLI subagents cannot start other agents')],
]);

export const GEMINI_FIELDS: readonly FieldDoc[] = [
  { key: 'name', doc: 'The agent\'s name (a lower-case slug in Gemini CLI); required.' },
  { key: 'description', doc: 'When to use the agent; required.' },
  { key: 'kind', doc: '`local` (default) or `remote`; remote (A2A) agents cannot run here and are skipped with a warning.' },
  { key: 'tools', doc: 'Gemini tool names (read_file, grep_search, run_shell_command …); `*` = all; absent = all. Never the spawn tool: Gemini subagents cannot start agents.' },
  { key: 'model', doc: 'A Gemini model runs on the parent\'s model here (warned) unless subagents.modelAliases maps it.' },
  { key: 'max_turns', doc: 'The most model turns the agent may take.' },
  { key: 'timeout_mins', doc: 'Gemini\'s time limit; kept, not enforced here.' },
  { key: 'temperature', doc: 'Gemini sampling temperature; kept, not used.' },
  { key: 'display_name', doc: 'A friendlier name for the UI.' },
  { key: 'mcpServers', doc: 'Also `mcp_servers`: MCP servers for the agent, a map of names to `{ command, args, env, cwd }`, `{ httpUrl, headers }` or `{ url }` (SSE), with `include_tools`/`exclude_tools`, as in `.gemini/settings.json`. Their tools are `mcp_<server>_<tool>` in `tools` (`mcp_<server>_*` for all). See docs/mcp.md.' },
];
