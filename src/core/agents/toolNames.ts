import { isSpawnToolName } from './definition';

/**
 * Tool-name normalisation (SPEC S1.1). Agent files name tools the way the
 * tool they were written for does: Claude Code (`Read`), oh-my-pi (`read`,
 * `find`), Gemini CLI (`read_file`), GitHub Copilot (`codebase`). The runtime
 * speaks Claude Code's names, so every other spelling is mapped onto those
 * here, once, at parse time.
 */

/** The runtime's canonical tool names: Claude Code's. */
export const CANONICAL_TOOL_NAMES = [
  'Read',
  'Write',
  'Edit',
  'MultiEdit',
  'Glob',
  'Grep',
  'LS',
  'Bash',
  'Task',
  'Agent',
  'WebFetch',
  'WebSearch',
  'TodoWrite',
  'TaskOutput',
  'TaskStop',
] as const;
export type CanonicalToolName = (typeof CANONICAL_TOOL_NAMES)[number];

/** The tool names this runtime understands, for completions and diagnostics. */
export function knownToolNames(): readonly CanonicalToolName[] {
  return CANONICAL_TOOL_NAMES;
}

/**
 * Other ecosystems' names, keyed in lower case because matching is
 * case-insensitive. One alias may stand for several runtime tools (Copilot's
 * `codebase` is reading and searching).
 */
const ALIASES: ReadonlyMap<string, readonly CanonicalToolName[]> = new Map<string, readonly CanonicalToolName[]>([
  // oh-my-pi (read, write, edit, bash, grep, ls, task match canonically)
  ['find', ['Glob']],
  ['web_search', ['WebSearch']],
  ['fetch', ['WebFetch']],
  ['search', ['Grep']],
  // Gemini CLI
  ['read_file', ['Read']],
  ['read_many_files', ['Read']],
  ['write_file', ['Write']],
  ['replace', ['Edit']],
  ['search_file_content', ['Grep']],
  ['list_directory', ['LS']],
  ['run_shell_command', ['Bash']],
  ['web_fetch', ['WebFetch']],
  ['google_web_search', ['WebSearch']],
  // GitHub Copilot (`search` and `fetch` are shared with oh-my-pi above)
  ['codebase', ['Read', 'Grep', 'Glob']],
  ['editfiles', ['Edit', 'Write']],
  ['runcommands', ['Bash']],
]);

const CANONICAL_BY_LOWER: ReadonlyMap<string, CanonicalToolName> = new Map(
  CANONICAL_TOOL_NAMES.map((name) => [name.toLowerCase(), name]),
);

/** `Bash(git:*)`, `Task(explore, plan)`: a tool name with a permission argument. */
const PATTERN = /^([^()\s]+)\s*\((.*)\)$/s;

/** Maps one name (no permission pattern) to runtime tools; null when unknown. */
export function canonicalToolNames(name: string): readonly CanonicalToolName[] | null {
  const lower = name.trim().toLowerCase();
  const canonical = CANONICAL_BY_LOWER.get(lower);
  if (canonical) return [canonical];
  return ALIASES.get(lower) ?? null;
}

export interface NormalisedTools {
  /** Canonical names, and unknown names as written; deduplicated, in first-seen order. */
  tools: string[];
  /** Names the runtime does not have, as written (deduplicated). */
  unknown: string[];
  /**
   * Agent names from `Task(a, b)` / `Agent(a)` patterns, or null when no
   * pattern restricted the spawn tool (or a bare `Task`/`Agent` lifted the
   * restriction again).
   */
  spawnTargets: string[] | null;
}

/**
 * Normalises a tool list as written in a file: maps aliases, strips
 * permission patterns (`Bash(git:*)` → `Bash`), dedupes. Unknown names are
 * kept so the warning and the UI can show what the author asked for; the
 * tool pool drops them later.
 */
export function normaliseToolList(raw: readonly string[]): NormalisedTools {
  const tools: string[] = [];
  const unknown: string[] = [];
  const targets: string[] = [];
  let restricted = false;
  let unrestricted = false;
  const push = (list: string[], name: string) => {
    if (!list.includes(name)) list.push(name);
  };

  for (const entry of raw) {
    const written = entry.trim();
    if (!written) continue;
    const pattern = PATTERN.exec(written);
    const base = pattern?.[1] ?? written;
    const mapped = canonicalToolNames(base);
    if (!mapped) {
      push(tools, written);
      push(unknown, written);
      continue;
    }
    for (const name of mapped) push(tools, name);
    if (mapped.some(isSpawnToolName)) {
      const names = (pattern?.[2] ?? '').split(',').map((n) => n.trim()).filter(Boolean);
      if (pattern && names.length > 0) {
        restricted = true;
        for (const name of names) push(targets, name);
      } else {
        unrestricted = true;
      }
    }
  }
  return { tools, unknown, spawnTargets: restricted && !unrestricted ? targets : null };
}
