import { isMap, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import { isTomlPath } from '../core/agents/formats';
import { parseYamlFrontmatter, splitFrontmatter } from '../core/agents/parsing/frontmatter';
import type { AgentDocument, FieldEntry, FrontmatterState, Span, ValueItem, YamlSyntaxError } from './documentModel';
import { isStructuredPath, parseStructuredDocument } from './structuredDocument';
import { parseTomlDocument } from './tomlDocument';

/**
 * One open agent file, located: where its frontmatter is, and the source
 * range of every top-level key, value and list item, as offsets into the
 * document text. What the file *means* is the core's business (its parser
 * decides validity and values); this module only answers "where is it", which
 * the core's parser cannot. Built once per edit, for the edited document only.
 */

const KEY_LINE = /^([A-Za-z_][\w.-]*)[ \t]*:/;

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
}

/** The span of text[start, end) without surrounding white space (a CR included). */
function trimSpan(text: string, start: number, end: number): Span {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return [start, end];
}

/**
 * The span of a list item's text inside its quotes (`"Task(a)"` → `Task(a)`),
 * white space trimmed: the runtime reads the item unquoted, so the checks
 * match on that text and a fix replaces it, leaving the quotes alone.
 */
function insideQuotes(text: string, start: number, end: number): Span {
  const [from, to] = trimSpan(text, start, end);
  const quote = text[from];
  return to - from >= 2 && (quote === '"' || quote === "'") && text[to - 1] === quote ? [from + 1, to - 1] : [from, to];
}

/**
 * The entries of one list item, as the runtime reads them: unquoted, then
 * split on commas outside parentheses (it joins a list's items and splits
 * them again, so `- Read, Grep` is two tools and `"Task(a, b)"` one).
 */
function listItemEntries(text: string, start: number, end: number): ValueItem[] {
  const [from, to] = insideQuotes(text, start, end);
  return csvItems(text, from, to);
}

/** Comma-separated entries of text[start, end), commas inside parentheses kept (`Task(a, b), Read`). */
function csvItems(text: string, start: number, end: number): ValueItem[] {
  const items: ValueItem[] = [];
  let depth = 0;
  let from = start;
  for (let i = start; i <= end; i++) {
    const c = i === end ? ',' : text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && (depth === 0 || i === end)) {
      const span = trimSpan(text, from, i);
      if (span[1] > span[0]) items.push({ text: text.slice(span[0], span[1]), span });
      from = i + 1;
    }
  }
  return items;
}

function balance(text: string): number {
  let depth = 0;
  for (const c of text) depth += c === '(' ? 1 : c === ')' ? -1 : 0;
  return depth;
}

/**
 * List items of a YAML sequence. A flow list cut inside a permission pattern
 * (`[Read, Task(a, b)]` reads as `Task(a` and `b)`) is put back together, as
 * the core does with the values.
 */
function sequenceItems(text: string, base: number, nodes: readonly unknown[]): ValueItem[] {
  const items: ValueItem[] = [];
  let open: { start: number; end: number } | null = null;
  for (const node of nodes) {
    if (!isScalar(node) || !node.range) continue;
    const start = base + node.range[0];
    const end = base + node.range[1];
    const current: { start: number; end: number } = open ? { start: open.start, end } : { start, end };
    if (balance(text.slice(current.start, current.end)) > 0) {
      open = current;
      continue;
    }
    open = null;
    items.push(...listItemEntries(text, current.start, current.end));
  }
  if (open) items.push(...listItemEntries(text, open.start, open.end));
  return items;
}

