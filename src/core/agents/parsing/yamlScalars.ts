import { DEFINITION_FIELDS } from '../kinds';

/**
 * The scalars and keys the YAML fast path (yamlFastPath.ts) reads, and the
 * characters it takes as themselves: exactly what js-yaml and the `yaml`
 * package make of them, or undefined where that is not certain.
 */

export const CR = 0x0d;
export const SPACE = 0x20;
export const DQUOTE = 0x22;
export const HASH = 0x23;
export const SQUOTE = 0x27;
export const DASH = 0x2d;
export const COLON = 0x3a;
const BACKSLASH = 0x5c;

/** Longer keys are left to YAML (which limits implicit keys); real ones are short. */
export const MAX_KEY_LENGTH = 128;
/** Up to 15 digits a plain integer is exact in a double, as YAML's `Number(...)` gives. */
const MAX_INT_DIGITS = 15;

export function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

export function isKeyChar(c: number): boolean {
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
export function isPlainChar(text: string, i: number, c: number): boolean {
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
export function keyAt(text: string, start: number, end: number): string | undefined {
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
export class NestedColon {
  constructor(readonly at: number) {}
}

/**
 * One scalar, `text[start, end)` with no leading or trailing spaces (end >
 * start); undefined when it is not certain what YAML makes of it, and a
 * NestedColon for a plain value with `: ` inside (which YAML reads as a
 * nested mapping: on a `key:` line, an error whatever else the file holds).
 */
export function scalar(text: string, start: number, end: number): unknown {
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

