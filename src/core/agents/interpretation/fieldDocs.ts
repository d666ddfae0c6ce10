import { PERMISSION_MODES } from '../../../protocol/tools';
import { DEFINITION_FIELDS, THINKING_LEVELS, type DefinitionField } from '../kinds';

/**
 * What each frontmatter field means to this runtime, in a sentence or two
 * of Markdown, and the values it takes where they are a closed set. The
 * language server shows these in completions and hovers; keeping them next
 * to the field list means a new field cannot ship without its explanation
 * (the record below is exhaustive over DEFINITION_FIELDS).
 */

export interface FieldDoc {
  field: DefinitionField;
  /** Markdown. */
  doc: string;
  /** The closed set of values, when there is one (completions offer them). */
  values?: readonly string[];
  /** Whether the agent is skipped without it. */
  required?: boolean;
}

const DOCS: Record<DefinitionField, Omit<FieldDoc, 'field'>> = {
  name: {
    doc: 'The agent\'s name, exact and case-sensitive: what `spawns`, `Task(…)` and `@agent` use. When two files define the same name, the one found first wins (project before user before plugins before the bundled agents) and the other is shadowed.',
    required: true,
  },
  description: {
    doc: 'When to use this agent. A parent agent reads it to decide whom to delegate to, so say what the agent is good at and when to call it.',
    required: true,
  },
  tools: {
    doc: 'Allow-list of tools: a comma-separated string or a YAML list. Absent means every tool; `[]` none. `Bash(git:*)` counts as `Bash`; `Task(a, b)` gives the spawn tool limited to agents `a` and `b`. Names written for other tools (oh-my-pi, Gemini CLI, Copilot) are mapped; unknown names are ignored with a warning.',
  },
  disallowedTools: {
    doc: 'Deny-list applied after `tools`: these tools are removed even if `tools` allows them.',
  },
  spawns: {
    doc: 'Which agents this one may start with the spawn tool: `*` for any, or a list of names. Without it, an agent given `Task`/`Agent` may spawn any agent (or those its `Task(…)` pattern names).',
  },
  model: {
    doc: '`inherit` (the parent\'s model), an alias (`sonnet`, `opus`, `haiku`, or your own in `subagents.modelAliases`) or a full `claude-…` model id. Another provider\'s model id runs as `inherit` unless `subagents.modelAliases` maps it.',
  },
  thinkingLevel: {
    doc: 'How much the model thinks before it answers.',
    values: THINKING_LEVELS,
  },
  effort: {
    doc: 'Another name for `thinkingLevel`; `thinkingLevel` wins when both are set.',
    values: THINKING_LEVELS,
  },
  maxTurns: {
    doc: 'The most model turns this agent may take, a whole number above 0. Without it, `subagents.maxTurns` applies.',
  },
  output: {
    doc: 'A JSON Schema (an object) for a structured result: the agent ends by returning data that matches it instead of text.',
  },
  permissionMode: {
    doc: 'How this agent\'s tool calls are approved. It can make `subagents.permissionMode` stricter; a looser mode needs your consent for this file. `plan`: read-only tools only; an agent you start in plan mode keeps the spawn tool, and the agents it starts run in plan mode too (read-only, no spawning).',
    values: PERMISSION_MODES,
  },
  isolation: {
    doc: '`worktree` runs the agent in its own git worktree on a new branch, starting from your working tree; its changes come back for review.',
    values: ['worktree'],
  },
  baseRef: {
    doc: 'With `isolation: worktree` (or when a spawn isolates it): where its worktree starts. `HEAD` is your current commit plus your uncommitted changes; a branch, tag or commit name starts it from exactly that commit. Without it, the spawn call\'s `base_ref` or `subagents.worktrees.baseRef` applies.',
  },
  background: {
    doc: '`true` starts the agent in the background: the spawn returns at once, and the parent collects the result with `TaskOutput`.',
    values: ['true', 'false'],
  },
  blocking: {
    doc: '`true` makes the parent wait for this agent even when it runs in the background.',
    values: ['true', 'false'],
  },
  color: {
    doc: 'The colour the agent is shown in (as in Claude Code); no effect on how it runs.',
  },
};

export const FIELD_DOCS: readonly FieldDoc[] = DEFINITION_FIELDS.map((field) => ({ field, ...DOCS[field] }));
