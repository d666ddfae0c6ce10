import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AGENT_FAMILIES, type AgentFamily, type AgentFormat } from '../../src/core/agents/kinds';

/**
 * A workspace's worth of agent files written by this project, in every
 * format and in the shapes real repositories use: double-quoted, plain and
 * YAML-breaking descriptions (`Triggers on: 'x'`), tool lists as CSV, flow
 * and block lists, tool names of every home tool (and a few that are no
 * tool here: MCP tools, other agents' names), model aliases, `inherit`,
 * dotted ids, display names, role aliases and other vendors' models,
 * subfolders, Gemini's `_`-prefixed drafts, bodies from a couple of
 * kilobytes to over ten. Deterministic for a seed, so a test can name what
 * it looks for.
 *
 * Every file comes with what it must load as, worked out here from the
 * formats' documented tables rather than by the product's parser, so a test
 * comparing the two can fail.
 */

export interface GeneratedAgent {
  /** Relative to the workspace folder, `/`-separated. */
  path: string;
  /** The file's text; for an agent of a file holding several (a `.roomodes`), its part of that file. */
  text: string;
  /** Set for the agents of one file holding several: their parts are joined under this heading. */
  partOf?: string;
  family: AgentFamily;
  format: AgentFormat;
  expect: {
    name: string;
    description: string;
    /** The runtime tools it gets (canonical names, in the order first named); null: all of them. */
    tools: string[] | null;
    /** The model as resolved when the file is read; null when it names none. */
    model: string | null;
  };
  /** One pattern per warning discovery must give for this file; empty when it loads cleanly. */
  warnings: RegExp[];
}

export interface GeneratedWorkspace {
  /** In precedence order: family by family (.omp, .cursor, .claude, .codex, .gemini, .github, then the later ones), each folder's files by path. */
  agents: GeneratedAgent[];
  /** Files their home tool does not read (Gemini's `_` drafts): neither loaded nor warned about. */
  ignored: Array<{ path: string; text: string }>;
}

export const GENERATED_AGENT_COUNT = 210;

/** How the 210 split over the formats: Claude Code's files are by far the commonest. */
const SHARES: ReadonlyArray<[AgentFormat, number]> = [
  ['oh-my-pi', 14],
  ['claude-code', 100],
  ['codex', 14],
  ['gemini', 14],
  ['copilot', 18],
  ['cursor', 8],
  ['opencode', 8],
  ['kilo', 4],
  ['roo', 6],
  ['qwen', 8],
  ['kiro', 8],
  ['factory', 8],
];

const DOMAINS = [
  'kotlin', 'postgres', 'graphql', 'terraform', 'react', 'django', 'rust', 'kafka', 'swift', 'flutter',
  'elixir', 'laravel', 'spark', 'kubernetes', 'redis', 'vue', 'angular', 'fastapi', 'spring', 'dotnet',
  'ruby', 'scala', 'haskell', 'unity', 'webgl', 'solidity', 'pandas', 'airflow', 'dbt', 'nginx',
  'android', 'ios', 'electron', 'svelte', 'deno', 'golang', 'clojure', 'fortran', 'cobol', 'zig',
];
const ROLES = ['reviewer', 'architect', 'expert', 'developer', 'tester', 'auditor', 'optimizer', 'migrator', 'debugger', 'writer'];
const TASKS = [
  'review pull requests', 'design a schema', 'find performance regressions', 'write integration tests', 'plan a migration',
  'harden the configuration', 'trace a production incident', 'document the public API', 'cut build times', 'upgrade dependencies safely',
];
const TRIGGERS = ['slow query', 'flaky test', 'memory leak', 'breaking change', 'security review', 'release notes', 'code smell', 'race condition'];

/** A small deterministic PRNG (mulberry32): the same seed gives the same workspace. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A body of the kind agent files carry: a role paragraph, checklists, a workflow, a code block; about `bytes` long. */
function body(name: string, domain: string, role: string, bytes: number, rnd: () => number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)]!;
  const parts = [
    `You are a senior ${domain} ${role}. You ${pick(TASKS)} and ${pick(TASKS)}, and you say plainly what you found and what you did not check.`,
    '',
    '## When invoked',
    '1. Read the files the task names, then the tests that cover them.',
    `2. Look for ${pick(TRIGGERS)} and ${pick(TRIGGERS)} first.`,
    '3. Make the smallest change that solves the task, and run the checks.',
    '',
  ];
  let section = 0;
  while (parts.join('\n').length < bytes) {
    section++;
    parts.push(`## ${domain} checklist ${section}`, '');
    for (let i = 0; i < 6; i++) parts.push(`- ${pick(TASKS)} where the ${pick(TRIGGERS)} hides; note the file and line.`);
    parts.push('', '```sh', `${name} --check ${domain}/${section}`, '```', '');
  }
  parts.push('## Output', 'A short summary first, then findings by severity, each with the file and a suggested fix.');
  return parts.join('\n');
}

