import { DEFINITION_FIELDS } from '../kinds';

/**
 * A fast path for the frontmatter almost every agent file has: top-level
 * `key: value` lines whose values are plain or quoted one-line scalars,
 * block lists of such items, or simple `|`/`>` block scalars. Discovery
 * parses thousands of files, and js-yaml costs several µs per frontmatter
 * (more than reading the file); this reader costs a fraction of that.
 *
 * Quoted values are taken because nearly all real agent files quote their
 * description (149 of the 158 files of the compatibility corpus), and block
 * scalars because the bundled agents and many others use `description: >-`.
 * Both only in their plainest form, where YAML's value is the text as written.
 *
 * The contract: for every input it accepts, the result is exactly what the
 * YAML parser (js-yaml through gray-matter's engine) returns. Anything it is
 * not certain about (comments, anchors, tags, flow collections, escapes,
 * multi-line flow scalars, block scalars with blank, more-indented or
 * trailing-space lines, nested maps, empty values, tabs, control characters,
 * duplicate keys, values YAML reads as another type, ...) returns
 * `undefined`, and the caller runs the YAML parser.
 * test/unit/core/agents/parsing/yamlFastPath.test.ts checks this differentially
 * against js-yaml on the corpus, the bundled agents and generated input.
 */

const CR = 0x0d;
const SPACE = 0x20;
const DQUOTE = 0x22;
const HASH = 0x23;
const SQUOTE = 0x27;
const DASH = 0x2d;
const COLON = 0x3a;
const BACKSLASH = 0x5c;

/** Longer keys are left to YAML (which limits implicit keys); real ones are short. */
const MAX_KEY_LENGTH = 128;
/** Up to 15 digits a plain integer is exact in a double, as YAML's `Number(...)` gives. */
const MAX_INT_DIGITS = 15;

function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isKeyChar(c: number): boolean {
  return isAsciiLetter(c) || isDigit(c) || c === 0x5f /* _ */ || c === DASH || c === 0x2e /* . */;
}

/**
 * Whether a character inside a value is one the fast path takes as itself:
 * no control characters (a tab has indentation rules, a lone CR is a YAML
 * line break), none of the characters js-yaml rejects as non-printable (C1
 * controls, U+FFFE/U+FFFF, lone surrogates; `text[i]` is a high surrogate
 * only if a low one follows), and no U+2028/U+2029 or BOM whose treatment
 * is not worth reasoning about here. Keys, indentation and `- ` are ASCII
 * by construction, so only values need this check.
 */
function isPlainChar(text: string, i: number, c: number): boolean {
  if (c < 0x7f) return c >= SPACE;
  if (c <= 0x9f || c === 0x2028 || c === 0x2029 || c === 0xfeff || c === 0xfffe || c === 0xffff) return false;
  if (c >= 0xd800 && c <= 0xdfff) {
    if (c >= 0xdc00) {
      // A low surrogate is fine only as the second half of a pair.
      const previous = text.charCodeAt(i - 1);
      return previous >= 0xd800 && previous <= 0xdbff;
    }
    const next = text.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff;
  }
  return true;
}

/**
 * The keys agent files use, as constants: a key sliced from the text would
 * have to be hashed and interned for every property lookup and store.
 */
const KNOWN_KEYS: readonly string[] = [
  ...DEFINITION_FIELDS,
  // Keys other tools' agent files use often (Copilot, Claude Code plugins).
  'argument-hint',
  'mcp-servers',
  'target',
  'handoffs',
];

/** The known keys by length, for a match without slicing the key out of the text. */
const KNOWN_KEYS_BY_LENGTH: readonly (readonly string[])[] = (() => {
  const table: string[][] = [];
  for (const key of KNOWN_KEYS) (table[key.length] ??= []).push(key);
  return table;
})();

function matchesAt(text: string, start: number, key: string): boolean {
  for (let i = 0; i < key.length; i++) if (text.charCodeAt(start + i) !== key.charCodeAt(i)) return false;
  return true;
}

/** The key at `text[start, end)`; undefined for a key YAML reads as a boolean or null. */
function keyAt(text: string, start: number, end: number): string | undefined {
  const candidates = KNOWN_KEYS_BY_LENGTH[end - start];
  if (candidates) for (const key of candidates) if (matchesAt(text, start, key)) return key;
  return isReservedWord(text, start, end) ? undefined : text.slice(start, end);
}

/**
 * Plain words that YAML's core schema reads as something other than a
 * string: true, True, TRUE, false, False, FALSE (booleans) and null, Null,
 * NULL. Everything else starting with a letter is a string: numbers, floats,
 * timestamps, `.inf`/`.nan`, `~` and merge keys start otherwise.
 */
const RESERVED_WORDS: readonly (readonly [string, boolean | null])[] = [
  ['true', true],
  ['True', true],
  ['TRUE', true],
  ['false', false],
  ['False', false],
  ['FALSE', false],
  ['null', null],
  ['Null', null],
  ['NULL', null],
];

