import { readFileSync } from 'node:fs';
import { MarkupKind, type Hover, type Location } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { AgentDefinition } from '../core/agents/definition';
import { modelEffect } from '../core/agents/interpretation/modelNames';
import type { Settings } from '../core/config';
import { field, parseAgentDocument } from './agentDocument';
import type { Span } from './documentModel';
import { fileUri } from './catalogChecks';
import { agentDocumentation } from './completion';
import { cursorContext, type CursorContext } from './cursor';
import type { Analysis } from './diagnostics';
import type { FormatKnowledge } from './formatKnowledge';
import { mcpHover } from './mcpChecks';

/**
 * Hover and go to definition: field docs on a field name; on an agent name
 * (`name`, `spawns`, inside `Task(…)`) its description, source and file, and
 * that file as its definition; what a tool name or a model becomes here.
 */

/** The agent a value under the cursor names, if it names one. */
function namedAgent(context: CursorContext, analysis: Analysis): AgentDefinition | undefined {
  if (context.kind !== 'value' || !context.word) return undefined;
  const names = analysis.format.spawnsKeys.includes(context.key) || context.key === 'name' || ((context.key === 'tools' || context.key === 'disallowedTools') && context.inSpawnPattern);
  return names ? analysis.agents.find((a) => a.name === context.word) : undefined;
}

function toolHover(word: string, format: FormatKnowledge): string | null {
  const base = word.replace(/\(.*$/s, '');
  const mapped = format.toolsFor(base);
  if (!mapped) return `\`${base}\` is not a tool Subagents knows; it is ignored.`;
  return mapped.length === 1 && mapped[0] === base ? `\`${base}\`: a Subagents tool.` : `\`${base}\` runs here as ${mapped.map((m) => `\`${m}\``).join(' and ')}.`;
}

/** Says what the diagnostics and the Agents view say: see modelEffect. */
function modelHover(model: string, settings: Settings): string {
  return modelEffect(model, settings.modelAliases).text;
}

export function hover(document: TextDocument, analysis: Analysis, offset: number, settings: Settings, format: FormatKnowledge): Hover | null {
  const context = cursorContext(analysis.doc, offset);
  const range = (span: Span) => ({ start: document.positionAt(span[0]), end: document.positionAt(span[1]) });
  if (context.kind === 'key') {
    const doc = format.field(context.key);
    const value = doc ? `**${doc.field}**${doc.required ? ' (required)' : ''}\n\n${doc.doc}` : `\`${context.key}\` is not a field Subagents uses.`;
    return { contents: { kind: MarkupKind.Markdown, value }, range: range(context.span) };
  }
  if (context.kind !== 'value' || !context.word) return null;
  const agent = namedAgent(context, analysis);
  let value: string | null = null;
  if (agent) value = agentDocumentation(agent);
  else if (context.key === 'tools' || context.key === 'disallowedTools' || (format.format === 'roo' && context.key === 'groups')) {
    value = context.inSpawnPattern ? null : (mcpHover(context.word, format.format, analysis.parsed.definition, analysis.mcp) ?? toolHover(context.word, format));
  }
  else if (context.key === 'model') value = modelHover(context.word, settings);
  return value ? { contents: { kind: MarkupKind.Markdown, value }, range: range(context.span) } : null;
}

/**
 * Where an agent file sets its name (`name: …`, or `name = "…"` in a Codex
 * file), located as the file is parsed; else its start (a Copilot file named
 * after itself, a file that cannot be read).
 */
function nameLine(filePath: string): number {
  let text: string;
  try {
    text = readFileSync(filePath, 'utf8');
  } catch {
    return 0;
  }
  const name = field(parseAgentDocument(text, filePath), 'name');
  return name ? text.slice(0, name.keySpan[0]).split('\n').length - 1 : 0;
}

export function definition(analysis: Analysis, offset: number): Location | null {
  const context = cursorContext(analysis.doc, offset);
  if (context.kind === 'value' && context.key === 'name') return null;
  const agent = namedAgent(context, analysis);
  if (!agent) return null;
  const line = nameLine(agent.filePath);
  return { uri: fileUri(agent.filePath), range: { start: { line, character: 0 }, end: { line, character: 0 } } };
}