function claudeCode(i: number, name: string, domain: string, role: string, rnd: () => number): GeneratedAgent {
  const task = TASKS[i % TASKS.length]!;
  const warnings: RegExp[] = [];
  let description = `Use this agent when you need to ${task} in ${domain} code. Invoke it for reviews, fixes and explanations, with file references.`;
  let descriptionLine = `description: "${description}"`;
  // Most real files quote the description; some leave it plain, and some plain ones break YAML with a `: `.
  if (i % 12 === 5) descriptionLine = `description: ${description}`;
  if (i % 12 === 11) {
    description = `Use when the user asks to ${task} in ${domain}. Triggers on: '${TRIGGERS[i % TRIGGERS.length]}', '${domain} help'.`;
    descriptionLine = `description: ${description}`;
    warnings.push(/^invalid YAML frontmatter/);
  }

  const base = ['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep'];
  let toolsLine: string | null;
  let tools: string[] | null;
  switch (i % 10) {
    case 0: // read-only, CSV
      tools = ['Read', 'Grep', 'Glob'];
      toolsLine = 'tools: Read, Grep, Glob';
      break;
    case 1: // with the web tools
      tools = [...base, 'WebFetch', 'WebSearch'];
      toolsLine = `tools: ${tools.join(', ')}`;
      break;
    case 2: // a flow list
      tools = ['Read', 'Edit', 'Bash'];
      toolsLine = 'tools: [Read, Edit, Bash]';
      break;
    case 3: // a block list, with Claude Code's own extra names
      tools = ['Read', 'Edit', 'TodoWrite'];
      toolsLine = 'tools:\n  - Read\n  - NotebookEdit\n  - TodoWrite';
      break;
    case 4: // a permission pattern and a spawn restricted to named agents
      tools = ['Read', 'Grep', 'Bash', 'Task'];
      toolsLine = 'tools: Read, Grep, Bash(git:*), Task(explore)';
      break;
    case 6: // an MCP tool (matched against servers when the agent runs) and a name no tool here has: another agent's
      tools = ['Read', 'Grep', 'Glob'];
      toolsLine = `tools: Read, Grep, Glob, mcp__${domain}__lookup, context-manager`;
      warnings.push(/^tool "context-manager" is not available in this runtime/);
      break;
    case 8: // no tools line: every tool
      tools = null;
      toolsLine = null;
      break;
    default:
      tools = base;
      toolsLine = `tools: ${base.join(', ')}`;
  }

  const models: ReadonlyArray<[string | null, string | null]> = [
    ['sonnet', 'sonnet'], ['sonnet', 'sonnet'], ['sonnet', 'sonnet'], ['inherit', 'inherit'], ['haiku', 'haiku'],
    ['sonnet', 'sonnet'], [null, null], ['opus', 'opus'], ['claude-sonnet-4.5', 'claude-sonnet-4-5'], ['sonnet', 'sonnet'], ['claude-haiku-4-5', 'claude-haiku-4-5'],
  ];
  const [modelWritten, model] = models[i % models.length]!;
  const extra: string[] = [];
  if (i % 7 === 3) extra.push(`color: ${['blue', 'green', 'purple', 'orange', 'cyan'][i % 5]}`);
  if (i % 9 === 4) extra.push('maxTurns: 25');
  if (i % 13 === 6) extra.push('effort: high');
  if (i % 17 === 2) extra.push('isolation: worktree');
  if (i % 19 === 7) extra.push('background: true');
  const frontmatter = [`name: ${name}`, descriptionLine, toolsLine, modelWritten === null ? null : `model: ${modelWritten}`, ...extra].filter((l) => l !== null);
  // A few teams keep their agents in subfolders.
  const folder = i % 8 === 7 ? `generated/team-${domain}/` : 'generated/';
  return {
    path: `.claude/agents/${folder}${name}.md`,
    text: `---\n${frontmatter.join('\n')}\n---\n\n${body(name, domain, role, 1800 + Math.floor(rnd() * 11000), rnd)}\n`,
    family: '.claude',
    format: 'claude-code',
    expect: { name, description, tools, model },
    warnings,
  };
}

