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

const CANONICAL_BY_LOWER: ReadonlyMap<string, readonly CanonicalToolName[]> = new Map(
  CANONICAL_TOOL_NAMES.map((name) => [name.toLowerCase(), [name]]),
);

/** Names as most files write them (`Read`): found without lower-casing. */
const CANONICAL_EXACT: ReadonlyMap<string, readonly CanonicalToolName[]> = new Map(
  CANONICAL_TOOL_NAMES.map((name) => [name, CANONICAL_BY_LOWER.get(name.toLowerCase())!]),
);

/** `Bash(git:*)`, `Task(explore, plan)`: a tool name with a permission argument. */
const PATTERN = /^([^()\s]+)\s*\((.*)\)$/s;

/**
 * Maps one name (no permission pattern) to runtime tools; null when unknown.
 * The arrays returned are shared: read them, do not change them.
 */
export function canonicalToolNames(name: string): readonly CanonicalToolName[] | null {
  const exact = CANONICAL_EXACT.get(name);
  if (exact) return exact;
  const lower = name.trim().toLowerCase();
  return CANONICAL_BY_LOWER.get(lower) ?? ALIASES.get(lower) ?? null;
}

/** Canonical names by length, for matching a name in place without slicing it out. */
const CANONICAL_BY_LENGTH: readonly (readonly CanonicalToolName[])[] = (() => {
  const table: CanonicalToolName[][] = [];
  for (const name of CANONICAL_TOOL_NAMES) (table[name.length] ??= []).push(name);
  return table;
})();

function canonicalAt(text: string, start: number, end: number): CanonicalToolName | undefined {
  for (const name of CANONICAL_BY_LENGTH[end - start] ?? []) {
    let i = 0;
    while (i < name.length && text.charCodeAt(start + i) === name.charCodeAt(i)) i++;
    if (i === name.length) return name;
  }
  return undefined;
}

/**
 * The `tools` value nearly every agent file has, a comma-separated list of
 * canonical names as Claude Code writes them (`Read, Grep, Glob`), normalised
 * without splitting it into strings first: the names, deduplicated, in order.
 * Null for anything else (another spelling, a permission pattern, `*`, an
 * empty entry, other white space), which the general path handles; for every
 * text it accepts the result equals normaliseToolList(splitCsv(text)).tools,
 * with no unknown names and no spawn restriction.
 */
export function canonicalToolCsv(text: string): CanonicalToolName[] | null {
  const tools: CanonicalToolName[] = [];
  const n = text.length;
  for (let start = 0; start <= n; ) {
    while (start < n && text.charCodeAt(start) === 0x20) start++;
    let end = start;
    while (end < n && text.charCodeAt(end) !== 0x2c /* , */) end++;
    let last = end;
    while (last > start && text.charCodeAt(last - 1) === 0x20) last--;
    const name = canonicalAt(text, start, last);
    if (!name) return null;
    if (!tools.includes(name)) tools.push(name);
    start = end + 1;
  }
  return tools;
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

function pushNew(list: string[], name: string): void {
  if (!list.includes(name)) list.push(name);
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

  for (const entry of raw) {
    const written = entry.trim();
    if (!written) continue;
    // The pattern needs a `(`; most names have none, and skip the regex.
    const pattern = written.includes('(') ? PATTERN.exec(written) : null;
    const base = pattern?.[1] ?? written;
    const mapped = canonicalToolNames(base);
    if (!mapped) {
      pushNew(tools, written);
      pushNew(unknown, written);
      continue;
    }
    for (const name of mapped) pushNew(tools, name);
    if (mapped.some(isSpawnToolName)) {
      const names = (pattern?.[2] ?? '').split(',').map((n) => n.trim()).filter(Boolean);
      if (pattern && names.length > 0) {
        restricted = true;
        for (const name of names) pushNew(targets, name);
      } else {
        unrestricted = true;
      }
    }
  }
  return { tools, unknown, spawnTargets: restricted && !unrestricted ? targets : null };
}
