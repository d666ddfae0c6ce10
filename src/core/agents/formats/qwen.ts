import { toolTable, tools, unsupported, type FieldDoc } from './toolTable';

/**
 * Qwen Code's subagents: `.qwen/agents/*.md` (project) and
 * `~/.qwen/agents/` (user), top-level files only.
 *
 * Sources: qwen-code's `subagents/subagent-manager.ts` (name and
 * description required, the file's name does not matter; tools resolved by
 * exact tool name, display name or legacy alias, unresolved names kept as
 * dead entries that give nothing; an empty list is every tool),
 * `subagents/validation.ts` (name 2–50 characters of letters, digits, `-`
 * and `_`, not starting or ending with `-` or `_`, not reserved; a system
 * prompt of at least 10 characters), `agent-frontmatter-schema.ts` (the
 * Claude Code fields newer versions accept) and `tools/tool-names.ts` (the
 * names below, across versions). Names match case-sensitively in Qwen Code:
 * `Read` and `Bash` are not its names (`read_file`/`ReadFile`,
 * `run_shell_command`/`Shell` are).
 */

const QWEN_ONLY = (what: string) => unsupported(`Qwen Code's ${what} has no counterpart here`);

export const QWEN_TOOLS = toolTable([
  [['read_file', 'ReadFile'], tools('Read')],
  [['read_many_files', 'ReadManyFiles'], tools('Read', 'Glob')],
  [['write_file', 'WriteFile'], tools('Write')],
  [['edit', 'Edit', 'replace'], tools('Edit')],
  [['grep_search', 'Grep', 'search_file_content', 'SearchFiles'], tools('Grep')],
  [['glob', 'Glob', 'FindFiles'], tools('Glob')],
  [['list_directory', 'ListFiles', 'ReadFolder'], tools('LS')],
  [['run_shell_command', 'Shell'], tools('Bash')],
  [['todo_write', 'TodoWrite', 'task_create', 'TaskCreate', 'task_get', 'TaskGet', 'task_list', 'TaskList', 'task_update', 'TaskUpdate'], tools('TodoWrite')],
  [['web_fetch', 'WebFetch'], tools('WebFetch')],
  [['web_search', 'WebSearch'], tools('WebSearch')],
  [['agent', 'Agent', 'task', 'Task'], tools('Task')],
  [['task_stop', 'TaskStop'], tools('TaskStop')],
  [['task_output', 'TaskOutput'], tools('TaskOutput')],
  [['save_memory', 'SaveMemory'], QWEN_ONLY('memory tool')],
  [['skill', 'Skill'], QWEN_ONLY('skills')],
  [['exit_plan_mode', 'ExitPlanMode'], unsupported('plan mode is a permission mode here (permissionMode: plan), not a tool')],
  [['lsp', 'Lsp'], QWEN_ONLY('language-server tool')],
  [['ask_user_question', 'AskUserQuestion'], unsupported('an agent here cannot stop to ask the user a question')],
]);

/** Names Qwen Code keeps for itself: a subagent cannot take them. */
export const QWEN_RESERVED_NAMES: readonly string[] = ['self', 'system', 'user', 'model', 'tool', 'config', 'default'];

/** The auth types a `model: authType:model-id` may name. */
export const QWEN_AUTH_TYPES: readonly string[] = ['openai', 'qwen-oauth', 'gemini', 'vertex-ai', 'anthropic'];

export const QWEN_FIELDS: readonly FieldDoc[] = [
  { key: 'name', doc: 'The subagent\'s name: 2–50 letters, digits, `-` or `_`, not starting or ending with `-` or `_`; required. Qwen Code looks names up ignoring case.' },
  { key: 'description', doc: 'When to use it, shown to the main model; required.' },
  { key: 'tools', doc: 'Qwen Code tool names or display names (`read_file`/`ReadFile`, `run_shell_command`/`Shell` …), a list or comma text; absent or empty: every tool. Names match exactly: `Read` or `Bash` name no Qwen tool and give nothing.' },
  { key: 'disallowedTools', doc: 'Tools taken away after `tools`, in the same names.' },
  { key: 'model', doc: '`inherit` (default), a model id, or `authType:model-id`; a Claude model runs, other vendors\' models run on the parent\'s model with a warning.' },
  { key: 'runConfig', doc: '`max_turns` (the most model turns) and `max_time_minutes` (kept, not enforced here).' },
  { key: 'maxTurns', doc: 'The most model turns; wins over `runConfig.max_turns`.' },
  { key: 'color', doc: 'Display colour (red, blue, green, yellow, purple, orange, pink, cyan).' },
  { key: 'approvalMode', doc: 'Qwen Code\'s approval mode: `plan`, `default`, `auto-edit` (acceptEdits here), `yolo` (bypassPermissions here); a wider mode needs your consent.', values: ['default', 'plan', 'auto-edit', 'yolo', 'bubble'] },
  { key: 'permissionMode', doc: 'Claude Code\'s spelling of the approval mode, read when `approvalMode` is absent.', values: ['default', 'plan', 'acceptEdits', 'auto', 'bypassPermissions', 'dontAsk'] },
  { key: 'background', doc: '`true`: always start in the background.', values: ['true', 'false'] },
  { key: 'effort', doc: 'Thinking effort: low, medium, high, xhigh, max.', values: ['low', 'medium', 'high', 'xhigh', 'max'] },
  { key: 'mcpServers', doc: 'MCP servers for the subagent, as in Claude Code.' },
  { key: 'isolation', doc: '`worktree`: always run in a git worktree.', values: ['worktree'] },
  { key: 'hooks', doc: 'Claude Code hooks scoped to the agent; kept, not run here.' },
  { key: 'skills', doc: 'Skills to preload; kept, not used here.' },
  { key: 'memory', doc: 'Persistent memory scope; kept, not used here.' },
];