/** Fields from the YAML AST; null when the YAML parser could not make a mapping of it. */
function fieldsFromYaml(text: string, start: number, end: number): FieldEntry[] | null {
  const doc = parseDocument(text.slice(start, end), { keepSourceTokens: false, prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length > 0) return null;
  const contents = doc.contents;
  if (contents === null) return [];
  if (!isMap(contents)) return null;
  const fields: FieldEntry[] = [];
  for (const pair of contents.items) {
    const key = pair.key as YamlNode | null;
    if (!isScalar(key) || !key.range) continue;
    const keySpan = insideQuotes(text, start + key.range[0], start + key.range[1]);
    const value = pair.value as YamlNode | null;
    let valueSpan: Span;
    if (value?.range) valueSpan = [start + value.range[0], start + value.range[1]];
    else {
      const colon = text.indexOf(':', keySpan[1]);
      valueSpan = [colon + 1, colon + 1];
    }
    // Through the end of the value's last line (the node's own end may take the line break with it).
    const entryEnd = value?.range ? lineEnd(text, Math.max(keySpan[1], start + value.range[1] - 1)) : lineEnd(text, keySpan[1]);
    const valueSource = text.slice(valueSpan[0], valueSpan[1]);
    let items: ValueItem[] = [];
    if (isSeq(value)) items = sequenceItems(text, start, value.items);
    else if (isScalar(value) && typeof value.value === 'string') items = listItemEntries(text, valueSpan[0], valueSpan[1]);
    else if (isScalar(value) && value.value !== null) items = [{ text: String(value.value), span: valueSpan }];
    fields.push({ key: String(key.value), keySpan, valueSpan, valueSource, entrySpan: [keySpan[0], Math.min(entryEnd, end)], items, isMapping: isMap(value) });
  }
  return fields;
}

/**
 * Fields read line by line, as the core's forgiving reader reads a
 * frontmatter that is not valid YAML: each top-level `key: value` line, and
 * the `- item` lines under it.
 */
function fieldsFromLines(text: string, start: number, end: number): FieldEntry[] {
  const fields: FieldEntry[] = [];
  let current: FieldEntry | null = null;
  for (let lineStart = start; lineStart < end; ) {
    const stop = lineEnd(text, lineStart);
    const line = text.slice(lineStart, stop);
    const key = KEY_LINE.exec(line);
    if (key) {
      const keySpan: Span = [lineStart, lineStart + key[1]!.length];
      const valueSpan = trimSpan(text, lineStart + key[0].length, stop);
      const valueSource = text.slice(valueSpan[0], valueSpan[1]);
      const items = valueSource.startsWith('[') && valueSource.endsWith(']')
        ? csvItems(text, valueSpan[0] + 1, valueSpan[1] - 1).flatMap((item) => listItemEntries(text, item.span[0], item.span[1]))
        : valueSource ? listItemEntries(text, valueSpan[0], valueSpan[1]) : [];
      current = { key: key[1]!, keySpan, valueSpan, valueSource, entrySpan: [lineStart, stop], items, isMapping: false };
      fields.push(current);
    } else if (current && /^\s/.test(line)) {
      current.entrySpan = [current.entrySpan[0], stop];
      const item = /^(\s*-\s+)(.*?)\s*$/.exec(line);
      if (item && current.valueSource === '') {
        const from = lineStart + item[1]!.length;
        current.items.push(...listItemEntries(text, from, from + item[2]!.length));
      }
    } else if (line.trim() !== '') {
      current = null;
    }
    lineStart = stop + 1;
  }
  return fields;
}

/** Offset of a 1-based line and column, clamped to that line. */
function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf('\n', offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  return Math.min(offset + Math.max(0, column - 1), lineEnd(text, offset));
}

function syntaxError(text: string, message: string, position: { line: number; column: number } | undefined, fallback: Span): YamlSyntaxError {
  if (!position) return { message, span: fallback };
  const at = offsetOf(text, position.line, position.column);
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const span = trimSpan(text, at, lineEnd(text, at));
  // The parser may point at the end of a line; mark the line's content then.
  return { message, span: span[1] > span[0] ? span : trimSpan(text, lineStart, lineEnd(text, lineStart)) };
}

/**
 * Where the yaml package finds the first error, as a 1-based file line and
 * column: where the core's parser does not say, this locates the problem it
 * reported.
 */
function yamlErrorPosition(frontmatter: string, firstLine: number): { line: number; column: number } | undefined {
  const position = parseDocument(frontmatter, { prettyErrors: true }).errors[0]?.linePos?.[0];
  return position && { line: position.line - 1 + firstLine, column: position.col };
}

export function parseAgentDocument(text: string, filePath = ''): AgentDocument {
  if (isTomlPath(filePath)) return parseTomlDocument(text);
  if (isStructuredPath(filePath)) return parseStructuredDocument(text, filePath);
  const bom = text.startsWith('\uFEFF') ? 1 : 0;
  const split = splitFrontmatter(text);
  if (split.kind === 'none') return { syntax: 'yaml', text, frontmatter: { kind: 'none' }, fields: [], yamlError: null };
  const openEnd = lineEnd(text, bom);
  const openSpan = trimSpan(text, bom, openEnd);
  if (split.kind === 'unterminated') return { syntax: 'yaml', text, frontmatter: { kind: 'unterminated', openSpan }, fields: [], yamlError: null };

  const start = openEnd + 1;
  const end = start + split.frontmatter.length;
  const closeSpan = trimSpan(text, end, lineEnd(text, end));
  const frontmatter: FrontmatterState = { kind: 'ok', openSpan, closeSpan, start, end };
  // The core's YAML parser is the judge of validity (it decides how the file loads).
  const verdict = parseYamlFrontmatter(split.frontmatter, split.firstLine);
  const yamlError = verdict.ok ? null : syntaxError(text, verdict.message, verdict.position ?? yamlErrorPosition(split.frontmatter, split.firstLine), openSpan);
  const fields = (verdict.ok ? fieldsFromYaml(text, start, end) : null) ?? fieldsFromLines(text, start, end);
  return { syntax: 'yaml', text, frontmatter, fields, yamlError };
}

export function field(doc: AgentDocument, key: string): FieldEntry | undefined {
  return doc.fields.find((f) => f.key === key);
}

export function contains(span: Span, offset: number): boolean {
  return offset >= span[0] && offset <= span[1];
}
