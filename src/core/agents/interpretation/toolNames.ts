import { builtinTool, isSpawnToolName, LISTED_TOOL_NAMES } from '../../../protocol/tools';
import { AGENT_FORMATS, type AgentFormat } from '../kinds';
import { FORMATS } from '../formats';
import type { CanonicalToolName, ToolMapping } from '../formats/toolTable';
import { COPILOT_TOOL_SETS } from '../formats/copilot';
import { toolPattern } from '../mcpServers/toolPatterns';

/**
 * Tool-name normalisation. Agent files name tools the way their
 * home tool does: Claude Code (`Read`), oh-my-pi (`read`, `find`), Gemini
 * CLI (`read_file`), GitHub Copilot (`edit`, `search/codebase`). The runtime
 * speaks Claude Code's names, so every other spelling is mapped onto those
 * here, once, at parse time, through the format's own table (`formats/`).
 */

/** The tool names this runtime understands, for completions and diagnostics. */
export function knownToolNames(): readonly CanonicalToolName[] {
  return LISTED_TOOL_NAMES;
}

const CANONICAL_BY_LOWER: ReadonlyMap<string, ToolMapping> = new Map(LISTED_TOOL_NAMES.map((name) => [name.toLowerCase(), { tools: [name] }]));

/** Names as most files write them (`Read`): found without lower-casing. */
const CANONICAL_EXACT: ReadonlyMap<string, ToolMapping> = new Map(LISTED_TOOL_NAMES.map((name) => [name, CANONICAL_BY_LOWER.get(name.toLowerCase())!]));

/** `Bash(git:*)`, `Task(explore, plan)`: a tool name with a permission argument. */
const PATTERN = /^([^()\s]+)\s*\((.*)\)$/s;

const EXTERNAL: ToolMapping = { external: true };

/**
 * What a name (no permission pattern) stands for in `format`: its own table
 * first, then the canonical names, then another format's name as that format
 * reads it (files copied between tools keep their names: Gemini's
 * `read_file` is Read anywhere, omp's `think` needs no tool anywhere, and a
 * tool its home format says is missing here keeps that reason), then the
 * names of MCP and editor tools in any format's spelling. Null for a name
 * nothing knows.
 */
export function lookupToolName(name: string, format: AgentFormat = 'claude-code'): ToolMapping | null {
  if (FORMATS[format].exactToolNames) return exactLookup(name, format);
  const exact = format === 'copilot' ? undefined : CANONICAL_EXACT.get(name);
  if (exact) return exact;
  const lower = name.trim().toLowerCase();
  const own = FORMATS[format].tools?.get(lower);
  if (own) return own;
  const canonical = CANONICAL_BY_LOWER.get(lower);
  if (canonical) return canonical;
  for (const other of AGENT_FORMATS) {
    const mapping = other === format ? undefined : FORMATS[other].tools?.get(lower);
    if (mapping) return mapping;
  }
  if (format === 'copilot' && lower.endsWith('/*') && COPILOT_TOOL_SETS.has(lower.slice(0, -2))) {
    return FORMATS.copilot.tools!.get(lower.slice(0, -2)) ?? null;
  }
  return toolPattern(name) ? EXTERNAL : null;
}

/**
 * A format whose home tool matches names only as written (Qwen Code): its
 * own spellings, then MCP tool names; any other name — `Read` where the tool
 * is `read_file` — gives nothing there, and here, with a reason that names
 * the spelling it wanted.
 */
function exactLookup(name: string, format: AgentFormat): ToolMapping | null {
  const table = FORMATS[format].tools!;
  const written = name.trim();
  if (table.spellings.includes(written)) return table.get(written.toLowerCase()) ?? null;
  if (toolPattern(written)) return EXTERNAL;
  const meant = table.get(written.toLowerCase()) ?? CANONICAL_BY_LOWER.get(written.toLowerCase());
  const tools = meant && 'tools' in meant ? meant.tools : null;
  if (!tools) return null;
  const spelled = table.spellings.filter((s) => {
    const m = table.get(s.toLowerCase());
    return m && 'tools' in m && m.tools.length === tools.length && m.tools.every((t) => tools.includes(t));
  });
  const hint = spelled.length > 0 ? `: ${spelled.slice(0, 2).map((s) => `"${s}"`).join(' or ')} is` : '';
  return { unsupported: `${FORMATS[format].title} matches tool names exactly${hint}, so it gives no tool there, nor here` };
}

/**
 * Maps one name (no permission pattern) to runtime tools; null when it maps
 * to none. The arrays returned are shared: read them, do not change them.
 */