function ohMyPi(i: number, name: string, domain: string, role: string, rnd: () => number): GeneratedAgent {
  const description = `Scouts ${domain} code and reports compressed context for the ${role}.`;
  const variants: ReadonlyArray<{ lines: string[]; tools: string[] | null; model: string | null }> = [
    { lines: ['tools: read, grep, find, ls', 'model: pi/smol', 'thinking-level: low'], tools: ['Read', 'Grep', 'Glob', 'LS'], model: 'haiku' },
    { lines: ['tools: [read, write, edit, bash]', 'spawns: explore', 'model: pi/slow'], tools: ['Read', 'Write', 'Edit', 'Bash', 'Task'], model: 'opus' },
    { lines: ['tools: read, search, web_search, fetch', 'model: pi/task'], tools: ['Read', 'Grep', 'WebSearch', 'WebFetch'], model: 'inherit' },
    { lines: ['tools:\n  - read\n  - todo\n  - yield', 'model: [pi/smol, haiku, flash]', 'thinkingLevel: medium'], tools: ['Read', 'TodoWrite'], model: 'haiku' },
    { lines: ['model: anthropic/claude-sonnet-4-5:high', 'blocking: true'], tools: null, model: 'claude-sonnet-4-5' },
  ];
  const v = variants[i % variants.length]!;
  return {
    path: `.omp/agents/${name}.md`,
    text: `---\nname: ${name}\ndescription: ${description}\n${v.lines.join('\n')}\n---\n${body(name, domain, role, 900 + Math.floor(rnd() * 3000), rnd)}\n`,
    family: '.omp',
    format: 'oh-my-pi',
    expect: { name, description, tools: v.tools, model: v.model },
    warnings: [],
  };
}

