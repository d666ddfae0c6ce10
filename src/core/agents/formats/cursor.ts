import type { FieldDoc } from './toolTable';

/**
 * Cursor's subagents: `.cursor/agents/*.md` (project) and
 * `~/.cursor/agents/` (user). Cursor also reads `.claude/agents` and
 * `.codex/agents`, and lets its own folder win for a name both define.
 *
 * Sources: Cursor's "Subagents" documentation (the fields below, every one
 * optional; the name defaults to the file name; `model` is `fast`, `inherit`
 * or a model id; no tools field: a subagent gets the agent's tools, and
 * `readonly` takes writing away) and its forum's description of `readonly`
 * as Ask mode (no writes, no MCP access). Cursor is closed source: whether
 * it searches subfolders and what it does with a file without frontmatter
 * are not documented (see docs/agent-files.md for what is decided here).
 */

export const CURSOR_FIELDS: readonly FieldDoc[] = [
  { key: 'name', doc: 'The subagent\'s name (lower case and hyphens); absent, the file name without `.md`.' },
  { key: 'description', doc: 'When to use it; the parent agent reads it to decide whom to delegate to. Optional in Cursor.' },
  { key: 'model', doc: '`inherit` (default: the parent\'s model), `fast` (runs as haiku here) or a Cursor model id; a Claude family in the id runs as that family, other models run on the parent\'s model with a warning.', values: ['inherit', 'fast'] },
  { key: 'readonly', doc: '`true`: no file writes, no shell, no MCP tools that may change things (Cursor\'s Ask mode); it runs in plan mode here, as do the agents it starts.', values: ['true', 'false'] },
  { key: 'is_background', doc: '`true`: runs in the background, the parent does not wait for it.', values: ['true', 'false'] },
];
