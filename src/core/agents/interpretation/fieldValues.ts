/**
 * Coercions from raw frontmatter values (strict YAML gives typed values, the
 * line reader gives strings) to the definition's field types. Each returns
 * `undefined` for a value it cannot use and reports why through its `sink`, so
 * one odd field never costs the whole agent.
 */

/**
 * Where the coercions report problems. An object with a method rather than a
 * callback: discovery parses thousands of files, and a closure per file is an
 * allocation (and, under tsx's keep-names transform, a defineProperty) each.
 */
export interface WarningSink {
  warn(message: string): void;
}

/** How much of a value a warning quotes: enough to recognise it, never the whole of a huge one. */
const MAX_QUOTE = 80;

/**
 * A value as a warning shows it: JSON, cut at MAX_QUOTE characters. Built
 * piece by piece and stopped at the limit, so a value that is huge, or
 * shares one list a billion times over through YAML aliases, costs no more
 * than a small one (JSON.stringify would build the whole text first).
 */
export function quote(value: unknown): string {
  let out = '';
  const stack: unknown[] = [value];
  while (stack.length > 0 && out.length <= MAX_QUOTE) {
    const next = stack.pop();
    if (next instanceof Token) {
      out += next.text;
    } else if (Array.isArray(next)) {
      out += '[';
      stack.push(CLOSE_LIST);
      for (let i = next.length - 1; i >= 0; i--) {
        stack.push(next[i]);
        if (i > 0) stack.push(COMMA_TOKEN);
      }
    } else if (typeof next === 'object' && next !== null && !(next instanceof Date)) {
      out += '{';
      stack.push(CLOSE_MAP);
      const keys = Object.keys(next);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        stack.push((next as Record<string, unknown>)[key], new Token(`${JSON.stringify(key.slice(0, MAX_QUOTE))}:`));
        if (i > 0) stack.push(COMMA_TOKEN);
      }
    } else {
      const scalar = typeof next === 'string' && next.length > MAX_QUOTE ? next.slice(0, MAX_QUOTE + 1) : next;
      out += JSON.stringify(scalar) ?? String(scalar);
    }
  }
  return out.length > MAX_QUOTE || stack.length > 0 ? `${out.slice(0, MAX_QUOTE)}…` : out;
}

/** Punctuation pushed between the values `quote` walks. */
class Token {
  constructor(readonly text: string) {}
}
const COMMA_TOKEN = new Token(',');
const CLOSE_LIST = new Token(']');
const CLOSE_MAP = new Token('}');

const COMMA = 0x2c;
const OPEN = 0x28;
const CLOSE = 0x29;

/** Splits a CSV string on commas outside parentheses (`Task(a, b), Read`); parts are trimmed, empty ones dropped. */
export function splitCsv(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i === text.length ? COMMA : text.charCodeAt(i);
    if (c === OPEN) depth++;
    else if (c === CLOSE) depth = Math.max(0, depth - 1);
    else if (c === COMMA && (depth === 0 || i === text.length)) {
      const part = text.slice(start, i).trim();
      if (part.length > 0) parts.push(part);
      start = i + 1;
    }
  }
  return parts;
}

/**
 * A list written as a CSV string or a YAML list. List items are re-joined and
 * re-split so that a YAML flow list cut inside a permission pattern
 * (`[Read, Task(a, b)]`, which YAML reads as three items) comes back whole.
 */
export function stringList(value: unknown, field: string, sink: WarningSink): string[] | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return splitCsv(value);
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value) {
      if (typeof item === 'string' || typeof item === 'number') items.push(String(item));
      else sink.warn(`"${field}" has an entry that is not a name (${quote(item)}); it is ignored`);
    }
    return splitCsv(items.join(', '));
  }
  sink.warn(`"${field}" must be a comma-separated string or a list; it is ignored`);
  return undefined;
}

/** value.trim(), without the call when both ends are printable ASCII (none of it is white space). */
function trimmed(value: string): string {
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  return first > 0x20 && first < 0x7f && last > 0x20 && last < 0x7f ? value : value.trim();
}

export function text(value: unknown, field: string, sink: WarningSink): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return trimmed(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  sink.warn(`"${field}" must be text; it is ignored`);
  return undefined;
}

export function boolean(value: unknown, field: string, sink: WarningSink): boolean | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const lower = value.trim().toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  sink.warn(`"${field}" must be true or false, not ${quote(value)}; it is ignored`);
  return undefined;
}

export function positiveInteger(value: unknown, field: string, sink: WarningSink): number | undefined {
  if (value === null || value === undefined) return undefined;
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n === 'number' && Number.isInteger(n) && n > 0) return n;
  sink.warn(`"${field}" must be a whole number above 0, not ${quote(value)}; it is ignored`);
  return undefined;
}

export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[], sink: WarningSink): T | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value.trim())) return value.trim() as T;
  sink.warn(`"${field}" must be one of ${allowed.join(', ')}, not ${quote(value)}; it is ignored`);
  return undefined;
}
