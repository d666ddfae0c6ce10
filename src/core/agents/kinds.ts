/**
 * The closed sets of an agent definition, as plain constants (no zod) so the
 * protocol and the webview bundle can use them without pulling in the
 * schema library.
 */
export const AGENT_SOURCES = ['project', 'user', 'plugin', 'bundled'] as const;
export type AgentSource = (typeof AGENT_SOURCES)[number];

/**
 * Source families in precedence order. Cursor's comes before Claude Code's
 * and Codex's because Cursor reads those folders too and lets its own win
 * for a name both define; the families added later follow the first five,
 * so adding them changed no winner among those.
 */
export const AGENT_FAMILIES = ['.omp', '.cursor', '.claude', '.codex', '.gemini', '.github', '.opencode', '.kilo', '.roo', '.qwen', '.kiro', '.factory'] as const;
export type AgentFamily = (typeof AGENT_FAMILIES)[number];

/** Each family's home tool, as people call it. */
export const AGENT_FAMILY_TITLES: Readonly<Record<AgentFamily, string>> = {
  '.omp': 'oh-my-pi',
  '.cursor': 'Cursor',
  '.claude': 'Claude Code',
  '.codex': 'Codex',
  '.gemini': 'Gemini CLI',
  '.github': 'GitHub Copilot',
  '.opencode': 'opencode',
  '.kilo': 'Kilo Code',
  '.roo': 'Roo Code',
  '.qwen': 'Qwen Code',
  '.kiro': 'Kiro',
  '.factory': 'Factory',
};

/**
 * The agent file formats read, each as its home tool reads it (see
 * `formats/`): which fields mean what and how tools are named differ per
 * format, even where the files look alike.
 */
export const AGENT_FORMATS = ['claude-code', 'oh-my-pi', 'codex', 'gemini', 'copilot', 'cursor', 'opencode', 'kilo', 'roo', 'qwen', 'kiro', 'factory'] as const;
export type AgentFormat = (typeof AGENT_FORMATS)[number];

export const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** Frontmatter keys with a meaning; every other key is passed through untouched. */
export const DEFINITION_FIELDS = [
  'name',
  'description',
  'tools',
  'disallowedTools',
  'spawns',
  'model',
  'thinkingLevel',
  'effort',
  'maxTurns',
  'output',
  'permissionMode',
  'isolation',
  'baseRef',
  'background',
  'blocking',
  'color',
] as const;
export type DefinitionField = (typeof DEFINITION_FIELDS)[number];
