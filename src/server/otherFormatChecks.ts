import { DiagnosticSeverity } from 'vscode-languageserver';
import type { AgentDefinition, AgentFormat } from '../core/agents/definition';
import type { ParsedAgentFile } from '../core/agents/parsing/parse';
import { checkPrecedence, type CatalogView } from './catalogChecks';
import type { AgentDocument, AgentSection, FieldEntry, Span } from './documentModel';
import { Code, type Findings } from './findings';
import type { FormatKnowledge } from './formatKnowledge';

/**
 * The diagnostics of the formats read by readers of their own (Cursor to
 * Factory). Their readers already say everything a file gets wrong, in the
 * home tool's terms (a key it does not read, a name it does not know, a
 * value it refuses); here each of those warnings is put on the text it is
 * about: a field, a list item, a mode of a modes file, an agent of an
 * opencode config. The field names of each agent are checked against the
 * format, and precedence against the other agents, as for every file.
 */

/** Formats whose files the server checks here rather than through the runtime's shared fields. */
export const OWN_READER_FORMATS: readonly AgentFormat[] = ['cursor', 'opencode', 'kilo', 'roo', 'qwen', 'kiro', 'factory'];

/** Every agent of a file, as the editor holds it: its section (or the whole frontmatter) and its definition. */
interface Located {
  fields: FieldEntry[];
  /** Where the agent is when no field is meant: its name, or the file's first line. */
  anchor: Span;
  section: AgentSection | null;
}

