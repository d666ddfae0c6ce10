import { COLON, CR, DASH, DQUOTE, HASH, isAsciiLetter, isKeyChar, isPlainChar, keyAt, MAX_KEY_LENGTH, NestedColon, scalar, SPACE, SQUOTE } from './yamlScalars';

/**
 * A fast path for the YAML agent files hold: block mappings and block
 * lists nested as deep as they go (opencode's `tools` and `permission`
 * maps, Roo Code's list of modes), whose values are plain or quoted
 * one-line scalars, one-line flow lists of such scalars, or simple `|`/`>`
 * block scalars. Discovery parses thousands of files, and a YAML parser
 * costs several µs per frontmatter (more than reading the file; the `yaml`
 * package Roo Code uses, ~3 ms for a modes file of 20 modes); this reader
 * costs a fraction of that.
 *
 * Quoted values are taken because nearly all real agent files quote their
 * description (149 of the 158 files of the compatibility corpus), and block
 * scalars because the bundled agents and many others use `description: >-`.
 * Both only in their plainest form, where YAML's value is the text as written.
 *
 * The contract: for every input it accepts, the result is exactly what the
 * YAML parsers return, js-yaml through gray-matter's engine (frontmatter)
 * and the `yaml` package (modes files). Anything it is not certain about
 * (comments, anchors, tags, flow maps, flow lists across lines or holding
 * collections, escapes, multi-line flow scalars, block scalars with
 * whitespace-only, leading or more-indented lines, empty values, tabs,
 * control characters, duplicate keys, values YAML reads as another type,
 * ...) returns `undefined`, and the caller runs the YAML parser.
 * test/unit/core/agents/parsing/yamlFastPath.test.ts checks this differentially
 * against both on the bundled agents, the generated fixtures of every format
 * and generated nested input; the corpus phase on real files.
 */

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

/** Where a frontmatter breaks YAML in the one way the fast path is certain of: `key: a plain value: with a colon`. */
export interface NestedColonError {
  /** The key whose value holds the colon. */
  key: string;
  /** 0-based line and column of the colon within the frontmatter. */
  line: number;
  column: number;
}

/** What a parse step returns when it is not certain what YAML makes of the input. */
const DECLINE = Symbol('decline');

/**
 * The reader's position: the current line, with its indentation and its
 * content without the line break and trailing spaces. A sequence item's
 * content (`- key: value`) is read as a line of its own starting at the
 * item's column, which is how YAML nests compact collections.
 */
class Lines {
  /** Start of the current line in the text; `length` at the end. */
  lineStart = 0;
  /** First non-space character (or, for an item's content, where it starts). */
  first = 0;
  /** End of the content: before the line break, a CR before it and trailing spaces. */
  end = 0;
  /** End before trailing spaces were dropped (block scalar content must have none). */
  rawEnd = 0;
  /** Start of the next line. */
  next = 0;
  /** Column of `first`. */
  indent = 0;

  constructor(readonly text: string) {
    this.load(0);
  }

  get atEnd(): boolean {
    return this.lineStart >= this.text.length;
  }

  get blank(): boolean {
    return this.first === this.end;
  }

  load(pos: number): void {
    const text = this.text;
    this.lineStart = pos;
    if (pos >= text.length) {
      this.first = this.end = this.rawEnd = this.next = pos;
      this.indent = 0;
      return;
    }
    let lineEnd = text.indexOf('\n', pos);
    this.next = lineEnd === -1 ? text.length + 1 : lineEnd + 1;
    // A CR ends a line only before an LF: parsers disagree about a lone one at the very end.
    if (lineEnd === -1) lineEnd = text.length;
    else if (lineEnd > pos && text.charCodeAt(lineEnd - 1) === CR) lineEnd--;
    this.rawEnd = lineEnd;
    while (lineEnd > pos && text.charCodeAt(lineEnd - 1) === SPACE) lineEnd--;
    let first = pos;
    while (first < lineEnd && text.charCodeAt(first) === SPACE) first++;
    this.first = first;
    this.end = lineEnd;
    this.indent = first - pos;
  }

  advance(): void {
    this.load(this.next);
  }

  /** Moves past blank lines; false at the end of the text. */
  skipBlank(): boolean {
    while (!this.atEnd && this.blank) this.advance();
    return !this.atEnd;
  }

  /** Reads the rest of the current line from `at` as if it were a line indented to there. */
  startItemAt(at: number): void {
    this.first = at;
    this.indent = at - this.lineStart;
  }
}

/** Whether `text[i]` ends a key: a colon followed by a space or the end of the content. */
function colonEndsKey(text: string, i: number, end: number): boolean {
  return text.charCodeAt(i) === COLON && (i + 1 === end || text.charCodeAt(i + 1) === SPACE);
}

