import { CodeActionKind, type CodeAction, type Diagnostic } from 'vscode-languageserver';
import { SOURCE, type FindingData } from './findings';

/** Quick fixes: each of our diagnostics that has one carries it, worked out when the file was checked. */
export function quickFixes(uri: string, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    const fix = diagnostic.source === SOURCE ? (diagnostic.data as FindingData | undefined)?.fix : undefined;
    if (!fix) continue;
    actions.push({
      title: fix.title,
      kind: CodeActionKind.QuickFix,
      diagnostics: [diagnostic],
      isPreferred: true,
      edit: { changes: { [uri]: [fix.edit] } },
    });
  }
  return actions;
}