/** The boolean or null a plain word stands for, or undefined for a string. */
function reservedWord(text: string, start: number, end: number): boolean | null | undefined {
  const length = end - start;
  if (length !== 4 && length !== 5) return undefined;
  const first = text.charCodeAt(start) | 0x20; // lower-cased
  if (first !== 0x74 /* t */ && first !== 0x66 /* f */ && first !== 0x6e /* n */) return undefined;
  for (const [word, value] of RESERVED_WORDS) if (word.length === length && matchesAt(text, start, word)) return value;
  return undefined;
}

function isReservedWord(text: string, start: number, end: number): boolean {
  return reservedWord(text, start, end) !== undefined;
}

/** What `scalar` returns for a plain value holding `: `, where it stands. */
class NestedColon {
  constructor(readonly at: number) {}
}

/**
 * One scalar, `text[start, end)` with no leading or trailing spaces (end >
 * start); undefined when it is not certain what YAML makes of it, and a
 * NestedColon for a plain value with `: ` inside (which YAML reads as a
 * nested mapping: on a `key:` line, an error whatever else the file holds).
 */
function scalar(text: string, start: number, end: number): unknown {
  const first = text.charCodeAt(start);
  if (first === DQUOTE || first === SQUOTE) {
    // Quoted on one line, with no escapes (`\x` in "", `''` in '') inside:
    // YAML's value is the characters between the quotes.
    if (end - start < 2 || text.charCodeAt(end - 1) !== first) return undefined;
    for (let i = start + 1; i < end - 1; i++) {
      const c = text.charCodeAt(i);
      if (c === first || (first === DQUOTE && c === BACKSLASH) || !isPlainChar(text, i, c)) return undefined;
    }
    return text.slice(start + 1, end - 1);
  }
  if (isDigit(first)) {
    // A plain decimal integer; octal `0…`, `1_000`, `1e3`, `1.5`, dates and
    // sexagesimal `1:30` all go to YAML.
    if (end - start > MAX_INT_DIGITS || (first === 0x30 && end - start > 1)) return undefined;
    for (let i = start + 1; i < end; i++) if (!isDigit(text.charCodeAt(i))) return undefined;
    return Number(text.slice(start, end));
  }
  // A plain scalar starting with a letter cannot start with an indicator.
  if (!isAsciiLetter(first)) return undefined;
  for (let i = start + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    // `: ` (or `:` at the end) starts a nested mapping; ` #` starts a comment.
    if (c === COLON) {
      const after = i + 1 === end ? -1 : text.charCodeAt(i + 1);
      if (after === SPACE || after === 0x09) return new NestedColon(i);
      if (after === -1) return undefined;
    }
    if (c === HASH && text.charCodeAt(i - 1) === SPACE) return undefined;
    if (!isPlainChar(text, i, c)) return undefined;
  }
  const word = reservedWord(text, start, end);
  // A boolean is taken; null (like an empty value) is left to the parser.
  if (word !== undefined) return word ?? undefined;
  return text.slice(start, end);
}

/** A value spread over the lines after its `key:` line. */
interface OpenValue {
  key: string;
  /** `- item` lines, or the content lines of a `|`/`>` block scalar. */
  kind: 'list' | 'literal' | 'folded';
  /** Block scalars: `-` (strip) drops the final line break, no indicator (clip) keeps one. */
  strip: boolean;
  indent: number;
  items: unknown[];
}

/** `|`, `|-`, `>` or `>-` alone: a block scalar header the fast path reads. */
function blockHeader(text: string, start: number, end: number): { kind: 'literal' | 'folded'; strip: boolean } | undefined {
  const c = text.charCodeAt(start);
  if (c !== 0x7c /* | */ && c !== 0x3e /* > */) return undefined;
  if (end - start === 2 && text.charCodeAt(start + 1) !== DASH) return undefined;
  if (end - start > 2) return undefined;
  return { kind: c === 0x7c ? 'literal' : 'folded', strip: end - start === 2 };
}

