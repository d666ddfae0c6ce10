import { toolTable, tools, unsupported, type FieldDoc } from './toolTable';

/**
 * Claude Code's agent files (`.claude/agents/*.md`, plugin `agents/`), the
 * runtime's own dialect: its tool names are the canonical ones.
 *
 * Sources: Claude Code's subagent documentation (frontmatter fields:
 * name, description, tools, disallowedTools, model, permissionMode,
 * maxTurns, skills, mcpServers, hooks, memory, background, effort,
 * isolation, color, initialPrompt) and its tool list; the plugin reference
 * (plugin agents ignore hooks, mcpServers and permissionMode).
 */

/** Claude Code tools beyond the canonical names, and what they become here. */
export const CLAUDE_CODE_TOOLS = toolTable([
  [['NotebookRead'], tools('Read')],
  [['NotebookEdit'], tools('Edit')],
  [['BashOutput', 'KillShell', 'KillBash'], { coveredBy: 'Bash', reason: 'background shells are part of Bash here' }],
  [['ExitPlanMode', 'EnterPlanMode'], unsupported('plan mode is a permission mode here (permissionMode: plan), not a tool')],
  [['AskUserQuestion'], unsupported('an agent here cannot stop to ask the user a question')],
  [['Skill', 'SlashCommand'], unsupported('Claude Code skills and slash commands are not available here')],
  [['ListMcpResourcesTool', 'ReadMcpResourceTool'], unsupported('MCP resources are not offered: agents get the tools of their MCP servers, not their resources')],
  [['LSP'], unsupported("Claude Code's language-server tool is not available here")],
  [['ToolSearch', 'Monitor', 'TeamCreate', 'TeamDelete'], unsupported('a Claude Code session tool with no counterpart here')],
]);

export const CLAUDE_CODE_FIELDS: readonly FieldDoc[] = [
  { key: 'name', doc: 'The agent\'s name, case-sensitive; required.' },
  { key: 'description', doc: 'When to use the agent; shown to the parent model. Required.' },
  { key: 'tools', doc: 'Allow-list (CSV or list); absent = all tools, [] = none. `Bash(git:*)` counts as Bash, `Task(a, b)` limits spawns to a and b.' },
  { key: 'disallowedTools', doc: 'Deny-list applied after tools.' },
  { key: 'spawns', doc: 'Which agents it may start: `*`, CSV or list.' },
  { key: 'model', doc: '`inherit`, an alias (sonnet, opus, haiku) or a claude-… id; other syntaxes are resolved (see Models).' },
  { key: 'effort', doc: 'Thinking effort: low, medium, high, xhigh, max (max runs as xhigh).' },
  { key: 'thinkingLevel', doc: 'Thinking level: off, minimal, low, medium, high, xhigh.' },
  { key: 'maxTurns', doc: 'The most model turns the agent may take.' },
  { key: 'output', doc: 'JSON Schema of a structured result.' },
  { key: 'permissionMode', doc: 'default, plan, acceptEdits or bypassPermissions; ignored for plugin agents, as Claude Code does.' },
  { key: 'isolation', doc: '`worktree`: always run in a git worktree.' },
  { key: 'baseRef', doc: 'Where its worktree starts: `HEAD` (with your uncommitted changes) or a branch, tag or commit. Not a Claude Code field.' },
  { key: 'background', doc: '`true`: always run in the background.' },
  { key: 'blocking', doc: 'The parent waits for it even when started in the background.' },
  { key: 'color', doc: 'UI accent colour.' },
  { key: 'mcpServers', doc: 'MCP servers for the agent: a list of names of servers configured elsewhere (`.mcp.json`, `~/.claude.json`, a plugin) or `name: { command, args, env }` / `name: { type: http, url, headers }` of its own. Started when the agent first needs them, only in a trusted folder for project files; their tools are `mcp__<server>__<tool>` (name them in `tools`; without a `tools` list the agent also gets the Claude Code session\'s servers). See docs/mcp.md.' },
  { key: 'initialPrompt', doc: 'Sent before the user\'s prompt when the agent runs as the root agent.' },
  { key: 'skills', doc: 'Claude Code skills to preload; kept, not used here.' },
  { key: 'memory', doc: 'Claude Code persistent memory scope; kept, not used here.' },
  { key: 'hooks', doc: 'Claude Code hooks scoped to the agent; kept, not run here.' },
];
