import { getNodeValue, parseTree, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { isMap, isPair, isScalar, isSeq, parseDocument, type Node as YamlNode, type Pair } from 'yaml';
import { isJsonPath, isModesFile } from '../core/agents/formats';
import type { AgentDocument, AgentSection, FieldEntry, Span, ValueItem } from './documentModel';

/**
 * Files that hold agent objects rather than frontmatter, located: a Kiro
 * JSON agent (one object), an opencode or Kilo config file (the objects of
 * its `agent` and `mode` keys), a custom modes file (the items of its
 * `customModes` list, YAML or JSON). Each agent's object is a section with
 * the spans of its fields, so the checks, completion and hover work per
 * agent as they do on a frontmatter's fields. What the file means is still
 * the core's business.
 */

/** Whether a path is read as agent objects (see above). */
export function isStructuredPath(filePath: string): boolean {
  return isModesFile(filePath) || isJsonPath(filePath);
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
}

// --- JSON (and JSONC), through jsonc-parser's tree ---

function jsonItems(node: JsonNode | undefined): ValueItem[] {
  if (!node) return [];
  if (node.type === 'string') return [{ text: String(node.value), span: [node.offset + 1, node.offset + node.length - 1] }];
  if (node.type !== 'array') return [];
  return (node.children ?? []).flatMap((item) => {
    if (item.type === 'string') return [{ text: String(item.value), span: [item.offset + 1, item.offset + item.length - 1] as const }];
    // A Roo group with options, `["edit", { … }]`: its name.
    const first = item.type === 'array' ? item.children?.[0] : undefined;
    return first?.type === 'string' ? [{ text: String(first.value), span: [first.offset + 1, first.offset + first.length - 1] as const }] : [];
  });
}

function jsonFields(object: JsonNode, text: string): FieldEntry[] {
  const fields: FieldEntry[] = [];
  for (const property of object.children ?? []) {
    const [key, value] = property.children ?? [];
    if (!key || key.type !== 'string') continue;
    const keySpan: Span = [key.offset + 1, key.offset + key.length - 1];
    const valueSpan: Span = value ? [value.offset, value.offset + value.length] : [keySpan[1] + 1, keySpan[1] + 1];
    fields.push({
      key: String(key.value),
      keySpan,
      valueSpan,
      valueSource: text.slice(valueSpan[0], valueSpan[1]),
      entrySpan: [property.offset, property.offset + property.length],
      items: jsonItems(value),
      isMapping: value?.type === 'object',
    });
  }
  return fields;
}

function jsonSection(object: JsonNode, text: string, named: { name: string; span: Span } | null, nameKey: string | null): AgentSection {
  const fields = jsonFields(object, text);
  const nameField = nameKey ? fields.find((f) => f.key === nameKey) : undefined;
  const name = named ?? (nameField?.items[0] ? { name: nameField.items[0].text, span: nameField.items[0].span } : null);
  return { name: name?.name ?? null, nameSpan: name?.span ?? [object.offset, object.offset + 1], span: [object.offset, object.offset + object.length], fields };
}

function jsonDocument(text: string, filePath: string): AgentDocument {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const doc: AgentDocument = { syntax: 'json', text, frontmatter: { kind: 'none' }, fields: [], yamlError: null, sections: [] };
  if (errors.length > 0) {
    const first = errors[0]!;
    doc.yamlError = { message: printParseErrorCode(first.error), span: [first.offset, Math.max(first.offset + first.length, first.offset + 1)] };
  }
  if (!root || root.type !== 'object') return doc;
  const property = (node: JsonNode, key: string) => node.children?.find((p) => p.children?.[0]?.value === key)?.children?.[1];
  if (isModesFile(filePath)) {
    const list = property(root, 'customModes');
    for (const item of list?.type === 'array' ? (list.children ?? []) : []) if (item.type === 'object') doc.sections!.push(jsonSection(item, text, null, 'slug'));
  } else if (/(?:^|[\\/])(?:opencode|kilo)\.jsonc?$/i.test(filePath)) {
    for (const key of ['agent', 'mode']) {
      const map = property(root, key);
      for (const entry of map?.type === 'object' ? (map.children ?? []) : []) {
        const [name, value] = entry.children ?? [];
        if (name && value?.type === 'object') doc.sections!.push(jsonSection(value, text, { name: String(getNodeValue(name)), span: [name.offset + 1, name.offset + name.length - 1] }, null));
      }
    }
  } else {
    // A Kiro agent: the file is the agent.
    doc.sections!.push(jsonSection(root, text, null, 'name'));
  }
  return doc;
}

// --- YAML modes files, through the yaml package's tree ---

function yamlItems(text: string, value: YamlNode | null): ValueItem[] {
  if (isScalar(value) && typeof value.value === 'string' && value.range) return [{ text: value.value, span: [value.range[0], value.range[1]] }];
  if (!isSeq(value)) return [];
  return value.items.flatMap((item) => {
    const node = isSeq(item) ? item.items[0] : item;
    if (!isScalar(node) || typeof node.value !== 'string' || !node.range) return [];
    const quoted = text[node.range[0]] === '"' || text[node.range[0]] === "'";
    return [{ text: node.value, span: quoted ? ([node.range[0] + 1, node.range[1] - 1] as const) : ([node.range[0], node.range[1]] as const) }];
  });
}

function yamlFields(text: string, items: readonly Pair[]): FieldEntry[] {
  const fields: FieldEntry[] = [];
  for (const pair of items) {
    const key = pair.key as YamlNode | null;
    if (!isScalar(key) || !key.range) continue;
    const value = pair.value as YamlNode | null;
    const keySpan: Span = [key.range[0], key.range[1]];
    const valueSpan: Span = value?.range ? [value.range[0], value.range[1]] : [keySpan[1] + 1, keySpan[1] + 1];
    const end = value?.range ? lineEnd(text, Math.max(keySpan[1], value.range[1] - 1)) : lineEnd(text, keySpan[1]);
    fields.push({ key: String(key.value), keySpan, valueSpan, valueSource: text.slice(valueSpan[0], valueSpan[1]), entrySpan: [keySpan[0], end], items: yamlItems(text, value), isMapping: isMap(value) });
  }
  return fields;
}

function modesYamlDocument(text: string): AgentDocument {
  const doc: AgentDocument = { syntax: 'modes', text, frontmatter: { kind: 'none' }, fields: [], yamlError: null, sections: [] };
  const parsed = parseDocument(text, { keepSourceTokens: false, prettyErrors: false, uniqueKeys: false });
  const error = parsed.errors[0];
  if (error) doc.yamlError = { message: error.message.split('\n')[0] ?? 'not valid YAML', span: [error.pos[0], Math.max(error.pos[1], error.pos[0] + 1)] };
  const root = parsed.contents;
  if (!isMap(root)) return doc;
  const list = root.items.find((pair) => isScalar(pair.key) && pair.key.value === 'customModes')?.value;
  if (!isSeq(list)) return doc;
  const items = list.items.filter((item) => isMap(item) && item.range);
  items.forEach((item, i) => {
    if (!isMap(item) || !item.range) return;
    const fields = yamlFields(text, item.items.filter(isPair));
    const slug = fields.find((f) => f.key === 'slug')?.items[0];
    // A mode goes on to the next one: the lines below its last field (where a new key is typed) are its own.
    const next = items[i + 1]?.range?.[0];
    const end = next !== undefined ? text.lastIndexOf('\n', next) : text.length;
    doc.sections!.push({ name: slug?.text ?? null, nameSpan: slug?.span ?? [item.range[0], item.range[0] + 1], span: [item.range[0], Math.max(item.range[1], end)], fields });
  });
  return doc;
}

/** A file of agent objects, located. JSON (Kiro, opencode's config, a `.roomodes` written as JSON) or a YAML modes file. */
export function parseStructuredDocument(text: string, filePath: string): AgentDocument {
  const json = isJsonPath(filePath) || (isModesFile(filePath) && text.trimStart().startsWith('{'));
  return json ? jsonDocument(text, filePath) : modesYamlDocument(text);
}
