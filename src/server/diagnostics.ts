import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { AgentDefinition } from '../core/agents/definition';
import { parseAgentText, type ParsedAgentFile } from '../core/agents/parsing/parse';
import type { Settings } from '../core/config';
import { field, parseAgentDocument } from './agentDocument';
import type { AgentDocument, Span } from './documentModel';
import type { AgentFileKind } from './agentFileKind';
import { checkPrecedence, checkSpawns, effectiveAgents, type CatalogView } from './catalogChecks';
import { checkModel, checkOutput, checkTools, checkUnknownFields } from './fieldChecks';
import { Code, Findings, type Fix } from './findings';
import { formatKnowledge, type FormatKnowledge } from './formatKnowledge';
import { checkMcp, type McpContext } from './mcpChecks';
import { checkOtherFormat, OWN_READER_FORMATS } from './otherFormatChecks';

/**
 * One agent file's diagnostics. The core's parser says what the file means
 * and what is wrong with it; each of its warnings is put on the range it is
 * about. Then come the checks only the server makes: per-item tool and agent
 * names, the model against the user's aliases, precedence and the spawn
 * graph, which need the other agents.
 */

export interface AgentFileContext {
  filePath: string;
  kind: AgentFileKind;
  view: CatalogView;
  settings: Settings;
  /** The MCP servers around the file's folder, as last read (absent: no MCP checks). */
  mcp?: McpContext;
}

export interface Analysis {
  kind: AgentFileKind;
  /** What the file's format reads (its fields, its tool names). */
  format: FormatKnowledge;
  doc: AgentDocument;
  parsed: ParsedAgentFile;
  /** The winners with this file as the editor holds it. */
  agents: AgentDefinition[];
  diagnostics: Diagnostic[];
  mcp: McpContext | null;
}

/** A field's value, or its key when the value is empty. */
function valueOrKey(doc: AgentDocument, key: string): Span | null {
  const entry = field(doc, key);
  if (!entry) return null;
  return entry.valueSpan[1] > entry.valueSpan[0] ? entry.valueSpan : entry.keySpan;
}

function openingLine(doc: AgentDocument): Span {
  return doc.frontmatter.kind === 'none' ? [0, doc.text.indexOf('\n') === -1 ? doc.text.length : doc.text.indexOf('\n')] : doc.frontmatter.openSpan;
}

function descriptionFix(doc: AgentDocument): Fix {
  const name = field(doc, 'name');
  const text = `Describe what ${name?.items[0]?.text ?? 'this agent'} does and when to use it.`;
  const empty = field(doc, 'description');
  if (doc.syntax === 'toml') {
    if (empty) return { title: 'Add a description', span: empty.valueSpan, newText: JSON.stringify(text) };
    const after = name ? name.entrySpan[1] : 0;
    return { title: 'Add a description', span: [after, after], newText: `${after ? '\n' : ''}description = ${JSON.stringify(text)}${after ? '' : '\n'}` };
  }
  if (empty) return { title: 'Add a description', span: [empty.valueSpan[0], empty.entrySpan[1]], newText: ` ${text}` };
  const after = name ? name.entrySpan[1] : openingLine(doc)[1];
  return { title: 'Add a description', span: [after, after], newText: `\ndescription: ${text}` };
}

/** Core warnings the server reports in its own, finer way (item by item, with fixes; a TOML error at its position). */
const REPORTED_BY_SERVER = [/^invalid YAML frontmatter/, /^tools? "/, /^model "/, /^skipped [^:]*: it is not valid TOML/];

function locateCoreWarnings(doc: AgentDocument, parsed: ParsedAgentFile, findings: Findings): void {
  const opening = openingLine(doc);
  for (const { message } of parsed.warnings) {
    if (REPORTED_BY_SERVER.some((re) => re.test(message))) continue;
    const skipped = /^skipped [^:]*: (.*)$/s.exec(message);
    if (skipped) {
      const reason = skipped[1]!;
      if (reason.includes('"name"')) {
        findings.add(valueOrKey(doc, 'name') ?? opening, DiagnosticSeverity.Error, Code.missingName,
          `This agent has no name, so it is not loaded: add ${doc.syntax === 'toml' ? 'name = "…"' : '"name: …" to the frontmatter'}.`);
      } else if (reason.includes('"description"')) {
        findings.add(valueOrKey(doc, 'description') ?? field(doc, 'name')?.keySpan ?? opening, DiagnosticSeverity.Error, Code.missingDescription,
          `This agent has no description, so it is not loaded: parent agents read the description to decide when to use it.`,
          { fix: descriptionFix(doc) });
      } else if (doc.frontmatter.kind === 'unterminated') {
        findings.add(opening, DiagnosticSeverity.Error, Code.unterminatedFrontmatter, `The frontmatter has no closing "---" line, so this agent is not loaded.`);
      } else {
        findings.add(opening, DiagnosticSeverity.Error, Code.noFrontmatter, `Not loaded: ${reason}.`);
      }
      continue;
    }
    const aboutField = /^"([\w.-]+)" /.exec(message);
    const span = aboutField ? valueOrKey(doc, aboutField[1]!) : null;
    findings.add(span ?? opening, DiagnosticSeverity.Warning, aboutField ? Code.invalidValue : Code.loadWarning, message);
  }
}

export function analyseAgentFile(document: TextDocument, context: AgentFileContext): Analysis {
  const text = document.getText();
  const doc = parseAgentDocument(text, context.filePath);
  const parsed = parseAgentText(text, { filePath: context.filePath, source: context.kind.source, family: context.kind.family });
  const findings = new Findings(document);
  const format = formatKnowledge(context.kind.family, context.filePath);
  if (OWN_READER_FORMATS.includes(format.format)) {
    // The readers of these formats say what is wrong in their home tool's terms; the checks put it in place.
    checkOtherFormat(doc, { format, parsed, view: context.view }, findings);
    const own = parsed.definition;
    const agents = effectiveAgents(context.view, own);
    checkMcp(doc, format.format, own, context.mcp ?? null, findings);
    const diagnostics = findings.list.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
    return { kind: context.kind, format, doc, parsed, agents, diagnostics, mcp: context.mcp ?? null };
  }
  if (doc.yamlError) {
    findings.add(doc.yamlError.span, DiagnosticSeverity.Error, Code.yamlSyntax,
      doc.syntax === 'toml'
        ? `Invalid TOML: ${doc.yamlError.message}. Codex, and Subagents, cannot load this agent until it is fixed.`
        : `Invalid YAML: ${doc.yamlError.message}. Subagents reads this frontmatter line by line instead ("key: everything after the colon"); quote the value to make it valid.`);
  }
  locateCoreWarnings(doc, parsed, findings);
  checkUnknownFields(doc, format, findings);
  checkTools(doc, format, findings);
  checkModel(doc, context.settings, findings);
  const own = parsed.definition;
  checkMcp(doc, format.format, own, context.mcp ?? null, findings);
  if (own) checkOutput(doc, own.output, findings);
  const agents = effectiveAgents(context.view, own);
  if (own) checkPrecedence(doc, own, context.view, findings);
  checkSpawns(doc, format, own, context.view, agents, context.settings, findings);
  const diagnostics = findings.list.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return { kind: context.kind, format, doc, parsed, agents, diagnostics, mcp: context.mcp ?? null };
}
