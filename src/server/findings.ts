import { closest, distance } from 'fastest-levenshtein';
import type { Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Range, TextEdit } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Span } from './documentModel';

/**
 * What the checks report, and the helpers they share: the diagnostic codes
 * (the quick fixes and the client's de-duplication key on them), the data a
 * fix needs, and "did you mean" suggestions.
 */

export const SOURCE = 'Subagents';

export const Code = {
  noFrontmatter: 'no-frontmatter',
  unterminatedFrontmatter: 'unterminated-frontmatter',
  yamlSyntax: 'yaml-syntax',
  missingName: 'missing-name',
  missingDescription: 'missing-description',
  invalidValue: 'invalid-value',
  loadWarning: 'load-warning',
  unknownField: 'unknown-field',
  unknownTool: 'unknown-tool',
  unknownModel: 'unknown-model',
  foreignModel: 'foreign-model',
  invalidOutput: 'invalid-output',
  unknownAgent: 'unknown-agent',
  disabledAgent: 'disabled-agent',
  shadowed: 'shadowed',
  shadowsBundled: 'shadows-bundled',
  spawnCycle: 'spawn-cycle',
  spawnDepth: 'spawn-depth',
} as const;
export type Code = (typeof Code)[keyof typeof Code];

/** A quick fix, worked out with the diagnostic and carried on it as its `data`. */
export interface Fix {
  title: string;
  span: Span;
  newText: string;
}

export interface FindingData {
  fix: { title: string; edit: TextEdit };
}

export class Findings {
  readonly list: Diagnostic[] = [];

  constructor(private readonly document: TextDocument) {}

  add(
    span: Span,
    severity: DiagnosticSeverity,
    code: Code,
    message: string,
    extra: { fix?: Fix; related?: DiagnosticRelatedInformation[] } = {},
  ): void {
    const fix = extra.fix;
    const data: FindingData | undefined = fix && { fix: { title: fix.title, edit: { range: this.range(fix.span), newText: fix.newText } } };
    this.list.push({
      range: this.range(span),
      severity,
      code,
      source: SOURCE,
      message,
      ...(data ? { data } : {}),
      ...(extra.related ? { relatedInformation: extra.related } : {}),
    });
  }

  /**
   * A name that is not one of `known`: when a known name is close, the
   * message says "Did you mean …" (through `message`) and the fix puts it in.
   */
  unknownName(
    span: Span,
    severity: DiagnosticSeverity,
    code: Code,
    name: string,
    known: readonly string[],
    message: (didYouMean: string) => string,
    fixTitle: (suggestion: string) => string,
    /** The fix when no known name is close (removing the name, say). */
    otherwise?: Fix,
  ): void {
    const suggestion = nearest(name, known);
    const fix = suggestion ? { title: fixTitle(suggestion), span, newText: suggestion } : otherwise;
    this.add(span, severity, code, message(suggestion ? ` Did you mean "${suggestion}"?` : ''), fix ? { fix } : {});
  }

  private range(span: Span): Range {
    return { start: this.document.positionAt(span[0]), end: this.document.positionAt(span[1]) };
  }
}

/** The known name closest to `name`, when it is close enough to be a typo. */
export function nearest(name: string, known: readonly string[]): string | undefined {
  if (known.length === 0 || !name) return undefined;
  const lower = name.toLowerCase();
  const exactCase = known.find((k) => k.toLowerCase() === lower);
  if (exactCase) return exactCase;
  const best = closest(lower, known.map((k) => k.toLowerCase()));
  const match = known.find((k) => k.toLowerCase() === best)!;
  return distance(lower, best) <= Math.max(2, Math.floor(name.length / 3)) ? match : undefined;
}

/** A list for a message: all of a short list, the first ones and a count of a long one. */
export function listed(names: readonly string[], max = 12): string {
  if (names.length === 0) return '(none)';
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}
