import { implicit, toolTable, tools, unsupported, type FieldDoc } from './toolTable';

/**
 * Factory's custom droids: `.factory/droids/*.md` (project) and
 * `~/.factory/droids/` (user), top-level files only.
 *
 * Sources: Factory's "Custom Droids" documentation (fields name,
 * description, model, reasoningEffort, tools; tools as a category or a list
 * of tool ids; the categories read-only, edit, execute, web, mcp) and the
 * Claude Code → Droid tool-name table of the superpowers-droid package
 * (Create = Write, Execute = Bash, FetchUrl = WebFetch, ApplyPatch = Edit).
 * `droid` is closed source: what it does with a Claude Code name is not
 * documented; names it shares with Claude Code mean the same here.
 */

export const FACTORY_TOOLS = toolTable([
  [['Read'], tools('Read')],
  [['LS'], tools('LS')],
  [['Grep'], tools('Grep')],
  [['Glob'], tools('Glob')],
  [['Create'], tools('Write')],
  [['Edit'], tools('Edit')],
  [['ApplyPatch'], tools('Edit')],
  [['MultiEdit'], tools('MultiEdit')],
  [['Execute'], tools('Bash')],
  [['WebSearch'], tools('WebSearch')],
  [['FetchUrl'], tools('WebFetch')],
  [['TodoWrite'], tools('TodoWrite')],
  [['Task'], tools('Task')],
  [['AskUser'], unsupported('an agent here cannot stop to ask the user a question')],
  [['Create-PR', 'CreatePR'], unsupported("Factory's pull-request workflow has no counterpart here")],
  [['GenerateDroid', 'ExitSpecMode'], implicit('a Factory session tool with nothing to do here')],
]);

/** The tool categories a droid's `tools` may name instead of a list. */
export const FACTORY_CATEGORIES: Readonly<Record<string, readonly string[]>> = {
  'read-only': ['Read', 'LS', 'Grep', 'Glob'],
  edit: ['Write', 'Edit', 'MultiEdit'],
  execute: ['Bash'],
  web: ['WebSearch', 'WebFetch'],
  mcp: ['mcp__*'],
};

export const FACTORY_FIELDS: readonly FieldDoc[] = [
  { key: 'name', doc: 'The droid\'s name (lower-case letters, digits, `-`, `_`); required.' },
  { key: 'description', doc: 'What it is for, shown when choosing a droid (keep it under 500 characters).' },
  { key: 'model', doc: '`inherit` (the parent\'s model) or a model id; Claude ids run as written, other vendors\' (`gpt-5-codex`, `custom:…`) run on the parent\'s model with a warning.' },
  { key: 'reasoningEffort', doc: '`low`, `medium` or `high`: the thinking level.', values: ['low', 'medium', 'high'] },
  { key: 'tools', doc: 'Absent: every tool. A category (`read-only`, `edit`, `execute`, `web`, `mcp`) or a list of tool ids (`Read`, `Create`, `Execute`, `FetchUrl`, `ApplyPatch` …); Claude Code names are understood too. TodoWrite comes with every droid.' },
];