/** The 0-based number of the line starting at `lineStart` (counted only when an error is reported). */
function lineNumber(text: string, lineStart: number): number {
  let line = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < lineStart; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Stores a finished multi-line value; false when YAML would read it otherwise (no items: null). */
function close(result: Record<string, unknown>, open: OpenValue): boolean {
  if (open.items.length === 0) return false;
  if (open.kind === 'list') result[open.key] = open.items;
  else result[open.key] = open.items.join(open.kind === 'literal' ? '\n' : ' ') + (open.strip ? '' : '\n');
  return true;
}

/**
 * Parses frontmatter that consists only of:
 *   key: scalar
 *   key:
 *     - scalar
 *   key: >-          (or |, |-, >)
 *     text lines
 * Blank lines may stand between keys and list items. The items of one list
 * are equally indented (possibly at column 0). Scalars: plain text starting
 * with an ASCII letter, `true`/`false` and their capitalised forms, decimal
 * integers, or text in '…' or "…" on one line without escapes. Block scalar
 * lines are all indented alike, with no blank, more-indented or
 * trailing-space lines (where folding and chomping get subtle). Returns
 * undefined for anything else; the caller then runs the YAML parser.
 */
/** Where a frontmatter breaks YAML in the one way the fast path is certain of: `key: a plain value: with a colon`. */
export interface NestedColonError {
  /** The key whose value holds the colon. */
  key: string;
  /** 0-based line and column of the colon within the frontmatter. */
  line: number;
  column: number;
}

export function parseYamlFastPath(text: string, problem?: { error?: NestedColonError }): Record<string, unknown> | undefined {
  const result: Record<string, unknown> = {};
  let open: OpenValue | undefined;

  const length = text.length;
  let pos = 0;
  while (pos < length) {
    let lineEnd = text.indexOf('\n', pos);
    if (lineEnd === -1) lineEnd = length;
    const next = lineEnd + 1;
    if (lineEnd > pos && text.charCodeAt(lineEnd - 1) === CR) lineEnd--;
    const contentEnd = lineEnd;
    // Trailing spaces are never part of a plain or quoted value.
    while (lineEnd > pos && text.charCodeAt(lineEnd - 1) === SPACE) lineEnd--;
    let first = pos;
    while (first < lineEnd && text.charCodeAt(first) === SPACE) first++;
    const lineStart = pos;
    const indent = first - lineStart;
    pos = next;

    if (open !== undefined && open.kind !== 'list') {
      // A block scalar's content line; its end is the next line at column 0.
      if (first === lineEnd) return undefined; // blank lines change folding and chomping
      if (indent > 0) {
        if (open.indent === -1) open.indent = indent;
        else if (indent !== open.indent) return undefined;
        // Trailing spaces are content here.
        if (lineEnd !== contentEnd) return undefined;
        for (let i = first; i < lineEnd; i++) if (!isPlainChar(text, i, text.charCodeAt(i))) return undefined;
        open.items.push(text.slice(first, lineEnd));
        continue;
      }
    }
    if (first === lineEnd) continue; // blank line

    const c = text.charCodeAt(first);
    if (c === DASH) {
      // `- item` of the open list.
      if (open === undefined || open.kind !== 'list') return undefined;
      if (open.indent === -1) open.indent = indent;
      else if (indent !== open.indent) return undefined;
      if (text.charCodeAt(first + 1) !== SPACE) return undefined;
      let valueStart = first + 2;
      while (valueStart < lineEnd && text.charCodeAt(valueStart) === SPACE) valueStart++;
      if (valueStart === lineEnd) return undefined; // empty item: null
      const item = scalar(text, valueStart, lineEnd);
      // `- a: b` is a valid mapping inside the list, which the fast path does not read.
      if (item === undefined || item instanceof NestedColon) return undefined;
      open.items.push(item);
      continue;
    }

    // Otherwise only a `key:` line at column 0 is simple.
    if (indent !== 0 || !isAsciiLetter(c)) return undefined;
    if (open !== undefined) {
      if (!close(result, open)) return undefined;
      open = undefined;
    }
    let keyEnd = first + 1;
    while (keyEnd < lineEnd && isKeyChar(text.charCodeAt(keyEnd))) keyEnd++;
    if (keyEnd - first > MAX_KEY_LENGTH || text.charCodeAt(keyEnd) !== COLON || keyEnd >= lineEnd) return undefined;
    // `true:`/`null:` keys are not strings, and a duplicate is a YAML error:
    // both are the parser's to convert or report.
    const key = keyAt(text, first, keyEnd);
    if (key === undefined || Object.prototype.hasOwnProperty.call(result, key)) return undefined;

    if (keyEnd + 1 === lineEnd) {
      open = { key, kind: 'list', strip: false, indent: -1, items: [] };
      continue;
    }
    if (text.charCodeAt(keyEnd + 1) !== SPACE) return undefined;
    let valueStart = keyEnd + 2;
    while (valueStart < lineEnd && text.charCodeAt(valueStart) === SPACE) valueStart++;
    const header = blockHeader(text, valueStart, lineEnd);
    if (header) {
      open = { key, kind: header.kind, strip: header.strip, indent: -1, items: [] };
      continue;
    }
    const value = scalar(text, valueStart, lineEnd);
    if (value instanceof NestedColon) {
      if (problem) problem.error = { key, line: lineNumber(text, lineStart), column: value.at - lineStart };
      return undefined;
    }
    if (value === undefined) return undefined;
    result[key] = value;
  }
  if (open !== undefined && !close(result, open)) return undefined;
  return result;
}