/**
 * The key at the start of the current content (its colon's position in
 * keyColon), when the content is `key:` or `key: value`: a plain key (ASCII letter,
 * then letters, digits, `_`, `-`, `.`) or a quoted one without escapes.
 * Undefined when the content is not a key line the fast path reads, DECLINE
 * for a key YAML reads otherwise.
 */
/** Where keyOf found the key's colon (a module variable: no object allocated per key). */
let keyColon = 0;

function keyOf(text: string, first: number, end: number): string | typeof DECLINE | undefined {
  const c = text.charCodeAt(first);
  if (c === DQUOTE || c === SQUOTE) {
    const close = text.indexOf(c === DQUOTE ? '"' : "'", first + 1);
    if (close === -1 || close >= end || !colonEndsKey(text, close + 1, end)) return undefined;
    const key = scalar(text, first, close + 1);
    keyColon = close + 1;
    return typeof key === 'string' && key !== '__proto__' && close - first <= MAX_KEY_LENGTH ? key : DECLINE;
  }
  if (!isAsciiLetter(c)) return undefined;
  let keyEnd = first + 1;
  while (keyEnd < end && isKeyChar(text.charCodeAt(keyEnd))) keyEnd++;
  if (keyEnd >= end || !colonEndsKey(text, keyEnd, end)) return undefined;
  if (keyEnd - first > MAX_KEY_LENGTH) return DECLINE;
  // `true:`/`null:` keys are not strings: the parser's to convert.
  const key = keyAt(text, first, keyEnd);
  keyColon = keyEnd;
  return key === undefined || key === '__proto__' ? DECLINE : key;
}

/**
 * A flow sequence on one line, `[a, "b", 'c']`, of scalars the fast path
 * reads; anything inside that flow syntax gives a meaning (nested
 * brackets, braces, colons, comments, an empty entry) declines.
 */
function flowSequence(text: string, start: number, end: number): unknown[] | typeof DECLINE {
  if (text.charCodeAt(end - 1) !== 0x5d /* ] */) return DECLINE;
  const items: unknown[] = [];
  let from = start + 1;
  const inner = end - 1;
  let only = from;
  while (only < inner && text.charCodeAt(only) === SPACE) only++;
  if (only === inner) return items;
  while (from <= inner) {
    let to = text.indexOf(',', from);
    if (to === -1 || to > inner) to = inner;
    let a = from;
    let b = to;
    while (a < b && text.charCodeAt(a) === SPACE) a++;
    while (b > a && text.charCodeAt(b - 1) === SPACE) b--;
    if (a === b) return DECLINE;
    for (let i = a; i < b; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === COLON || c === HASH) return DECLINE;
    }
    const item = scalar(text, a, b);
    if (item === undefined || item instanceof NestedColon) return DECLINE;
    items.push(item);
    from = to + 1;
  }
  return items;
}

/**
 * A block scalar's content, the lines after its header indented more than
 * `parentIndent`: all equally indented (more-indented lines change how `>`
 * folds), empty lines between them (not at the start, and holding no
 * spaces, where YAML's rules get subtle).
 */
function blockScalar(lines: Lines, parentIndent: number, kind: 'literal' | 'folded', strip: boolean): string | typeof DECLINE {
  const text = lines.text;
  let value: string | undefined;
  let indent = -1;
  let empty = 0;
  while (!lines.atEnd) {
    if (lines.blank) {
      if (value === undefined || lines.rawEnd !== lines.lineStart) return DECLINE;
      empty++;
      lines.advance();
      continue;
    }
    if (lines.indent <= parentIndent) break;
    if (indent === -1) indent = lines.indent;
    else if (lines.indent !== indent) return DECLINE;
    // Trailing spaces are content here.
    for (let i = lines.first; i < lines.rawEnd; i++) if (!isPlainChar(text, i, text.charCodeAt(i))) return DECLINE;
    const line = text.slice(lines.first, lines.rawEnd);
    if (value === undefined) value = line;
    // `|` keeps every line break; `>` folds one between two lines into a space, and keeps those of empty lines.
    else if (kind === 'literal') value += '\n'.repeat(empty + 1) + line;
    else value += (empty === 0 ? ' ' : '\n'.repeat(empty)) + line;
    empty = 0;
    lines.advance();
  }
  // No content: YAML reads an empty string, left to it.
  if (value === undefined) return DECLINE;
  // Chomping: `-` drops the final line break, no indicator keeps one (and drops trailing empty lines).
  return strip ? value : `${value}\n`;
}

/** The value after `key:` at the end of a line: a block collection on the next lines. */
function nestedValue(lines: Lines, parentIndent: number): unknown {
  lines.advance();
  // Nothing after it (YAML's null) is the parser's.
  if (!lines.skipBlank()) return DECLINE;
  const text = lines.text;
  if (text.charCodeAt(lines.first) === DASH) {
    // A block sequence may stand at its key's own indentation.
    if (lines.indent < parentIndent) return DECLINE;
    return sequence(lines, lines.indent);
  }
  if (lines.indent <= parentIndent) return DECLINE;
  return mapping(lines, lines.indent, undefined);
}

