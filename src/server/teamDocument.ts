import path from 'node:path';
import { CompletionItemKind, DiagnosticSeverity, MarkupKind, type CompletionItem, type Diagnostic } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { isMap, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import { closest } from 'fastest-levenshtein';
import type { AgentDefinition } from '../core/agents/definition';
import { splitFrontmatter } from '../core/agents/parsing/frontmatter';
import { userTeamsDir } from '../core/agents/teams/teamCatalog';
import { MEMBER_FIELDS, parseTeamFile, TEAM_FIELDS, type TeamProblem } from '../core/agents/teams/teamFile';
import type { Span } from './documentModel';
import { SOURCE } from './findings';

/**
 * Team files (`.subagents/teams/<name>.md`) in the language server: the
 * core's parser says what is wrong with one (each problem put on the field
 * it is about), the server adds what needs the agents — a lead or member
 * agent that does not exist — and completes agent names for `lead` and a
 * member's `agent`, and the closed values of `isolation`.
 */

/** Whether `filePath` is a team file: `.subagents/teams/*.md` of a project, or of the user's config folder. */
export function isTeamFile(filePath: string, home: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (!filePath.toLowerCase().endsWith('.md')) return false;
  const dir = path.dirname(filePath);
  return (path.basename(dir) === 'teams' && path.basename(path.dirname(dir)) === '.subagents') || dir === userTeamsDir(home, env);
}

/** A located value: where a `lead` or a member's `agent` is written. */
interface Located {
  key: 'lead' | 'agent' | 'isolation' | 'model' | string;
  text: string;
  span: Span;
}

interface TeamLayout {
  /** Top-level keys with their spans. */
  keys: Map<string, Span>;
  /** Every `lead`, member `agent`, `isolation` and `model` value. */
  values: Located[];
  /** Where the frontmatter is (absent: none). */
  frontmatter: Span | null;
}

/** Where the team file's keys and values are, from its YAML tree (empty when it cannot be parsed). */
function layout(text: string): TeamLayout {
  const result: TeamLayout = { keys: new Map(), values: [], frontmatter: null };
  const split = splitFrontmatter(text);
  if (split.kind !== 'ok') return result;
  const start = text.indexOf('\n') + 1;
  result.frontmatter = [start, start + split.frontmatter.length];
  const doc = parseDocument(split.frontmatter, { prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length || !isMap(doc.contents)) return result;
  const at = (node: YamlNode | null | undefined): Span | null => (node?.range ? [start + node.range[0], start + node.range[1]] : null);
  const value = (key: string, node: YamlNode | null | undefined) => {
    const span = at(node);
    if (span && isScalar(node)) result.values.push({ key, text: String(node.value ?? ''), span });
  };
  for (const pair of doc.contents.items) {
    const key = pair.key as YamlNode;
    if (!isScalar(key)) continue;
    const name = String(key.value);
    const keySpan = at(key);
    if (keySpan) result.keys.set(name, keySpan);
    if (name === 'lead' || name === 'isolation') value(name, pair.value as YamlNode);
    if (name === 'members' && isSeq(pair.value)) {
      for (const item of pair.value.items) {
        if (!isMap(item)) continue;
        for (const memberPair of item.items) {
          const memberKey = memberPair.key as YamlNode;
          if (isScalar(memberKey) && ['agent', 'isolation', 'model'].includes(String(memberKey.value))) value(String(memberKey.value), memberPair.value as YamlNode);
        }
      }
    }
  }
  return result;
}

/** The team file's diagnostics: its parser's problems, and agents that are not there. */
export function teamDiagnostics(document: TextDocument, filePath: string, agents: readonly AgentDefinition[]): Diagnostic[] {
  const text = document.getText();
  const where = layout(text);
  const { team, problems } = parseTeamFile(text, filePath, 'project');
  const range = (span: Span) => ({ start: document.positionAt(span[0]), end: document.positionAt(span[1]) });
  const firstLine: Span = [0, Math.max(0, text.indexOf('\n'))];
  const spanOf = (p: TeamProblem): Span => (p.key && where.keys.get(p.key)) || where.frontmatter || firstLine;
  const diagnostics: Diagnostic[] = problems.map((p) => ({
    range: range(spanOf(p)),
    severity: p.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    message: p.message,
    source: SOURCE,
  }));
  if (!team) return diagnostics;
  const names = agents.map((a) => a.name);
  for (const located of where.values) {
    if ((located.key !== 'lead' && located.key !== 'agent') || !located.text || names.includes(located.text)) continue;
    const near = names.length ? closest(located.text, names) : null;
    diagnostics.push({
      range: range(located.span),
      severity: DiagnosticSeverity.Error,
      message: `No agent "${located.text}" is defined here${near ? `; did you mean "${near}"?` : ''} The team cannot run until it is.`,
      source: SOURCE,
    });
  }
  return diagnostics;
}

function agentItems(agents: readonly AgentDefinition[], span: Span, document: TextDocument): CompletionItem[] {
  const range = { start: document.positionAt(span[0]), end: document.positionAt(span[1]) };
  return agents.map((agent, i) => ({
    label: agent.name,
    kind: CompletionItemKind.Module,
    detail: agent.source,
    documentation: { kind: MarkupKind.Markdown, value: `**${agent.name}**\n\n${agent.description.trim() || '_(no description)_'}` },
    sortText: String(i).padStart(5, '0'),
    textEdit: { range, newText: agent.name },
  }));
}

/**
 * Completion in a team file: agent names after `lead:` and a member's
 * `agent:`, `worktree`/`none` after `isolation:`, and the field names on a
 * new line. Read from the line being typed, which is often not valid YAML
 * yet.
 */
export function teamCompletions(document: TextDocument, offset: number, agents: readonly AgentDefinition[]): CompletionItem[] {
  const text = document.getText();
  const split = splitFrontmatter(text);
  if (split.kind === 'none') return [];
  const start = text.indexOf('\n') + 1;
  const end = split.kind === 'ok' ? start + split.frontmatter.length : text.length;
  if (offset < start || offset > end) return [];
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const line = text.slice(lineStart, offset);
  const value = /^(\s*(?:-\s+)?)([A-Za-z]+)\s*:\s*(["']?)([\w.:-]*)$/.exec(line);
  if (value) {
    const key = value[2]!;
    const span: Span = [offset - value[4]!.length, offset];
    const indented = value[1]!.length > 0;
    if (key === 'lead' && !indented) return agentItems(agents, span, document);
    if (key === 'agent' && indented) return agentItems(agents, span, document);
    if (key === 'isolation') return ['worktree', 'none'].map((v) => ({ label: v, kind: CompletionItemKind.EnumMember, textEdit: { range: { start: document.positionAt(span[0]), end: document.positionAt(span[1]) }, newText: v } }));
    return [];
  }
  const newKey = /^(\s*)(-\s+)?([A-Za-z]*)$/.exec(line);
  if (!newKey) return [];
  const fields = newKey[1]!.length > 0 || newKey[2] ? MEMBER_FIELDS : TEAM_FIELDS;
  const span: Span = [offset - newKey[3]!.length, offset];
  return fields.map((f) => ({ label: f, kind: CompletionItemKind.Property, textEdit: { range: { start: document.positionAt(span[0]), end: document.positionAt(span[1]) }, newText: `${f}: ` } }));
}
