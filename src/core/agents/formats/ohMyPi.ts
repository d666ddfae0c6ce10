import { implicit, toolTable, tools, unsupported, type FieldDoc } from './toolTable';

/**
 * oh-my-pi's task agents (`.omp/agents/*.md`, `~/.omp/agent/agents/`).
 *
 * Sources: oh-my-pi's agent field parser (`discovery/helpers.ts`
 * parseAgentFields: name, description, tools, spawns, model as a fallback
 * list, output, thinkingLevel / thinking, blocking), its built-in tool
 * names (`tools/builtin-names.ts`, with the legacy alias search → grep) and
 * its model roles (`pi/<role>`, `omp/<role>`, `@<role>`).
 */

const OWN_TOOL = (what: string) => unsupported(`oh-my-pi's ${what} tool has no counterpart here`);

export const OH_MY_PI_TOOLS = toolTable([
  [['read'], tools('Read')],
  [['write'], tools('Write')],
  [['edit'], tools('Edit')],
  [['bash'], tools('Bash')],
  [['grep', 'search'], tools('Grep')],
  [['find', 'glob'], tools('Glob')],
  [['ls'], tools('LS')],
  [['task'], tools('Task')],
  [['todo', 'todo_write'], tools('TodoWrite')],
  [['web_search'], tools('WebSearch')],
  [['fetch', 'web_fetch'], tools('WebFetch')],
  // Structural search and rewrite: the text tools are the nearest here.
  [['ast_grep'], tools('Grep')],
  [['ast_edit'], tools('Edit')],
  // Tools every omp subagent gets implicitly; the runtime does their job itself.
  [['yield', 'submit_result', 'goal', 'think'], implicit('the runtime ends and reports results itself')],
  [['ask'], unsupported('an agent here cannot stop to ask the user a question')],
  [['lsp'], OWN_TOOL('language-server')],
  [['eval', 'python', 'notebook'], OWN_TOOL('code evaluation')],
  [['debug'], OWN_TOOL('debugger')],
  [['github'], OWN_TOOL('GitHub')],
  [['browser', 'puppeteer'], OWN_TOOL('browser')],
  [['checkpoint', 'rewind', 'context_notes', 'new_context'], OWN_TOOL('context management')],
  [['memory_edit', 'retain', 'recall', 'link', 'related', 'forget', 'reflect', 'learn'], OWN_TOOL('memory')],
  [['security_scan', 'report_finding', 'hub', 'manage_skill'], OWN_TOOL('workflow')],
]);

/** omp's model roles, as this runtime can run them: a role means a kind of model, not a particular one. */
export const OH_MY_PI_MODEL_ROLES: Readonly<Record<string, 'haiku' | 'opus' | 'inherit'>> = {
  // "Fast, cheap model for simple tasks"
  smol: 'haiku',
  tiny: 'haiku',
  commit: 'haiku',
  title: 'haiku',
  // "Large reasoning model for complex analysis and planning"
  slow: 'opus',
  plan: 'opus',
  advisor: 'opus',
  // The session's own model.
  default: 'inherit',
  task: 'inherit',
  vision: 'inherit',
  designer: 'inherit',
  acceptance: 'inherit',
};

export const OH_MY_PI_FIELDS: readonly FieldDoc[] = [
  { key: 'name', doc: 'The agent\'s name; required.' },
  { key: 'description', doc: 'When to use the agent; required.' },
  { key: 'tools', doc: 'omp tool names (read, write, edit, bash, grep, find, ls, task, todo, web_search, fetch …), CSV or list.' },
  { key: 'spawns', doc: '`*`, CSV or list of agents it may start; setting it gives the spawn tool, as omp does.' },
  { key: 'model', doc: 'A model, role alias (pi/smol → haiku, pi/slow → opus, pi/task and default → inherit) or fallback list; the first entry this runtime can run is used.' },
  { key: 'thinkingLevel', doc: 'Also `thinking` and `thinking-level`: off, minimal, low, medium, high, xhigh (max → xhigh, inherit/auto → unset).' },
  { key: 'output', doc: 'JSON Type Definition (RFC 8927) or JSON Schema of the result; JTD is converted to JSON Schema.' },
  { key: 'blocking', doc: 'The parent waits for it even when started in the background.' },
];