export function canonicalToolNames(name: string, format: AgentFormat = 'claude-code'): readonly CanonicalToolName[] | null {
  const mapping = lookupToolName(name, format);
  return mapping && 'tools' in mapping ? mapping.tools : null;
}

/** Canonical names by length, for matching a name in place without slicing it out. */
const CANONICAL_BY_LENGTH: readonly (readonly CanonicalToolName[])[] = (() => {
  const table: CanonicalToolName[][] = [];
  for (const name of LISTED_TOOL_NAMES) (table[name.length] ??= []).push(name);
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
  /** Why each unknown name has no tool here, when its format says (`unknown` names without an entry are simply not known). */
  reasons: ReadonlyMap<string, string>;
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
 * Normalises a tool list as written in a file of `format`: maps its names
 * through the format's table, strips permission patterns (`Bash(git:*)` →
 * `Bash`), dedupes. Unknown names are kept so the warning and the UI can
 * show what the author asked for; the tool pool drops them later.
 */
/** The reasons of a list without unknown names: shared, as nearly every file has one. */
export const NO_REASONS: ReadonlyMap<string, string> = new Map();

export function normaliseToolList(raw: readonly string[], format: AgentFormat = 'claude-code'): NormalisedTools {
  const tools: string[] = [];
  const unknown: string[] = [];
  // Made when first needed: most lists name only known tools.
  let reasons: Map<string, string> | null = null;
  let covered: { written: string; by: string; reason: string }[] | null = null;
  const targets: string[] = [];
  let restricted = false;
  let unrestricted = false;

  for (const entry of raw) {
    const written = entry.trim();
    if (!written) continue;
    // The pattern needs a `(`; most names have none, and skip the regex.
    const pattern = written.includes('(') ? PATTERN.exec(written) : null;
    const base = pattern?.[1] ?? written;
    const mapping = lookupToolName(base, format);
    if (mapping && 'implicit' in mapping) continue;
    if (mapping && 'external' in mapping) {
      pushNew(tools, written);
      continue;
    }
    if (mapping && 'coveredBy' in mapping) {
      (covered ??= []).push({ written, by: mapping.coveredBy, reason: mapping.reason });
      continue;
    }
    if (!mapping || 'unsupported' in mapping) {
      // A name kept as written is shown, never given; one the tool pool would match (Qwen's dead `Read`) is not kept at all.
      if (!builtinTool(base)) pushNew(tools, written);
      pushNew(unknown, written);
      if (mapping) (reasons ??= new Map()).set(written, mapping.unsupported);
      continue;
    }
    for (const name of mapping.tools) pushNew(tools, name);
    if (mapping.tools.some(isSpawnToolName)) {
      const names = (pattern?.[2] ?? '').split(',').map((n) => n.trim()).filter(Boolean);
      if (pattern && names.length > 0) {
        restricted = true;
        for (const name of names) pushNew(targets, name);
      } else {
        unrestricted = true;
      }
    }
  }
  // A name another listed tool covers needs nothing; without that tool it is a gap worth a warning.
  for (const { written, by, reason } of covered ?? []) {
    if (tools.includes(by)) continue;
    pushNew(tools, written);
    pushNew(unknown, written);
    (reasons ??= new Map()).set(written, `${reason}, and ${by} is not in the list`);
  }
  return { tools, unknown, reasons: reasons ?? NO_REASONS, spawnTargets: restricted && !unrestricted ? targets : null };
}

/**
 * The warnings for a list's unknown names: one per reason, naming every tool
 * it applies to, in the wording `tool "x" is not available in this runtime`.
 */
export function unknownToolWarnings(normalised: Pick<NormalisedTools, 'unknown' | 'reasons'>, format: AgentFormat): string[] {
  // Nearly every list: nothing to say, and no map or list built to say it.
  if (normalised.unknown.length === 0) return [];
  const byReason = new Map<string, string[]>();
  for (const name of normalised.unknown) {
    const reason = normalised.reasons.get(name) ?? (format === 'claude-code' ? 'not a tool name this runtime knows' : `not a ${FORMATS[format].title} or Claude Code tool name this runtime knows`);
    byReason.set(reason, [...(byReason.get(reason) ?? []), name]);
  }
  return [...byReason].map(([reason, names]) => {
    const quoted = names.map((t) => `"${t}"`).join(', ');
    return names.length === 1
      ? `tool ${quoted} is not available in this runtime (${reason}); it will be ignored`
      : `tools ${quoted} are not available in this runtime (${reason}); they will be ignored`;
  });
}
