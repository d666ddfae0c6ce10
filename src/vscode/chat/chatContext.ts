import path from 'node:path';
import * as vscode from 'vscode';

/**
 * The chat references of a request (`#file`, a selection, `#codebase`-style
 * references that resolve to files or locations, plain values) as context
 * for the agent's first user message. Files come from their open documents
 * when they have one, so unsaved edits are what the agent sees; each is
 * capped, so a large attachment cannot take the whole context window.
 */

const MAX_FILE_CHARS = 40_000;
const MAX_TOTAL_CHARS = 120_000;

function relative(uri: vscode.Uri): string {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  return folder ? path.relative(folder.uri.fsPath, uri.fsPath) || path.basename(uri.fsPath) : uri.fsPath;
}

async function documentText(uri: vscode.Uri): Promise<string | null> {
  // An open buffer first: its unsaved edits count, and an untitled one has no file at all.
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.type & vscode.FileType.Directory) {
      const entries = await vscode.workspace.fs.readDirectory(uri);
      return entries.map(([name, type]) => (type & vscode.FileType.Directory ? `${name}/` : name)).join('\n');
    }
  } catch {
    // No file system serves it (a virtual document): a document provider may.
  }
  try {
    return (await vscode.workspace.openTextDocument(uri)).getText();
  } catch {
    return null;
  }
}

function cap(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[… ${text.length - max} more characters not included]` : text;
}

async function describe(reference: vscode.ChatPromptReference): Promise<string | null> {
  const { value } = reference;
  if (value instanceof vscode.Uri) {
    const text = await documentText(value);
    return text === null ? null : `<file path="${relative(value)}">\n${cap(text, MAX_FILE_CHARS)}\n</file>`;
  }
  if (value instanceof vscode.Location) {
    try {
      const doc = await vscode.workspace.openTextDocument(value.uri);
      const { start, end } = value.range;
      const excerpt = doc.getText(new vscode.Range(start.line, 0, end.line, doc.lineAt(Math.min(end.line, doc.lineCount - 1)).text.length));
      return `<selection path="${relative(value.uri)}" lines="${start.line + 1}-${end.line + 1}">\n${cap(excerpt, MAX_FILE_CHARS)}\n</selection>`;
    } catch {
      return null;
    }
  }
  if (typeof value === 'string' && value.trim()) {
    return `<context name="${reference.id}">\n${cap(value, MAX_FILE_CHARS)}\n</context>`;
  }
  return null;
}

/** The task with the attached context after it; the task alone when nothing was attached. */
export async function promptWithReferences(task: string, references: readonly vscode.ChatPromptReference[]): Promise<{ prompt: string; attached: number }> {
  const blocks: string[] = [];
  let total = 0;
  // References come last-in-prompt first; the agent reads them in the order the user wrote them.
  for (const reference of [...references].reverse()) {
    const block = await describe(reference);
    if (!block || total + block.length > MAX_TOTAL_CHARS) continue;
    total += block.length;
    blocks.push(block);
  }
  if (blocks.length === 0) return { prompt: task, attached: 0 };
  return { prompt: `${task}\n\nThe user attached this context:\n\n${blocks.join('\n\n')}`, attached: blocks.length };
}
