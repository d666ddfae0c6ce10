import { DiagnosticSeverity } from 'vscode-languageserver';
import { isForeignModel, modelEffect } from '../core/agents/interpretation/modelNames';
import { canonicalToolNames } from '../core/agents/interpretation/toolNames';
import { toolPattern } from '../core/agents/mcpServers/toolPatterns';
import type { Settings } from '../core/config';
import { outputSchemaProblem } from '../core/engine/loop/structuredOutput';
import { isSpawnToolName } from '../protocol/tools';
import { field } from './agentDocument';
import type { AgentDocument, FieldEntry, Span, ValueItem } from './documentModel';
import { Code, type Findings } from './findings';
import type { FormatKnowledge } from './formatKnowledge';

/**
 * Checks of one file's own fields, beyond what the core's parser warns
 * about: fields the runtime does not use, tool names item by item, the
 * model against the user's aliases, the output schema.
 */

/** `Bash(git:*)`, `Task(a, b)`: a tool name with an argument. */
const PATTERN = /^([^()\s]+)\s*\((.*)\)$/s;

export interface ToolItem {
  /** The tool name without its argument. */
  base: string;
  baseSpan: Span;
  /** Agent names of a `Task(a, b)` / `Agent(a)` pattern, with their spans. */
  targets: ValueItem[];
}

/** A tool entry split into its name and, for the spawn tool, the agents its pattern names. */
export function toolItem(item: ValueItem, text: string): ToolItem {
  const source = text.slice(item.span[0], item.span[1]);
  const pattern = PATTERN.exec(source);
  if (!pattern) return { base: item.text, baseSpan: item.span, targets: [] };
  const base = pattern[1]!;
  const baseSpan: Span = [item.span[0], item.span[0] + base.length];
  const mapped = canonicalToolNames(base);
  if (!mapped?.some(isSpawnToolName)) return { base, baseSpan, targets: [] };
  const open = item.span[0] + source.indexOf('(') + 1;
  const targets: ValueItem[] = [];
  let from = open;
  const close = item.span[0] + source.lastIndexOf(')');
  for (let i = open; i <= close; i++) {
    if (i === close || text[i] === ',') {
      let start = from;
      let end = i;
      while (start < end && /\s/.test(text[start]!)) start++;
      while (end > start && /\s/.test(text[end - 1]!)) end--;
      if (end > start) targets.push({ text: text.slice(start, end), span: [start, end] });
      from = i + 1;
    }
  }
  return { base, baseSpan, targets };
}

export function checkUnknownFields(doc: AgentDocument, format: FormatKnowledge, findings: Findings): void {
  const known = format.fields.map((f) => f.field as string);
  for (const entry of doc.fields) {
    if (known.includes(entry.key)) continue;
    findings.unknownName(entry.keySpan, DiagnosticSeverity.Information, Code.unknownField, entry.key, known,
      (didYouMean) => `"${entry.key}" is not a field Subagents uses; it is kept but has no effect here.${didYouMean}`,
      (x) => `Rename the field to "${x}"`);
  }
}

export function checkTools(doc: AgentDocument, format: FormatKnowledge, findings: Findings): void {
  const known = format.toolNames;
  for (const key of ['tools', 'disallowedTools']) {
    const entry = field(doc, key);
    if (!entry) continue;
    entry.items.forEach((item, index) => {
      if (item.text === '*') return;
      const tool = toolItem(item, doc.text);
      if (format.toolsFor(tool.base) || toolPattern(tool.base)) return;
      findings.unknownName(tool.baseSpan, DiagnosticSeverity.Warning, Code.unknownTool, tool.base, known,
        (didYouMean) => `Unknown tool "${tool.base}": Subagents ignores it.${didYouMean} Known tools: ${known.join(', ')}.`,
        (x) => `Change to "${x}"`,
        // Nothing close to correct it to: the fix takes it out of the list, which is what Subagents does anyway.
        { title: `Remove "${tool.base}" from ${key}`, span: removalSpan(entry.items, index, doc.text), newText: '' });
    });
  }
}

/** An item's span with its quotes, when it is quoted. */
function withQuotes(span: Span, text: string): Span {
  const before = text[span[0] - 1];
  return (before === '"' || before === "'") && text[span[1]] === before ? [span[0] - 1, span[1] + 1] : span;
}

/**
 * What to delete to drop item `index` from its list and leave the list well
 * formed: a YAML block item's whole line; else the item (quotes included)
 * with the separator after it, or before it when it is the last.
 */
export function removalSpan(items: readonly ValueItem[], index: number, text: string): Span {
  const item = withQuotes(items[index]!.span, text);
  const lineStart = text.lastIndexOf('\n', item[0] - 1) + 1;
  if (/^\s*-\s*$/.test(text.slice(lineStart, item[0]))) {
    const lineEnd = text.indexOf('\n', item[1]);
    return [lineStart, lineEnd === -1 ? text.length : lineEnd + 1];
  }
  const next = items[index + 1];
  if (next) return [item[0], withQuotes(next.span, text)[0]];
  const previous = items[index - 1];
  if (previous) return [withQuotes(previous.span, text)[1], item[1]];
  return item;
}

/** Aliases a model may name that run: the user's own (`subagents.modelAliases`, the built-in ones included), unless mapped to another provider's model. */
export function modelAliases(settings: Settings): string[] {
  return Object.entries(settings.modelAliases)
    .filter(([, id]) => !isForeignModel(id))
    .map(([alias]) => alias);
}

function modelValue(entry: FieldEntry): { text: string; span: Span } | null {
  const item = entry.items.length === 1 ? entry.items[0]! : null;
  return item && item.text ? { text: item.text.trim(), span: item.span } : null;
}

/**
 * A model that does not run as written: the same sentence as the hover and
 * the Agents view (modelEffect), as a warning; an unknown name near an alias
 * offers that alias.
 */
export function checkModel(doc: AgentDocument, settings: Settings, findings: Findings): void {
  const entry = field(doc, 'model');
  const model = entry && modelValue(entry);
  if (!model) return;
  const effect = modelEffect(model.text, settings.modelAliases);
  if (effect.runs) return;
  const mapped = settings.modelAliases[model.text] ?? settings.modelAliases[model.text.toLowerCase()];
  if (mapped !== undefined || isForeignModel(model.text)) {
    findings.add(model.span, DiagnosticSeverity.Warning, Code.foreignModel, effect.text);
    return;
  }
  findings.unknownName(model.span, DiagnosticSeverity.Warning, Code.unknownModel, model.text, modelAliases(settings), (didYouMean) => `${effect.text}${didYouMean}`, (x) => `Change to "${x}"`);
}

export function checkOutput(doc: AgentDocument, output: unknown, findings: Findings): void {
  const entry = field(doc, 'output');
  if (!entry || output === null || output === undefined) return;
  const problem = outputSchemaProblem(output);
  if (problem) findings.add(entry.valueSpan[1] > entry.valueSpan[0] ? entry.valueSpan : entry.keySpan, DiagnosticSeverity.Warning, Code.invalidOutput, `"output" is ignored: ${problem}.`);
}