function codex(i: number, name: string, domain: string, role: string, rnd: () => number): GeneratedAgent {
  const description = `Use when a ${domain} task needs a ${role}.`;
  const variants: ReadonlyArray<{ lines: string[]; model: string | null; warnings: RegExp[] }> = [
    { lines: ['model = "gpt-5.4"', 'model_reasoning_effort = "medium"', 'sandbox_mode = "workspace-write"'], model: 'gpt-5.4', warnings: [/"gpt-5\.4" is OpenAI's/] },
    { lines: ['model = "claude-sonnet-4-5"', 'sandbox_mode = "read-only"'], model: 'claude-sonnet-4-5', warnings: [] },
    { lines: ['model_reasoning_effort = "high"', 'nickname_candidates = ["Scout", "Ranger"]'], model: null, warnings: [] },
    { lines: ['model = "o3"', 'approval_policy = "on-request"'], model: 'o3', warnings: [/"o3" is OpenAI's/] },
  ];
  const v = variants[i % variants.length]!;
  const instructions = body(name, domain, role, 600 + Math.floor(rnd() * 2000), rnd).replace(/"""/g, '');
  return {
    path: `.codex/agents/${name}.toml`,
    text: `name = "${name}"\ndescription = "${description}"\n${v.lines.join('\n')}\ndeveloper_instructions = """\n${instructions}\n"""\n`,
    family: '.codex',
    format: 'codex',
    expect: { name, description, tools: null, model: v.model },
    warnings: v.warnings,
  };
}

function gemini(i: number, name: string, domain: string, role: string, rnd: () => number): GeneratedAgent {
  const description = `Investigates ${domain} questions as a ${role}; cites files, never guesses.`;
  const variants: ReadonlyArray<{ lines: string[]; tools: string[] | null; model: string | null; warnings: RegExp[] }> = [
    { lines: ['kind: local', 'tools:\n  - read_file\n  - grep_search\n  - run_shell_command', 'model: gemini-2.5-pro', 'max_turns: 12'], tools: ['Read', 'Grep', 'Bash'], model: 'gemini-2.5-pro', warnings: [/"gemini-2\.5-pro" is Google's/] },
    { lines: ['tools: [read_file, write_file, replace, glob]', 'model: inherit', 'temperature: 0.2'], tools: ['Read', 'Write', 'Edit', 'Glob'], model: 'inherit', warnings: [] },
    { lines: ['tools:\n  - list_directory\n  - web_fetch\n  - google_web_search', 'timeout_mins: 10'], tools: ['LS', 'WebFetch', 'WebSearch'], model: null, warnings: [] },
    { lines: ['display_name: Friendly Helper', 'tools: ["*"]'], tools: null, model: null, warnings: [] },
  ];
  const v = variants[i % variants.length]!;
  return {
    path: `.gemini/agents/${name}.md`,
    text: `---\nname: ${name}\ndescription: "${description}"\n${v.lines.join('\n')}\n---\n${body(name, domain, role, 700 + Math.floor(rnd() * 2500), rnd)}\n`,
    family: '.gemini',
    format: 'gemini',
    expect: { name, description, tools: v.tools, model: v.model },
    warnings: v.warnings,
  };
}

function copilot(i: number, name: string, domain: string, role: string, rnd: () => number): GeneratedAgent {
  const description = `Helps with ${domain} as a ${role}: plans, edits and checks.`;
  const variants: ReadonlyArray<{ lines: string[]; tools: string[] | null; model: string | null }> = [
    { lines: ["tools: ['codebase', 'editFiles', 'runCommands']", 'model: Claude Sonnet 4.5 (copilot)'], tools: ['Read', 'Grep', 'Glob', 'Edit', 'Write', 'Bash'], model: 'claude-sonnet-4-5' },
    { lines: ['tools:\n  - read\n  - search\n  - web', "model: ['Claude Opus 4.5 (copilot)', 'GPT-5.2 (copilot)']"], tools: ['Read', 'Grep', 'Glob', 'WebSearch', 'WebFetch'], model: 'claude-opus-4-5' },
    { lines: ['tools: ["read", "edit", "execute", "todo"]'], tools: ['Read', 'Edit', 'Write', 'Bash', 'TodoWrite'], model: null },
    { lines: ["tools: ['search/codebase', 'edit/editFiles', 'execute/runInTerminal']", 'model: claude-haiku-4.5'], tools: ['Read', 'Grep', 'Glob', 'Edit', 'Write', 'Bash'], model: 'claude-haiku-4-5' },
  ];
  const v = variants[i % variants.length]!;
  // Chat modes and some agents name themselves by their file; the rest say `name:`.
  const chatMode = i % 3 === 2;
  const named = !chatMode && i % 2 === 0;
  const file = chatMode ? `.github/chatmodes/${name}.chatmode.md` : i % 4 === 1 ? `.github/agents/${name}.md` : `.github/agents/${name}.agent.md`;
  const lines = [...(named ? [`name: ${name}`] : []), `description: '${description}'`, ...v.lines];
  return {
    path: file,
    text: `---\n${lines.join('\n')}\n---\n${body(name, domain, role, 500 + Math.floor(rnd() * 2500), rnd)}\n`,
    family: '.github',
    format: 'copilot',
    expect: { name, description, tools: v.tools, model: v.model },
    warnings: [],
  };
}

function cursor(i: number, name: string, domain: string, role: string, rnd: () => number): GeneratedAgent {
  const description = `${domain} ${role} for Cursor. Use proactively after ${TASKS[i % TASKS.length]}.`;
  const variants: ReadonlyArray<{ lines: string[]; model: string | null; warnings: RegExp[] }> = [
    { lines: ['model: inherit'], model: 'inherit', warnings: [] },
    { lines: ['model: fast', 'readonly: true'], model: 'haiku', warnings: [] },
    { lines: ['model: composer-2', 'is_background: true'], model: 'composer-2', warnings: [/model "composer-2" is not a Claude model/] },
    // Copied from Claude Code: Cursor ignores its tools and colour.
    { lines: ['tools: Read, Grep', 'color: green', 'model: claude-4.5-sonnet'], model: 'claude-sonnet-4-5', warnings: [/^"tools" is ignored/, /^field "color" has no counterpart/] },
  ];
  const v = variants[i % variants.length]!;
  return {
    path: `.cursor/agents/${name}.md`,
    text: `---\nname: ${name}\ndescription: ${description}\n${v.lines.join('\n')}\n---\n${body(name, domain, role, 600 + Math.floor(rnd() * 2000), rnd)}\n`,
    family: '.cursor',
    format: 'cursor',
    expect: { name, description, tools: null, model: v.model },
    warnings: v.warnings,
  };
}

/** opencode's and Kilo's agents: Markdown with a tools map or permissions, provider/model ids. */
function opencodeLike(format: 'opencode' | 'kilo') {
  return (i: number, name: string, domain: string, role: string, rnd: () => number): GeneratedAgent => {
    // One in four breaks YAML with a `: ` in its description, which opencode's own fallback reads as text.
    const broken = i % 4 === 2;
    const description = broken ? `${domain} ${role}. Triggers on: ${TASKS[i % TASKS.length]}.` : `${domain} ${role}, to ${TASKS[i % TASKS.length]}.`;
    const variants: ReadonlyArray<{ lines: string[]; model: string | null; warnings: RegExp[] }> = [
      { lines: ['mode: subagent', 'model: anthropic/claude-sonnet-4-5', 'tools:', '  write: false', '  edit: false'], model: 'claude-sonnet-4-5', warnings: [] },
      // Every other one written the other way round: a catch-all after the pattern overrides it, and a warning says so.
      i % 8 === 5
        ? { lines: ['mode: subagent', 'permission:', '  edit: ask', '  bash:', '    "git *": allow', '    "*": ask'], model: null, warnings: [/^permission\.bash "git \*": allow never applies/] }
        : { lines: ['mode: subagent', 'permission:', '  edit: ask', '  bash:', '    "*": ask', '    "git *": allow'], model: null, warnings: [] },
      { lines: ['mode: all', 'model: openrouter/qwen/qwen3-coder', 'temperature: 0.2'], model: 'openrouter/qwen/qwen3-coder', warnings: [/^invalid YAML frontmatter/, /is Alibaba's/, /^field "temperature" has no counterpart/] },
      { lines: ['mode: primary', 'steps: 12'], model: null, warnings: [] },
    ];
    const v = variants[i % variants.length]!;
    const folder = format === 'opencode' ? '.opencode/agents' : '.kilo/agents';
    return {
      path: `${folder}/${name}.md`,
      text: `---\ndescription: ${description}\n${v.lines.join('\n')}\n---\n${body(name, domain, role, 600 + Math.floor(rnd() * 2000), rnd)}\n`,
      family: format === 'opencode' ? '.opencode' : '.kilo',
      format,
      expect: { name, description, tools: null, model: v.model },
      warnings: v.warnings,
    };
  };
}

function roo(i: number, name: string, domain: string, role: string, rnd: () => number): GeneratedAgent {
  const whenToUse = `Use this mode to ${TASKS[i % TASKS.length]} in ${domain}.`;
  const variants: ReadonlyArray<{ groups: string; tools: string[] }> = [
    { groups: '      - read\n      - - edit\n        - fileRegex: \\.md$\n          description: Markdown only', tools: ['Task', 'TodoWrite', 'Read', 'Grep', 'Glob', 'LS', 'Write', 'Edit', 'MultiEdit'] },
    { groups: '      - read\n      - command', tools: ['Task', 'TodoWrite', 'Read', 'Grep', 'Glob', 'LS', 'Bash'] },
    { groups: '      - read\n      - edit\n      - mcp', tools: ['Task', 'TodoWrite', 'Read', 'Grep', 'Glob', 'LS', 'Write', 'Edit', 'MultiEdit'] },
  ];
  const v = variants[i % variants.length]!;
  const role_ = body(name, domain, role, 300 + Math.floor(rnd() * 600), rnd).split('\n')[0]!;
  return {
    path: '.roomodes',
    partOf: 'customModes:',
    text: `  - slug: ${name}\n    name: ${domain} ${role}\n    roleDefinition: >-\n      ${role_}\n    whenToUse: ${whenToUse}\n    customInstructions: Say what you checked.\n    groups:\n${v.groups}\n`,
    family: '.roo',
    format: 'roo',
    expect: { name, description: whenToUse, tools: v.tools, model: null },
    warnings: [],
  };
}

function qwen(i: number, name: string, domain: string, role: string, rnd: () => number): GeneratedAgent {
  const description = `Qwen ${domain} ${role}; ${TASKS[i % TASKS.length]}.`;
  const variants: ReadonlyArray<{ lines: string[]; tools: string[] | null; model: string | null; warnings: RegExp[] }> = [
    { lines: ['tools:', '  - read_file', '  - grep_search', '  - run_shell_command'], tools: ['Read', 'Grep', 'Bash'], model: null, warnings: [] },
    { lines: ['tools: ReadFile, WriteFile, Edit, Glob', 'model: inherit'], tools: ['Read', 'Write', 'Edit', 'Glob'], model: 'inherit', warnings: [] },
    { lines: ['model: qwen3-coder-plus', 'runConfig:', '  max_turns: 15'], tools: null, model: 'qwen3-coder-plus', warnings: [/is Alibaba's/] },
    // Copied from Claude Code: Read and Bash name no Qwen tool.
    { lines: ['tools: Read, Grep, Bash'], tools: ['Grep'], model: null, warnings: [/^tool "Read" is not available/, /^tool "Bash" is not available/] },
  ];
  const v = variants[i % variants.length]!;
  return {
    path: `.qwen/agents/${name}.md`,
    text: `---\nname: ${name}\ndescription: ${description}\n${v.lines.join('\n')}\n---\n${body(name, domain, role, 600 + Math.floor(rnd() * 2000), rnd)}\n`,
    family: '.qwen',
    format: 'qwen',
    expect: { name, description, tools: v.tools, model: v.model },
    warnings: v.warnings,
  };
}

function kiro(i: number, name: string, domain: string, role: string, rnd: () => number): GeneratedAgent {
  const description = `Kiro ${domain} ${role}.`;
  const prompt = body(name, domain, role, 300 + Math.floor(rnd() * 1500), rnd);
  if (i % 4 === 3) {
    return {
      path: `.kiro/agents/${name}.md`,
      text: `---\nname: ${name}\ndescription: ${description}\ntools: [read, shell]\nmodel: claude-sonnet-4.5\n---\n${prompt}\n`,
      family: '.kiro',
      format: 'kiro',
      expect: { name, description, tools: ['Read', 'Grep', 'Glob', 'LS', 'Bash'], model: 'claude-sonnet-4-5' },
      warnings: [],
    };
  }
  const variants: ReadonlyArray<{ fields: Record<string, unknown>; tools: string[] }> = [
    { fields: { tools: ['read', 'grep', 'glob'], allowedTools: ['read'] }, tools: ['Read', 'LS', 'Grep', 'Glob'] },
    { fields: { tools: ['read', 'write', 'shell', '@git'], toolsSettings: { shell: { allowedCommands: ['git status'] } }, model: 'claude-opus-4.6' }, tools: ['Read', 'LS', 'Write', 'Edit', 'MultiEdit', 'Bash'] },
    { fields: { tools: ['fs_read', 'execute_bash', 'use_subagent'] }, tools: ['Read', 'LS', 'Bash', 'Task'] },
  ];
  const v = variants[i % variants.length]!;
  return {
    path: `.kiro/agents/${name}.json`,
    text: `${JSON.stringify({ name, description, prompt, ...v.fields }, null, 2)}\n`,
    family: '.kiro',
    format: 'kiro',
    expect: { name, description, tools: v.tools, model: v.fields.model === 'claude-opus-4.6' ? 'claude-opus-4-6' : null },
    warnings: [],
  };
}

function factory(i: number, name: string, domain: string, role: string, rnd: () => number): GeneratedAgent {
  const description = i % 4 === 3 ? `Droid for ${domain}. Use when: ${TASKS[i % TASKS.length]}.` : `Droid for ${domain}, to ${TASKS[i % TASKS.length]}.`;
  const variants: ReadonlyArray<{ lines: string[]; tools: string[] | null; model: string | null; warnings: RegExp[] }> = [
    { lines: ['model: inherit', 'tools: read-only'], tools: ['Read', 'LS', 'Grep', 'Glob', 'TodoWrite'], model: 'inherit', warnings: [] },
    { lines: ['model: claude-sonnet-4-5-20250929', 'reasoningEffort: medium', 'tools: ["Read", "Create", "Edit", "Execute"]'], tools: ['Read', 'Write', 'Edit', 'Bash', 'TodoWrite'], model: 'claude-sonnet-4-5-20250929', warnings: [] },
    { lines: ['model: gpt-5-codex', 'tools: ["Read", "FetchUrl", "WebSearch"]'], tools: ['Read', 'WebFetch', 'WebSearch', 'TodoWrite'], model: 'gpt-5-codex', warnings: [/is OpenAI's/] },
    { lines: ['tools: Read, Grep, Bash', 'capabilities: [review]'], tools: ['Read', 'Grep', 'Bash', 'TodoWrite'], model: null, warnings: [/^invalid YAML frontmatter/, /^field "capabilities" has no counterpart/] },
  ];
  const v = variants[i % variants.length]!;
  return {
    path: `.factory/droids/${name}.md`,
    text: `---\nname: ${name}\ndescription: ${description}\n${v.lines.join('\n')}\n---\n${body(name, domain, role, 600 + Math.floor(rnd() * 2000), rnd)}\n`,
    family: '.factory',
    format: 'factory',
    expect: { name, description, tools: v.tools, model: v.model },
    warnings: v.warnings,
  };
}

const WRITERS: Record<AgentFormat, (i: number, name: string, domain: string, role: string, rnd: () => number) => GeneratedAgent> = {
  'claude-code': claudeCode,
  'oh-my-pi': ohMyPi,
  codex,
  gemini,
  copilot,
  cursor,
  opencode: opencodeLike('opencode'),
  kilo: opencodeLike('kilo'),
  roo,
  qwen,
  kiro,
  factory,
};

/** Where a file ranks in precedence: family by family, then (for `.github`) agents before chat modes, then by path. */
function precedenceKey(agent: GeneratedAgent): string {
  return `${String(AGENT_FAMILIES.indexOf(agent.family)).padStart(2, '0')}:${agent.path.startsWith('.github/chatmodes/') ? 1 : 0}:${agent.path}`;
}

/**
 * The 160 agents (and Gemini drafts) of a generated workspace. One Claude
 * Code agent is always `code-reviewer`, the name a workspace of one's own
 * most likely also has.
 */
export function generateAgents(seed = 20): GeneratedWorkspace {
  const rnd = random(seed);
  const names: Array<[string, string, string]> = [];
  const taken = new Set<string>(['code-reviewer']);
  names.push(['code-reviewer', 'git', 'reviewer']);
  while (names.length < GENERATED_AGENT_COUNT) {
    const domain = DOMAINS[Math.floor(rnd() * DOMAINS.length)]!;
    const role = ROLES[Math.floor(rnd() * ROLES.length)]!;
    const name = `${domain}-${role}`;
    if (taken.has(name)) continue;
    taken.add(name);
    names.push([name, domain, role]);
  }
  const agents: GeneratedAgent[] = [];
  let next = 0;
  // code-reviewer goes to Claude Code, whose share comes second.
  const [first, ...rest] = names;
  const ordered = [...rest.slice(0, SHARES[0]![1]), first!, ...rest.slice(SHARES[0]![1])];
  for (const [format, share] of SHARES) {
    for (let i = 0; i < share; i++, next++) {
      const [name, domain, role] = ordered[next]!;
      agents.push(WRITERS[format](i, name, domain, role, rnd));
    }
  }
  // A stable sort: the modes of one file keep the file's order.
  agents.sort((a, b) => (precedenceKey(a) < precedenceKey(b) ? -1 : precedenceKey(a) > precedenceKey(b) ? 1 : 0));
  const ignored = [
    { path: '.gemini/agents/_draft.md', text: '---\nname: draft\ndescription: Not finished; Gemini CLI skips files starting with _.\n---\nDraft.\n' },
    { path: '.gemini/agents/_wip/half-done.md', text: '---\nname: half-done\ndescription: In a folder Gemini CLI skips.\n---\nDraft.\n' },
  ];
  return { agents, ignored };
}

/** Writes the generated files into `root` (a workspace folder). */
export function writeGeneratedAgents(root: string, workspace: GeneratedWorkspace = generateAgents()): GeneratedWorkspace {
  for (const [relPath, text] of generatedFiles(workspace)) {
    const target = path.join(root, ...relPath.split('/'));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  return workspace;
}

/** The workspace's files, by path: the parts of a file holding several agents joined under its heading. */
export function generatedFiles(workspace: GeneratedWorkspace): Map<string, string> {
  const files = new Map<string, string>();
  for (const file of [...workspace.agents, ...workspace.ignored]) {
    const part = (file as GeneratedAgent).partOf;
    if (part === undefined) files.set(file.path, file.text);
    else files.set(file.path, `${files.get(file.path) ?? `${part}\n`}${file.text}`);
  }
  return files;
}
