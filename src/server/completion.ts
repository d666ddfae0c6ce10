import { CompletionItemKind, MarkupKind, type CompletionItem, type Range } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { AgentDefinition } from '../core/agents/definition';
import { isForeignModel } from '../core/agents/interpretation/modelNames';
import type { Settings } from '../core/config';
import { field } from './agentDocument';
import type { Span } from './documentModel';
import { describeSource } from './catalogChecks';
import { cursorContext } from './cursor';
import type { Analysis } from './diagnostics';
import type { FormatKnowledge } from './formatKnowledge';
import { MCP_FIELD_NAMES } from '../core/agents/mcpServers/agentField';
import { mcpServerNameCompletions, mcpToolCompletions } from './mcpChecks';

/**
 * Completion in an agent file's frontmatter: field names with their docs,
 * then per field its values: tool names, agent names (in `spawns` and inside
 * `Task(…)`), model aliases and ids, and the closed sets.
 */

export function agentDocumentation(agent: AgentDefinition): string {
  const description = agent.description.trim() || '_(no description)_';
  return `**${agent.name}** · ${describeSource(agent)}\n\n${description}\n\n\`${agent.filePath}\``;
}

function agentItems(agents: readonly AgentDefinition[], own: string | undefined, range: Range): CompletionItem[] {
  return agents
    .filter((agent) => agent.name !== own)
    .map((agent, i) => ({
      label: agent.name,
      kind: CompletionItemKind.Module,
      detail: describeSource(agent),
      documentation: { kind: MarkupKind.Markdown, value: agentDocumentation(agent) },
      // Precedence order: project agents first.
      sortText: String(i).padStart(5, '0'),
      textEdit: { range, newText: agent.name },
    }));
}

function modelItems(settings: Settings, range: Range): CompletionItem[] {
  const items: CompletionItem[] = [];
  const seen = new Set<string>();
  const add = (label: string, detail: string, doc: string) => {
    if (seen.has(label)) return;
    seen.add(label);
    items.push({ label, kind: CompletionItemKind.EnumMember, detail, documentation: { kind: MarkupKind.Markdown, value: doc }, textEdit: { range, newText: label } });
  };
  add('inherit', 'the parent agent\'s model', 'Runs on the model of the agent that spawned it (for a top-level agent, `subagents.defaultModel`).');
  // Only what runs: an alias the settings map to a Claude model, and the ids they map to.
  const runnable = Object.entries(settings.modelAliases).filter(([, id]) => !isForeignModel(id));
  for (const [alias, id] of runnable) add(alias, `→ ${id}`, `Alias from \`subagents.modelAliases\`: runs on \`${id}\`.`);
  for (const [, id] of runnable) add(id, 'model id', 'A full model id.');
  return items;
}

function valueItems(values: readonly string[], range: Range): CompletionItem[] {
  return values.map((value) => ({ label: value, kind: CompletionItemKind.EnumMember, textEdit: { range, newText: value } }));
}

export function completions(document: TextDocument, analysis: Analysis, offset: number, settings: Settings, format: FormatKnowledge): CompletionItem[] {
  const { doc } = analysis;
  const context = cursorContext(doc, offset);
  const range = (span: Span): Range => ({ start: document.positionAt(span[0]), end: document.positionAt(span[1]) });
  const own = analysis.parsed.definition?.name ?? field(doc, 'name')?.items[0]?.text;
  switch (context.kind) {
    case 'outside':
      return [];
    case 'newKey':
    case 'key': {
      const section = doc.sections?.findLast((sec) => offset > sec.span[0] && offset < sec.span[1]);
      const present = new Set((section?.fields ?? doc.fields).map((f) => f.key));
      // A JSON key goes in quotes (unless the user typed the opening one); a YAML key is followed by `: `.
      const opened = doc.text[context.span[0] - 1] === '"';
      const newKey = (key: string) =>
        doc.syntax === 'toml' ? `${key} = ` : doc.syntax === 'json' ? (opened ? key : `"${key}": `) : `${key}: `;
      return format.fields.filter((f) => !present.has(f.field) || (context.kind === 'key' && f.field === context.key)).map((f, i) => ({
        label: f.field,
        kind: CompletionItemKind.Property,
        detail: f.required ? 'required' : undefined,
        documentation: { kind: MarkupKind.Markdown, value: f.doc },
        sortText: `${f.required ? 0 : 1}${String(i).padStart(3, '0')}`,
        textEdit: { range: range(context.span), newText: context.kind === 'newKey' ? newKey(f.field) : f.field },
      }));
    }
    case 'value': {
      const at = range(context.span);
      if (format.spawnsKeys.includes(context.key)) return [...agentItems(analysis.agents, own, at), ...valueItems(['*'], at)];
      if (context.key === 'tools' || context.key === 'disallowedTools' || (format.format === 'roo' && context.key === 'groups')) {
        if (context.inSpawnPattern) return agentItems(analysis.agents, own, at);
        return [
          ...format.toolNames.map((name) => ({ label: name, kind: CompletionItemKind.Function, detail: 'Subagents tool', textEdit: { range: at, newText: name } })),
          ...mcpToolCompletions(format.format, analysis.parsed.definition, analysis.mcp, at),
        ];
      }
      if (context.key === MCP_FIELD_NAMES[format.format] && (format.format === 'claude-code' || format.format === 'oh-my-pi')) return mcpServerNameCompletions(format.format, analysis.mcp, at);
      if (context.key === 'model') return [...valueItems(format.field('model')?.values ?? [], at), ...modelItems(settings, at)];
      // opencode's and Kilo's permission maps take an action wherever a value goes.
      if (context.key === 'permission') return valueItems(['allow', 'ask', 'deny'], at);
      return valueItems(format.field(context.key)?.values ?? [], at);
    }
  }
}
