import { parse as parseToml, TomlError } from 'smol-toml';
import type { AgentDocument, FieldEntry, Span, ValueItem } from './documentModel';

/**
 * A Codex agent file (TOML) located as the server needs it: the top-level
 * `key = value` entries with the spans of their keys, values and, for strings
 * and string lists, each item. Validity and values are the core's (smol-toml,
 * as discovery reads it); this only says where things are. Tables (`[...]`)
 * end the top-level keys: what follows belongs to them (`[mcp_servers.x]`).
 */

/** One segment of a TOML key: bare, basic-quoted ("…", with escapes) or literal-quoted ('…'). */
const KEY_SEGMENT = /[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'/y;
/** A string literal: basic ("…", with escapes) or literal ('…'). */
const STRING = /"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'/g;

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
}

interface LineKey {
  /** The top-level key: the first segment of a dotted key (`model.x` sets `model`), unquoted. */
  key: string;
  /** That segment's text, inside its quotes. */
  keySpan: Span;
  /** `a.b = …`: the top-level value is a table. */
  dotted: boolean;
  valueStart: number;
}

function skipBlanks(text: string, at: number, end: number): number {
  while (at < end && (text[at] === ' ' || text[at] === '\t')) at++;
  return at;
}

function keySegment(text: string, at: number): { key: string; span: Span; end: number } | null {
  KEY_SEGMENT.lastIndex = at;
  const match = KEY_SEGMENT.exec(text);
  if (!match) return null;
  const end = at + match[0].length;
  if (match[0][0] === "'") return { key: match[0].slice(1, -1), span: [at + 1, end - 1], end };
  if (match[0][0] !== '"') return { key: match[0], span: [at, end], end };
  let key: string;
  try {
    key = JSON.parse(match[0]) as string;
  } catch {
    // An escape JSON does not have (`\U0001F600`): near enough to name the key.
    key = match[0].slice(1, -1);
  }
  return { key, span: [at + 1, end - 1], end };
}

/** The key of a `key = value` line starting at `at` (bare, quoted or dotted), or null. */
function lineKey(text: string, at: number, end: number): LineKey | null {
  const first = keySegment(text, skipBlanks(text, at, end));
  if (!first) return null;
  let next = skipBlanks(text, first.end, end);
  let dotted = false;
  while (text[next] === '.') {
    const segment = keySegment(text, skipBlanks(text, next + 1, end));
    if (!segment) return null;
    dotted = true;
    next = skipBlanks(text, segment.end, end);
  }
  if (text[next] !== '=') return null;
  return { key: first.key, keySpan: first.span, dotted, valueStart: skipBlanks(text, next + 1, end) };
}

/**
 * Where the string literal that starts at `from` ends (after its closing
 * quotes). A basic string's escapes (`\"`, `\"""`) do not close it; a
 * literal one has none. A multi-line string closes at the first `"""` (or
 * `'''`) and takes up to two more quotes with it (`""""` ends the string with
 * one quote). An unclosed one-line string ends at its line.
 */
function stringEnd(text: string, from: number): number {
  const quote = text[from]!;
  const fence = quote.repeat(3);
  const multiLine = text.startsWith(fence, from);
  for (let i = from + (multiLine ? 3 : 1); i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && quote === '"') i++;
    else if (c === '\n' && !multiLine) return i;
    else if (c === quote && !multiLine) return i + 1;
    else if (c === quote && text.startsWith(fence, i)) {
      let end = i + 3;
      for (let extra = 0; extra < 2 && text[end] === quote; extra++) end++;
      return end;
    }
  }
  return text.length;
}

/** Where a value that starts at `from` ends: a multi-line string or array may run over several lines. */
function valueEnd(text: string, from: number): number {
  if (text.startsWith('"""', from) || text.startsWith("'''", from)) return stringEnd(text, from);
  if (text[from] === '[') {
    let depth = 0;
    for (let i = from; i < text.length; i++) {
      const c = text[i];
      if (c === '"' || c === "'") i = stringEnd(text, i) - 1;
      else if (c === '#') i = lineEnd(text, i) - 1;
      else if (c === '[') depth++;
      else if (c === ']' && --depth === 0) return i + 1;
    }
    return text.length;
  }
  // One line, without a trailing comment (a # outside a string).
  const end = lineEnd(text, from);
  let stop = end;
  for (let i = from; i < end; i++) {
    const c = text[i];
    if (c === '"' || c === "'") i = Math.min(stringEnd(text, i), end) - 1;
    else if (c === '#') {
      stop = i;
      break;
    }
  }
  while (stop > from && /\s/.test(text[stop - 1]!)) stop--;
  return stop;
}

function items(text: string, span: Span): ValueItem[] {
  const source = text.slice(span[0], span[1]);
  if (source.startsWith('"""') || source.startsWith("'''")) return [{ text: source.slice(3, -3), span: [span[0] + 3, Math.max(span[0] + 3, span[1] - 3)] }];
  const found: ValueItem[] = [];
  for (const m of source.matchAll(STRING)) {
    const inner = m[1] ?? m[2] ?? '';
    const start = span[0] + m.index + 1;
    found.push({ text: inner, span: [start, start + inner.length] });
  }
  if (found.length || source.startsWith('[')) return found;
  return source ? [{ text: source, span }] : [];
}

function syntaxError(text: string): AgentDocument['yamlError'] {
  try {
    parseToml(text);
    return null;
  } catch (error) {
    const line = error instanceof TomlError ? error.line : 1;
    const column = error instanceof TomlError ? error.column : 1;
    let at = 0;
    for (let l = 1; l < line && at < text.length; l++) at = lineEnd(text, at) + 1;
    const start = Math.min(at + Math.max(0, column - 1), lineEnd(text, at));
    const end = lineEnd(text, at);
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
    return { message, span: start < end ? [start, end] : [at, end] };
  }
}

export function parseTomlDocument(text: string): AgentDocument {
  const fields: FieldEntry[] = [];
  for (let at = 0; at < text.length; ) {
    const end = lineEnd(text, at);
    if (/^[ \t]*\[/.test(text.slice(at, end))) break;
    const key = lineKey(text, at, end);
    if (!key) {
      at = end + 1;
      continue;
    }
    const { keySpan, valueStart } = key;
    const valueSpan: Span = [valueStart, valueEnd(text, valueStart)];
    const valueSource = text.slice(valueSpan[0], valueSpan[1]);
    const entryStart = skipBlanks(text, at, end);
    const entryEnd = lineEnd(text, Math.max(valueSpan[1] - 1, valueStart));
    // A dotted key's value is one entry of the table the top-level key holds, not that key's value.
    const entryItems = key.dotted ? [] : items(text, valueSpan);
    fields.push({ key: key.key, keySpan, valueSpan, valueSource, entrySpan: [entryStart, entryEnd], items: entryItems, isMapping: key.dotted || valueSource.startsWith('{') });
    at = entryEnd + 1;
  }
  return {
    syntax: 'toml',
    text,
    // The whole file is "the frontmatter": every line may hold a key.
    frontmatter: { kind: 'ok', openSpan: [0, 0], closeSpan: [text.length, text.length], start: 0, end: text.length },
    fields,
    yamlError: syntaxError(text),
  };
}
