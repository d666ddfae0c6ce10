import type { FieldDoc } from './toolTable';

/**
 * Codex custom agents: one TOML file per agent in `.codex/agents/` (project)
 * or `~/.codex/agents/` (user), subfolders included.
 *
 * Sources: Codex's `agent_roles.rs` (name, description and
 * developer_instructions required, name from the file's `name`;
 * nickname_candidates a non-empty list of unique names of ASCII letters,
 * digits, spaces, `-` and `_`; every other key is ordinary Codex
 * configuration applied to the agent's session) and the Codex subagents
 * documentation (model, model_reasoning_effort, sandbox_mode, mcp_servers,
 * web_search).
 */

export const CODEX_FIELDS: readonly FieldDoc[] = [
  { key: 'name', doc: 'The agent\'s name, used to spawn it; required.' },
  { key: 'description', doc: 'When to use the agent; required.' },
  { key: 'developer_instructions', doc: 'The system prompt; required.' },
  { key: 'model', doc: 'An OpenAI model runs on the parent\'s model here (warned) unless subagents.modelAliases maps it; Claude names run as written.' },
  { key: 'model_reasoning_effort', doc: 'none, minimal, low, medium, high, xhigh: the thinking level (none → off).' },
  { key: 'sandbox_mode', doc: '`read-only`: no Write, Edit, MultiEdit or Bash, and it runs in plan mode (read-only tools), as do the agents it starts; `workspace-write` and `danger-full-access` change nothing here.' },
  { key: 'nickname_candidates', doc: 'Display names for running instances.' },
  { key: 'mcp_servers', doc: 'MCP servers for the agent; kept on the definition.' },
  { key: 'web_search', doc: '`live` or `cached`: the agent also gets WebSearch.' },
];
