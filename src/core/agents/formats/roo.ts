import type { CanonicalToolName, FieldDoc } from './toolTable';

/**
 * Roo Code's custom modes (and Kilo Code's, in the same format): one file
 * holds many, as `{ customModes: [ … ] }` in YAML or JSON — the project's
 * `.roomodes` (Kilo: `.kilocodemodes`) and the extension's global
 * `custom_modes.yaml`.
 *
 * Sources: Roo Code's `packages/types/src/mode.ts` (the mode schema: slug
 * `^[a-zA-Z0-9-]+$`, name, roleDefinition, whenToUse, description,
 * customInstructions, groups with `fileRegex`), `src/shared/tools.ts` (the
 * tools of each group, and those every mode has), `CustomModesManager.ts`
 * (where the files are, project over global, YAML then JSON for
 * `.roomodes`), `core/prompts/sections/custom-instructions.ts` (how a
 * mode's prompt is put together, its `.roo/rules-<slug>/` files) and
 * `core/tools/validateToolUse.ts` (an edit outside `fileRegex` refused).
 * Kilo's `modes-migrator.ts` converts modes the same way (prompt
 * roleDefinition + customInstructions; description, whenToUse or name).
 */

/** Each tool group, and the runtime tools it gives. */
export const ROO_GROUPS: Readonly<Record<string, readonly CanonicalToolName[]>> = {
  read: ['Read', 'Grep', 'Glob', 'LS'],
  edit: ['Write', 'Edit', 'MultiEdit'],
  command: ['Bash'],
  // MCP access: the tools of whatever servers the agent gets.
  mcp: [],
  modes: ['Task'],
};

/** Tools every Roo mode has whatever its groups: `new_task` (the spawn tool here) and `update_todo_list`. */
export const ROO_ALWAYS: readonly CanonicalToolName[] = ['Task', 'TodoWrite'];

/** Groups Roo Code no longer has: stripped before a mode is checked. */
export const ROO_RETIRED_GROUPS: readonly string[] = ['browser'];

/** Roo Code's own modes, which a custom mode of the same slug replaces there. */
export const ROO_BUILTIN_MODES: readonly string[] = ['code', 'architect', 'ask', 'debug', 'orchestrator'];

export const ROO_FIELDS: readonly FieldDoc[] = [
  { key: 'slug', doc: 'The mode\'s identifier (letters, digits and `-`): the agent\'s name here. Required.' },
  { key: 'name', doc: 'Display name, often with an emoji. Required.' },
  { key: 'roleDefinition', doc: 'Who the mode is: the first part of its prompt. Required.' },
  { key: 'whenToUse', doc: 'When to pick the mode: what the parent model reads (the description here).' },
  { key: 'description', doc: 'A short text for the mode picker; the description when there is no `whenToUse`.' },
  { key: 'customInstructions', doc: 'Added to the prompt as "Mode-specific Instructions", as Roo Code adds them (with the `.roo/rules-<slug>/` files).' },
  { key: 'groups', doc: 'Tool groups: `read`, `edit`, `command`, `mcp`, `modes`; an edit group may be `[edit, { fileRegex, description }]`, and an edit outside the pattern is refused. Every mode can also delegate (`new_task`) and keep a task list.', values: ['read', 'edit', 'command', 'mcp', 'modes'] },
  { key: 'source', doc: '`project` or `global`; set by where the file is, as Roo Code does.', values: ['project', 'global'] },
];
