import { isSpawnToolName } from '../protocol/tools';
import { canonicalToolNames } from '../core/agents/interpretation/toolNames';
import type { AgentDocument, FieldEntry, Span } from './documentModel';

/**
 * What the cursor is on in an agent file's frontmatter. Read from the lines
 * around it rather than from the YAML tree: while a line is being typed the
 * frontmatter is often not valid YAML, and completion must work then most.
 */

export type CursorContext =
  | { kind: 'outside' }
  /** Where a field name goes (a new line, or a name being typed). */
  | { kind: 'newKey'; span: Span }
  /** On an existing field name. */
  | { kind: 'key'; key: string; span: Span }
  /** In a field's value; `word` is the name under the cursor (maybe empty). */
  | { kind: 'value'; key: string; word: string; span: Span; inSpawnPattern: boolean };

const KEY_LINE = /^([A-Za-z_][\w.-]*)[ \t]*:/;
const BOUNDARY = /[\s,[\]()"'{}]/;
/** A block list item at the start of a line: `-` then a blank or the line's end (`-x` is no item). */
const LIST_ITEM = /^-(?:[ \t]|\r?$)/;

function lineAt(text: string, offset: number): { start: number; end: number } {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const next = text.indexOf('\n', offset);
  return { start, end: next === -1 ? text.length : next };
}

function wordAt(text: string, offset: number, min: number, max: number): Span {
  let start = offset;
  let end = offset;
  while (start > min && !BOUNDARY.test(text[start - 1]!)) start--;
  while (end < max && !BOUNDARY.test(text[end]!)) end++;
  return [start, end];
}

/** Whether the cursor is inside the parentheses of `Task(…)`/`Agent(…)` on its line. */
function inSpawnPattern(text: string, lineStart: number, offset: number): boolean {
  for (let i = offset - 1; i >= lineStart; i--) {
    const c = text[i];
    if (c === ')') return false;
    if (c === '(') {
      let j = i;
      while (j > lineStart && /[\w/-]/.test(text[j - 1]!)) j--;
      return canonicalToolNames(text.slice(j, i))?.some(isSpawnToolName) ?? false;
    }
  }
  return false;
}

/**
 * In a Codex TOML file: inside a field's value (a multi-line string or array
 * included) by the value's span, on a `key = …` line by the key, anywhere
 * else where a new key goes. Keys start the line and tables end them, so the
 * located fields answer it exactly.
 */
function spanCursor(text: string, fields: readonly FieldEntry[], offset: number): CursorContext {
  const line = lineAt(text, offset);
  const within = fields.find((f) => offset >= f.valueSpan[0] && offset <= Math.max(f.valueSpan[1], f.valueSpan[0]) && offset > f.keySpan[1]);
  if (within) {
    const span = wordAt(text, offset, Math.max(line.start, within.valueSpan[0]), line.end);
    return { kind: 'value', key: within.key, word: text.slice(span[0], span[1]), span, inSpawnPattern: false };
  }
  const onKey = fields.find((f) => offset >= f.keySpan[0] && offset <= f.keySpan[1]);
  if (onKey) return { kind: 'key', key: onKey.key, span: onKey.keySpan };
  return { kind: 'newKey', span: wordAt(text, offset, line.start, line.end) };
}

export function cursorContext(doc: AgentDocument, offset: number): CursorContext {
  // A file of agent objects: the fields of the agent the cursor is in.
  if (doc.sections) {
    const section = doc.sections.findLast((s) => offset > s.span[0] && offset < s.span[1]);
    return section ? spanCursor(doc.text, section.fields, offset) : { kind: 'outside' };
  }
  const fm = doc.frontmatter;
  if (fm.kind === 'none') return { kind: 'outside' };
  if (doc.syntax === 'toml') return spanCursor(doc.text, doc.fields, offset);
  const start = fm.openSpan[1] + 1;
  // The closing `---` line starts at fm.end: from its first column on, the cursor is past the frontmatter.
  const outside = fm.kind === 'ok' ? offset >= fm.end : offset > doc.text.length;
  if (offset < start || outside) return { kind: 'outside' };
  const { text } = doc;
  const line = lineAt(text, offset);
  const lineText = text.slice(line.start, line.end);

  let keyLine = line;
  let keyText = lineText;
  if (/^[ \t]/.test(lineText) || LIST_ITEM.test(lineText)) {
    // A list item or continuation: the value of the nearest field above.
    let at = line.start;
    for (;;) {
      if (at <= start) return { kind: 'newKey', span: wordAt(text, offset, line.start, line.end) };
      const above = lineAt(text, at - 1);
      const aboveText = text.slice(above.start, above.end);
      if (KEY_LINE.test(aboveText)) {
        keyLine = above;
        keyText = aboveText;
        break;
      }
      at = above.start;
    }
  }
  const key = KEY_LINE.exec(keyText);
  if (!key) return { kind: 'newKey', span: wordAt(text, offset, line.start, line.end) };
  const name = key[1]!;
  const colon = keyLine.start + key[0].length;
  if (keyLine === line && offset < colon) return { kind: 'key', key: name, span: [line.start, line.start + name.length] };
  const min = keyLine === line ? colon : line.start;
  const span = wordAt(text, offset, min, line.end);
  return { kind: 'value', key: name, word: text.slice(span[0], span[1]), span, inSpawnPattern: inSpawnPattern(text, min, offset) };
}
