import { implicit, toolTable, tools, unsupported, type CanonicalToolName, type FieldDoc } from './toolTable';

/**
 * opencode's agents and Kilo Code's, which is an opencode fork reading the
 * same files under its own folder names: Markdown in `{agent,agents}/**`
 * (and the older `{mode,modes}/*.md`, always primary agents) of every
 * config folder, and the `agent` key of `opencode.json(c)` / `kilo.json(c)`.
 *
 * Sources: opencode's `config/agent.ts` (the globs, the name from the path
 * below `agent/`, a frontmatter `name` winning), `config/paths.ts` and the
 * config loader (the folders and files, each merged field by field over the
 * earlier ones), `config/markdown.ts` (the `key: value` fallback for
 * frontmatter that is not YAML), the agent schema (the fields below; unknown
 * keys become provider options), `config/permission.ts` and
 * `permission/index.ts` (actions, key order, the last matching rule wins;
 * the `tools` map folded into permissions, write/edit/patch as one `edit`),
 * `util/wildcard.ts` (`*` any text, `?` one character, a trailing ` *`
 * optional) and the agents documentation. Kilo's copy of the same files
 * adds `multiedit` to the `edit` fold and turns a bad file into a warning.
 */

/** opencode's tool names (the keys of a `tools` map, and of `permission` where they are the same). */
export const OPENCODE_TOOLS = toolTable([
  [['read'], tools('Read')],
  [['write'], tools('Write')],
  [['edit'], tools('Edit')],
  [['patch', 'apply_patch'], tools('Edit', 'Write')],
  [['multiedit'], tools('MultiEdit')],
  [['bash'], tools('Bash')],
  [['grep'], tools('Grep')],
  [['glob'], tools('Glob')],
  [['list'], tools('LS')],
  [['webfetch'], tools('WebFetch')],
  [['websearch'], tools('WebSearch')],
  [['todowrite'], tools('TodoWrite')],
  [['todoread'], implicit('the task list is read with TodoWrite here')],
  [['task'], tools('Task')],
  [['codesearch'], unsupported("opencode's code search (Exa) has no counterpart here")],
  [['skill'], unsupported("opencode's skills are not available here")],
  [['lsp'], unsupported("opencode's language-server tool is not available here")],
  [['question'], unsupported('an agent here cannot stop to ask the user a question')],
  [['external_directory'], implicit("this runtime's tools never leave the agent's working folder")],
  [['doom_loop'], implicit('a repeated identical call is not detected here')],
]);

/**
 * The permissions opencode asks by, and the runtime tools each covers:
 * `edit` covers every file change. A key not listed here is an MCP tool (or
 * a wildcard over MCP tools).
 */
export const OPENCODE_PERMISSIONS: Readonly<Record<string, readonly CanonicalToolName[]>> = {
  read: ['Read'],
  edit: ['Edit', 'Write', 'MultiEdit'],
  glob: ['Glob'],
  grep: ['Grep'],
  list: ['LS'],
  bash: ['Bash'],
  task: ['Task'],
  webfetch: ['WebFetch'],
  websearch: ['WebSearch'],
  todowrite: ['TodoWrite'],
  todoread: [],
  codesearch: [],
  lsp: [],
  skill: [],
  question: [],
  external_directory: [],
  doom_loop: [],
};

/** How the `tools` map's keys fold into permissions (`write`, `edit`, `patch` … are all `edit`). */
export function toolKeyPermission(key: string, kilo: boolean): string {
  if (key === 'write' || key === 'edit' || key === 'patch' || key === 'apply_patch') return 'edit';
  if (key === 'multiedit' && kilo) return 'edit';
  return key;
}

/** opencode's built-in agents, which a file of the same name changes field by field. */
export const OPENCODE_BUILTIN_AGENTS: readonly string[] = ['build', 'plan', 'general', 'explore', 'compaction', 'title', 'summary'];

export const OPENCODE_FIELDS: readonly FieldDoc[] = [
  { key: 'description', doc: 'When to use the agent; shown in the spawn tool\'s list of agents. Without one it is named but not described.' },
  { key: 'mode', doc: '`all` (default), `primary` (a main agent you start: not offered to the spawn tool) or `subagent` (started by other agents, or by you by name).', values: ['all', 'primary', 'subagent'] },
  { key: 'model', doc: '`provider/model-id`. A Claude model runs (on the Anthropic API here, whatever the provider); other models run on the parent\'s model with a warning.' },
  { key: 'prompt', doc: 'The system prompt (a Markdown file\'s body wins over it). `{file:path}` (relative to the file) and `{env:VAR}` are filled in when the agent starts.' },
  { key: 'tools', doc: 'Deprecated map of tool → true/false, folded into `permission` in key order (`true` allow, `false` deny; write, edit and patch are one `edit`).' },
  { key: 'permission', doc: '`allow`, `ask` or `deny`, for every tool or per permission (`read`, `edit`, `bash`, `webfetch`, `task` …), or per pattern (`bash: { "git *": allow, "*": ask }`). The last matching rule wins; `deny` on a whole permission takes its tools away; `allow` runs without asking once you consent to the file.' },
  { key: 'steps', doc: 'The most agentic iterations (model turns) it may take (the older `maxSteps` too).' },
  { key: 'disable', doc: '`true`: the agent is not loaded.', values: ['true', 'false'] },
  { key: 'hidden', doc: '`true`: not offered for you to pick; other agents can still start it.', values: ['true', 'false'] },
  { key: 'temperature', doc: 'Sampling temperature; kept, not used here.' },
  { key: 'top_p', doc: 'Sampling nucleus; kept, not used here.' },
  { key: 'variant', doc: 'The model variant; kept, not used here.' },
  { key: 'color', doc: 'Its colour in the views.' },
  { key: 'options', doc: 'Provider options; kept, not used here.' },
  { key: 'name', doc: 'Replaces the name the file\'s path gives.' },
];