/**
 * A value on the current content from `start` (a key's value after `: `, or
 * a sequence item after `- `): a scalar, a flow sequence or a block scalar
 * header. Leaves the reader on the line after the value.
 */
function inlineValue(lines: Lines, start: number, parentIndent: number): unknown {
  const text = lines.text;
  const end = lines.end;
  const header = blockHeader(text, start, end);
  if (header) {
    lines.advance();
    return blockScalar(lines, parentIndent, header.kind, header.strip);
  }
  const value = text.charCodeAt(start) === 0x5b /* [ */ ? flowSequence(text, start, end) : scalar(text, start, end);
  if (value === undefined) return DECLINE;
  if (!(value instanceof NestedColon)) lines.advance();
  return value;
}

/**
 * A block mapping whose keys stand at `indent`, from the current line. At
 * the top (`problem` given), a plain value holding `: ` is reported as the
 * YAML error it is.
 */
function mapping(lines: Lines, indent: number, problem: { error?: NestedColonError } | undefined): Record<string, unknown> | typeof DECLINE {
  const text = lines.text;
  const result: Record<string, unknown> = {};
  for (;;) {
    const key = keyOf(text, lines.first, lines.end);
    if (key === undefined || key === DECLINE) return DECLINE;
    const colon = keyColon;
    // A duplicate is a YAML error, the parser's to report.
    if (Object.prototype.hasOwnProperty.call(result, key)) return DECLINE;
    let value: unknown;
    if (colon + 1 === lines.end) {
      value = nestedValue(lines, indent);
    } else {
      let valueStart = colon + 2;
      while (valueStart < lines.end && text.charCodeAt(valueStart) === SPACE) valueStart++;
      value = inlineValue(lines, valueStart, indent);
      if (value instanceof NestedColon) {
        if (problem) problem.error = { key, line: lineNumber(text, lines.lineStart), column: value.at - lines.lineStart };
        return DECLINE;
      }
    }
    if (value === DECLINE) return DECLINE;
    result[key] = value;
    if (!lines.skipBlank() || lines.indent < indent) return result;
    // A more-indented line here continues a value in a way the fast path does not read; a `- ` line at the keys' indentation is an error.
    if (lines.indent > indent || text.charCodeAt(lines.first) === DASH) return DECLINE;
  }
}

/** A block sequence whose `- ` stand at `indent`, from the current line. */
function sequence(lines: Lines, indent: number): unknown[] | typeof DECLINE {
  const text = lines.text;
  const items: unknown[] = [];
  for (;;) {
    // `-` alone (an item on the next lines, or null) is left to the parser.
    if (text.charCodeAt(lines.first + 1) !== SPACE || lines.first + 1 >= lines.end) return DECLINE;
    let start = lines.first + 2;
    while (start < lines.end && text.charCodeAt(start) === SPACE) start++;
    if (start === lines.end) return DECLINE;
    let item: unknown;
    if (text.charCodeAt(start) === DASH && text.charCodeAt(start + 1) === SPACE) {
      lines.startItemAt(start);
      item = sequence(lines, lines.indent);
    } else {
      const found = keyOf(text, start, lines.end);
      if (found === DECLINE) return DECLINE;
      if (found !== undefined) {
        lines.startItemAt(start);
        item = mapping(lines, lines.indent, undefined);
      } else {
        item = inlineValue(lines, start, indent);
        // `- a value: with a colon` is a mapping with a key the fast path does not read.
        if (item instanceof NestedColon) return DECLINE;
      }
    }
    if (item === DECLINE) return DECLINE;
    items.push(item);
    if (!lines.skipBlank() || lines.indent < indent) return items;
    if (lines.indent > indent) return DECLINE;
    // At the same indentation, anything but `- ` ends the sequence: a key of the mapping holding it.
    if (text.charCodeAt(lines.first) !== DASH) return items;
  }
}

/**
 * Parses frontmatter that is a block mapping at column 0 whose values are:
 * scalars (plain text starting with an ASCII letter, `true`/`false` and
 * their capitalised forms, decimal integers, or text in '…' or "…" on one
 * line without escapes); flow sequences of such scalars on one line; plain
 * `|`/`>` block scalars; and block mappings (plain or quoted keys) and block
 * sequences of all of these, nested as deep as they go, blank lines between
 * entries. Returns undefined for anything else; the caller then runs the
 * YAML parser.
 */
export function parseYamlFastPath(text: string, problem?: { error?: NestedColonError }): Record<string, unknown> | undefined {
  const lines = new Lines(text);
  if (!lines.skipBlank()) return {};
  if (lines.indent !== 0) return undefined;
  const result = mapping(lines, 0, problem ?? {});
  // The top mapping ends only at the end of the text.
  if (result === DECLINE || !lines.atEnd) return undefined;
  return result;
}
