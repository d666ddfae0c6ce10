/**
 * The forgiving frontmatter reader used when strict YAML fails.
 *
 * Real agent files are often not valid YAML: the typical case is an unquoted
 * description containing `: ` ("Triggers on: 'x', 'y'"), which YAML reads as
 * a nested mapping. Their authors' intent is still obvious line by line, so
 * this reader takes each top-level `key: value` line at face value: the value
 * is everything after the first `: `. It also understands what such files use
 * around that: quoted values, `[a, b]` and `- item` lists, `|`/`>` blocks and
 * indented continuation lines. Values stay strings (or string lists); the
 * field interpreter coerces them.
 */

const KEY_LINE = /^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$/;
const ITEM_LINE = /^[ \t]*-[ \t]+(.*?)[ \t]*$/;
const BLOCK_HEADER = /^([|>])[+-]?\d*$/;

function unquote(value: string): string {
  if (value.length >= 2) {
    const first = value[0];
    const last = value[value.length - 1];
    if (first === '"' && last === '"') {
      return value.slice(1, -1).replace(/\\(["\\/nt])/g, (_m, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
    }
    if (first === "'" && last === "'") return value.slice(1, -1).replace(/''/g, "'");
  }
  return value;
}

function inlineList(value: string): string[] {
  return value
    .slice(1, -1)
    .split(',')
    .map((item) => unquote(item.trim()))
    .filter((item) => item.length > 0);
}

function scalar(value: string): string | string[] | null {
  if (value === '' || value === '~' || value === 'null') return null;
  if (value.startsWith('[') && value.endsWith(']')) return inlineList(value);
  return unquote(value);
}

interface OpenKey {
  key: string;
  /** The value written on the key's own line (after `key:`), if any. */
  inline: string;
  lines: string[];
}

function finish(open: OpenKey): string | string[] | null {
  const header = BLOCK_HEADER.exec(open.inline);
  if (header) {
    const lines = open.lines.map((l) => l.trim());
    const joined = header[1] === '|' ? lines.join('\n') : lines.filter(Boolean).join(' ');
    return joined.trim();
  }
  const nonEmpty = open.lines.filter((l) => l.trim().length > 0);
  if (!open.inline && nonEmpty.length > 0 && nonEmpty.every((l) => ITEM_LINE.test(l))) {
    return nonEmpty.map((l) => unquote(ITEM_LINE.exec(l)?.[1] ?? ''));
  }
  if (nonEmpty.length === 0) return scalar(open.inline);
  // A plain value folded over several lines, as YAML would read it.
  return unquote([open.inline, ...nonEmpty.map((l) => l.trim())].filter(Boolean).join(' '));
}

/** Reads `key: value` lines; never throws. Later duplicates of a key are ignored. */
export function readForgivingFrontmatter(frontmatter: string): Record<string, unknown> {
  // A Map, then fromEntries: a `__proto__:` line must stay a plain field.
  const result = new Map<string, unknown>();
  const keys: OpenKey[] = [];
  for (const rawLine of frontmatter.split(/\r?\n/)) {
    const line = rawLine.includes('\t') ? rawLine.replace(/\t/g, '  ') : rawLine;
    if (/^\s*#/.test(line)) continue;
    const keyMatch = /^\S/.test(line) ? KEY_LINE.exec(line) : null;
    if (keyMatch) keys.push({ key: keyMatch[1] ?? '', inline: keyMatch[2] ?? '', lines: [] });
    else keys.at(-1)?.lines.push(line);
  }
  for (const open of keys) {
    if (!result.has(open.key)) result.set(open.key, finish(open));
  }
  return Object.fromEntries(result);
}
