import { parse as parseToml, TomlError } from 'smol-toml';
import type { AgentDocument, FieldEntry, Span, ValueItem } from './agentDocument';

/**
 * A Codex agent file (TOML) located as the server needs it: the top-level
 * `key = value` entries with the spans of their keys, values and, for strings
 * and string lists, each item. Validity and values are the core's (smol-toml,
 * as discovery reads it); this only says where things are. Tables (`[...]`)
 * end the top-level keys: what follows belongs to them (`[mcp_servers.x]`).
 */

const KEY = /^([ \t]*)([A-Za-z_][\w-]*)[ \t]*=[ \t]*/;
/** A string literal: basic ("…", with escapes) or literal ('…'). */
const STRING = /"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'/g;

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
}

/** Where a value that starts at `from` ends: a multi-line string or array may run over several lines. */
function valueEnd(text: string, from: number): number {
  for (const fence of ['"""', "'''"]) {
    if (text.startsWith(fence, from)) {
      const close = text.indexOf(fence, from + 3);
      return close === -1 ? text.length : close + 3;
    }
  }
  if (text[from] === '[') {
    let depth = 0;
    for (let i = from; i < text.length; i++) {
      const c = text[i];
      if (c === '"' || c === "'") {
        const close = text.indexOf(c, i + 1);
        if (close === -1) return text.length;
        i = close;
      } else if (c === '#') i = lineEnd(text, i) - 1;
      else if (c === '[') depth++;
      else if (c === ']' && --depth === 0) return i + 1;
    }
    return text.length;
  }
  // One line, without a trailing comment (a # outside a string).
  const end = lineEnd(text, from);
  let stop = end;
  let quote: string | null = null;
  for (let i = from; i < end; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
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
    const line = text.slice(at, end);
    if (/^[ \t]*\[/.test(line)) break;
    const key = KEY.exec(line);
    if (!key) {
      at = end + 1;
      continue;
    }
    const keyStart = at + key[1]!.length;
    const keySpan: Span = [keyStart, keyStart + key[2]!.length];
    const valueStart = at + key[0].length;
    const valueSpan: Span = [valueStart, valueEnd(text, valueStart)];
    const valueSource = text.slice(valueSpan[0], valueSpan[1]);
    const entryEnd = lineEnd(text, Math.max(valueSpan[1] - 1, valueStart));
    fields.push({ key: key[2]!, keySpan, valueSpan, valueSource, entrySpan: [keyStart, entryEnd], items: items(text, valueSpan), isMapping: valueSource.startsWith('{') });
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