function quoted(message: string, lead: RegExp): string[] {
  const found = lead.exec(message);
  if (!found) return [];
  return [...found[1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

function fieldSpan(entry: FieldEntry, value: boolean): Span {
  return value && entry.valueSpan[1] > entry.valueSpan[0] ? entry.valueSpan : entry.keySpan;
}

/** The text a reader's warning is about, within one agent (its fields). */
function spanInAgent(message: string, agent: Located): Span {
  const byKey = (key: string) => agent.fields.find((f) => f.key === key);
  // An agent the home tool refuses as a whole: on its name.
  if (/^(?:mode|agent) "[^"]+" is not loaded/.test(message)) return agent.anchor;
  // `tool "x" is …`, `tools "x", "y" are …`: the items.
  const tools = quoted(message, /^tools? ((?:"[^"]+"(?:, )?)+) (?:is|are) /);
  if (tools.length > 0) {
    for (const key of ['tools', 'disallowedTools']) {
      const item = byKey(key)?.items.find((i) => tools.includes(i.text));
      if (item) return item.span;
    }
    return byKey('tools')?.keySpan ?? agent.anchor;
  }
  // `field "k" has …`, `fields "a", "b" have …` (a mode's `slug.key` too): the first key.
  const fields = quoted(message, /^fields? ((?:"[^"]+"(?:, )?)+) ha(?:s|ve) /).map((k) => k.replace(/^[^.]+\.(?=[^.]+$)/, ''));
  if (fields.length > 0) {
    const entry = fields.map((k) => byKey(k.split('.')[0]!)).find(Boolean);
    return entry ? entry.keySpan : agent.anchor;
  }
  const model = /^model "|^none of the models /.test(message) ? byKey('model') : undefined;
  if (model) return fieldSpan(model, true);
  const hook = /^hook event "([^"]+)"/.exec(message)?.[1] ?? /^a "([^"]+)" hook/.exec(message)?.[1];
  if (hook) return byKey('hooks')?.keySpan ?? agent.anchor;
  const resource = /^resource "([^"]+)"/.exec(message)?.[1];
  if (resource) return byKey('resources')?.items.find((i) => i.text === resource)?.span ?? agent.anchor;
  // `"key" must be …`, `"key" is ignored …`, and a mode's `mode "x": "key" …`.
  const key = /(?:^|: )"([\w.-]+)" (?:must|is|may|has)/.exec(message)?.[1];
  const entry = key ? byKey(key.split('.')[0]!) : undefined;
  if (entry) return fieldSpan(entry, true);
  const unknownGroup = /"([\w-]+)" is not a tool group/.exec(message)?.[1];
  if (unknownGroup) return byKey('groups')?.items.find((i) => i.text === unknownGroup)?.span ?? agent.anchor;
  return agent.anchor;
}

/** The agent of a sectioned file a warning names (`mode "docs": …`, `agent "review" is not loaded …`), else the one with the fields it names. */
function agentOf(message: string, agents: readonly Located[]): Located | undefined {
  const named = /^(?:mode|agent) "([^"]+)"/.exec(message)?.[1];
  if (named) return agents.find((a) => a.section?.name === named) ?? agents[0];
  const dotted = /^fields? "([^".]+)\./.exec(message)?.[1];
  if (dotted) return agents.find((a) => a.section?.name === dotted);
  const fields = quoted(message, /^fields? ((?:"[^"]+"(?:, )?)+) ha(?:s|ve) /);
  if (fields.length > 0) return agents.find((a) => a.fields.some((f) => fields.includes(f.key))) ?? agents[0];
  return agents[0];
}

function firstLine(doc: AgentDocument): Span {
  const end = doc.text.indexOf('\n');
  return [0, end === -1 ? doc.text.length : end];
}

export interface OtherFormatContext {
  format: FormatKnowledge;
  parsed: ParsedAgentFile;
  view: CatalogView;
}

/** Every diagnostic of a file in one of OWN_READER_FORMATS. */
export function checkOtherFormat(doc: AgentDocument, { format, parsed, view }: OtherFormatContext, findings: Findings): void {
  const agents: Located[] = doc.sections
    ? doc.sections.map((section) => ({ fields: section.fields, anchor: section.nameSpan, section }))
    : [{ fields: doc.fields, anchor: doc.frontmatter.kind === 'none' ? firstLine(doc) : doc.frontmatter.openSpan, section: null }];
  if (doc.yamlError) {
    const what = doc.syntax === 'json' ? 'JSON' : 'YAML';
    const refused = parsed.warnings.some((w) => /^skipped /.test(w.message));
    findings.add(doc.yamlError.span, DiagnosticSeverity.Error, Code.yamlSyntax,
      `Invalid ${what}: ${doc.yamlError.message}.${refused ? ` ${format.format === 'qwen' ? 'Qwen Code refuses' : 'The home tool cannot read'} this file, and so does Subagents: no agent of it is loaded.` : ' Subagents reads this frontmatter line by line instead ("key: everything after the colon"); quote the value to make it valid.'}`);
  }
  for (const { message } of parsed.warnings) {
    const skipped = /^skipped [^:]*: (.*)$/s.exec(message);
    if (skipped) {
      // A file the home tool refuses: on its first line (or where its syntax broke, said above).
      if (doc.yamlError && /not valid (YAML|JSON)|neither valid/.test(message)) continue;
      findings.add(agents.length === 1 ? agents[0]!.anchor : firstLine(doc), DiagnosticSeverity.Error, Code.noFrontmatter, `Not loaded: ${skipped[1]}.`);
      continue;
    }
    if (/^invalid YAML frontmatter/.test(message)) continue;
    const agent = agentOf(message, agents);
    const refused = /is not loaded|this mode is not loaded/.test(message);
    findings.add(agent ? spanInAgent(message, agent) : firstLine(doc), refused ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning, refused ? Code.invalidValue : Code.loadWarning, message);
  }
  // Each agent against the others: shadowed, or shadowing.
  const definitions = [parsed.definition, ...(parsed.siblings ?? [])].filter((d): d is AgentDefinition => d !== null);
  for (const definition of definitions) {
    const agent = agents.find((a) => a.section?.name === definition.name) ?? (agents.length === 1 ? agents[0] : undefined);
    if (!agent) continue;
    const name: FieldEntry = { key: 'name', keySpan: agent.anchor, valueSpan: agent.anchor, valueSource: definition.name, entrySpan: agent.anchor, items: [{ text: definition.name, span: agent.anchor }], isMapping: false };
    const own = agent.section ? { ...doc, fields: [name, ...agent.fields.filter((f) => f.key !== 'name')] } : doc;
    checkPrecedence(own, definition, view, findings);
  }
}
