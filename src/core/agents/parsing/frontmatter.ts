import matter from 'gray-matter';
import { parseYamlFastPath, type NestedColonError } from './yamlFastPath';

/**
 * Splitting an agent file into frontmatter and body, and parsing the
 * frontmatter as YAML.
 *
 * The split is done here rather than by gray-matter's main function because
 * discovery reads thousands of files: gray-matter copies every input into a
 * Buffer, runs its excerpt/section machinery and keeps every input in an
 * unbounded module-level cache (a leak in a long-lived extension host). Only
 * the YAML part goes through gray-matter's own YAML engine (js-yaml), so the
 * parse itself is exactly what gray-matter would produce.
 */

export type FrontmatterSplit =
  | { kind: 'none'; body: string }
  | { kind: 'unterminated' }
  | { kind: 'ok'; frontmatter: string; body: string; /** 1-based file line of the frontmatter's first line. */ firstLine: number };

const BOM = '\uFEFF';

function isDelimiterLine(text: string, start: number, end: number): boolean {
  if (!text.startsWith('---', start)) return false;
  for (let i = start + 3; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/** Splits `---` frontmatter from the body. Line endings may be LF or CRLF. */
export function splitFrontmatter(input: string): FrontmatterSplit {
  const text = input.startsWith(BOM) ? input.slice(1) : input;
  const firstEnd = text.indexOf('\n');
  if (firstEnd === -1 || !isDelimiterLine(text, 0, firstEnd)) return { kind: 'none', body: text };

  const start = firstEnd + 1;
  let lineStart = start;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = text.length;
    if (isDelimiterLine(text, lineStart, lineEnd)) {
      return { kind: 'ok', frontmatter: text.slice(start, lineStart), body: text.slice(lineEnd + 1), firstLine: 2 };
    }
    lineStart = lineEnd + 1;
  }
  return { kind: 'unterminated' };
}

export type YamlResult =
  | { ok: true; data: Record<string, unknown> }
  | {
      ok: false;
      message: string;
      /** Where the parser gave up, when it says: 1-based file line and column (the language server marks it). */
      position?: { line: number; column: number };
      /** The YAML was valid but expands beyond MAX_YAML_VALUES; no line reader should try it either. */
      alias?: boolean;
    };

interface YamlEngine {
  parse(text: string): unknown;
}

// gray-matter exposes its engines (`matter.engines`) but its typings do not.
const yamlEngine: YamlEngine = (matter as unknown as { engines: { yaml: YamlEngine } }).engines.yaml;

interface YamlErrorShape {
  reason?: unknown;
  mark?: { line?: unknown; column?: unknown };
  message?: unknown;
}

function describeYamlError(error: unknown, firstLine: number): YamlResult & { ok: false } {
  const e = (error ?? {}) as YamlErrorShape;
  const reason = typeof e.reason === 'string' ? e.reason : String(e.message ?? error).split('\n')[0];
  if (typeof e.mark?.line === 'number' && typeof e.mark.column === 'number') {
    const position = { line: e.mark.line + firstLine, column: e.mark.column + 1 };
    return { ok: false, message: `${reason} (line ${position.line}, column ${position.column})`, position };
  }
  return { ok: false, message: reason ?? 'unknown error' };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * Parses frontmatter as YAML; an empty block is an empty mapping. Simple
 * `key: value` frontmatter takes the fast path, which yields exactly what
 * the YAML parser would; everything else goes through the YAML parser.
 */
export function parseYamlFrontmatter(frontmatter: string, firstLine = 2): YamlResult {
  const problem: { error?: NestedColonError } = {};
  const plain = parseYamlFastPath(frontmatter, problem);
  if (plain) return { ok: true, data: plain };
  // The commonest YAML error of real agent files, found without the YAML
  // parser: it would only throw (building an error snippet), and saying
  // which value to quote helps more than its generic reason.
  if (problem.error) {
    const { key, line, column } = problem.error;
    const position = { line: line + firstLine, column: column + 1 };
    return { ok: false, message: `the value of "${key}" holds ": ", which YAML reads as a nested mapping; quote the value (line ${position.line}, column ${position.column})`, position };
  }
  return parseWithYamlEngine(frontmatter, firstLine);
}

/** The YAML parser alone (gray-matter's engine), without the fast path. */
export function parseWithYamlEngine(frontmatter: string, firstLine = 2): YamlResult {
  let data: unknown;
  // js-yaml captures two stack traces for every error it throws (Error.call and
  // captureStackTrace), which costs more than the parse; only the reason and
  // position are used here, and about 5% of real agent files are not strict
  // YAML. The parse is synchronous, so the limit is restored before anything
  // else runs.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    data = yamlEngine.parse(frontmatter);
  } catch (error) {
    return describeYamlError(error, firstLine);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  if (data === null || data === undefined) return { ok: true, data: {} };
  if (!isPlainObject(data)) return { ok: false, message: 'the frontmatter is not a list of "key: value" fields' };
  if (exceedsValueBudget(data, MAX_YAML_VALUES)) {
    return { ok: false, alias: true, message: `its YAML expands to more than ${MAX_YAML_VALUES.toLocaleString('en-US')} values through aliases (*name), far beyond any agent file; it was not read` };
  }
  return { ok: true, data };
}

/**
 * The most values (scalars, lists and maps, counting every use of an alias
 * anew) a frontmatter may expand to. js-yaml resolves an alias by sharing
 * the anchored value, so a 1 KB "billion laughs" file parses in
 * microseconds into a structure whose full walk (stringifying it into a
 * warning, joining a list) never ends. Real agent files hold a few dozen
 * values; the budget leaves two orders of magnitude for generous ones.
 */
export const MAX_YAML_VALUES = 10_000;

/**
 * Whether walking `root` as a tree (aliases expanded) visits more than
 * `budget` values. Iterative and stopped at the budget, so it costs at most
 * `budget` steps whatever the YAML; a cycle counts as endless.
 */
export function exceedsValueBudget(root: unknown, budget: number): boolean {
  const stack: unknown[] = [root];
  let seen = 0;
  while (stack.length > 0) {
    const value = stack.pop();
    if (++seen > budget) return true;
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (!(value instanceof Date)) {
      for (const key in value) if (Object.hasOwn(value, key)) stack.push((value as Record<string, unknown>)[key]);
    }
    // Everything on the stack will be counted: stop as soon as that alone is too much.
    if (seen + stack.length > budget) return true;
  }
  return false;
}
