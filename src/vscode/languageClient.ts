import path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type DocumentSelector, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

/**
 * Starts the agent-file language server (dist/server.js) over IPC and keeps
 * it told about workspace trust.
 *
 * VS Code itself checks the headers of the agent files it knows (Copilot's
 * `.github/agents`, `.claude/agents`: language `chatagent`): YAML syntax,
 * attributes it does not support, tools and models it does not know. Where
 * it already says a thing at a spot, our diagnostic of the same kind there
 * is left out, so nothing shows twice; what only we know (precedence, the
 * spawn graph, this runtime's models) always shows. Its completions there
 * (Claude's tool names, model aliases) are kept, and ours of the same label
 * left out, so the list has each name once.
 */

/** Every place discovery reads agent files from: family, user and plugin `agents/` dirs, Copilot's suffixes, Codex's TOML; and team files. */
export const AGENT_FILE_SELECTOR: DocumentSelector = [
  { scheme: 'file', pattern: '**/agents/**/*.md' },
  { scheme: 'file', pattern: '**/{.subagents,subagents}/teams/*.md' },
  { scheme: 'file', pattern: '**/*.{agent,chatmode}.md' },
  { scheme: 'file', pattern: '**/.codex/agents/**/*.toml' },
  // opencode's and Kilo's other folders, Factory's droids, Kiro's JSON agents.
  { scheme: 'file', pattern: '**/{.opencode,.kilo,.kilocode,opencode,kilo}/{agent,mode,modes}/**/*.md' },
  { scheme: 'file', pattern: '**/.factory/droids/*.md' },
  { scheme: 'file', pattern: '**/.kiro/agents/*.json' },
  // Files holding several agents: custom modes, opencode's and Kilo's config files.
  { scheme: 'file', pattern: '**/{.roomodes,.kilocodemodes,custom_modes.yaml,opencode.json,opencode.jsonc,kilo.json,kilo.jsonc}' },
];

const OUR_SOURCE = 'Subagents';

/** Our kinds of diagnostic that VS Code's own checks may also report, and how to tell the same spot. */
const SHARED_KINDS: Record<string, (ours: vscode.Diagnostic, theirs: vscode.Diagnostic) => boolean> = {
  // Two YAML parsers rarely agree on the column, and may disagree on the line by one.
  'yaml-syntax': (ours, theirs) => theirs.severity === vscode.DiagnosticSeverity.Error && Math.abs(theirs.range.start.line - ours.range.start.line) <= 1,
  'unknown-field': (ours, theirs) => theirs.range.intersection(ours.range) !== undefined,
  'unknown-tool': (ours, theirs) => theirs.range.intersection(ours.range) !== undefined,
  'unknown-model': (ours, theirs) => theirs.range.intersection(ours.range) !== undefined,
  'invalid-value': (ours, theirs) => theirs.range.intersection(ours.range) !== undefined,
  'missing-name': (ours, theirs) => theirs.range.intersection(ours.range) !== undefined,
};

function codeOf(diagnostic: vscode.Diagnostic): string {
  const code = diagnostic.code;
  return typeof code === 'object' ? String(code.value) : String(code ?? '');
}

/** Our diagnostics without those VS Code (or another extension) already shows at the same spot. */
export function withoutDuplicates(ours: readonly vscode.Diagnostic[], all: readonly vscode.Diagnostic[]): vscode.Diagnostic[] {
  // Hints are not listed in the Problems view; a hint there does not make ours a repeat.
  const theirs = all.filter((d) => d.source !== OUR_SOURCE && d.severity !== vscode.DiagnosticSeverity.Hint);
  return ours.filter((d) => {
    const same = SHARED_KINDS[codeOf(d)];
    return !same || !theirs.some((t) => same(d, t));
  });
}

/** Compared by content: the collection hands back copies, and setting an equal list again would fire another change. */
function sameList(a: readonly vscode.Diagnostic[] | undefined, b: readonly vscode.Diagnostic[]): boolean {
  const key = (d: vscode.Diagnostic) => `${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${codeOf(d)} ${d.message}`;
  return (a?.length ?? 0) === b.length && b.every((d, i) => a?.[i] !== undefined && key(a[i]!) === key(d));
}

function labelOf(item: vscode.CompletionItem): string {
  return typeof item.label === 'string' ? item.label : item.label.label;
}

/**
 * Marks the one request of ours that otherCompletions causes (the command
 * asks every provider), so it can be answered with nothing. A trigger
 * character no one types, rather than a flag: a flag held for the whole call
 * would also silence real requests made meanwhile, as when a typed trigger
 * character and Ctrl+Space overlap.
 */
const ASKING_OTHERS = '\u2063';

/** The labels the other providers offer at a position. */
async function otherCompletions(document: vscode.TextDocument, position: vscode.Position): Promise<Set<string>> {
  const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', document.uri, position, ASKING_OTHERS);
  return new Set(list.items.map(labelOf));
}

export async function startLanguageClient(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Promise<LanguageClient> {
  const module = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  /** What the server last sent per document, before de-duplication. */
  const received = new Map<string, vscode.Diagnostic[]>();
  const clientOptions: LanguageClientOptions = {
    documentSelector: AGENT_FILE_SELECTOR,
    // Asked at every start: a server restarted after trust was granted (a crash) starts trusted.
    initializationOptions: () => ({ trusted: vscode.workspace.isTrusted, editorStorage: path.dirname(context.globalStorageUri.fsPath) }),
    outputChannel: log,
    middleware: {
      handleDiagnostics: (uri, diagnostics, next) => {
        received.set(uri.toString(), diagnostics);
        next(uri, withoutDuplicates(diagnostics, vscode.languages.getDiagnostics(uri)));
      },
      provideCompletionItem: async (document, position, context, token, next) => {
        if (context.triggerCharacter === ASKING_OTHERS) return [];
        const ours = await next(document, position, context, token);
        // Only VS Code's own agent-file language gets a second list to merge with, and only when
        // every provider is asked: a typed trigger character of ours reaches ours alone.
        if (!ours || document.languageId !== 'chatagent' || context.triggerKind === vscode.CompletionTriggerKind.TriggerCharacter) return ours;
        const taken = await otherCompletions(document, position);
        const items = Array.isArray(ours) ? ours : ours.items;
        const kept = items.filter((item) => !taken.has(labelOf(item)));
        return Array.isArray(ours) ? kept : new vscode.CompletionList(kept, ours.isIncomplete);
      },
    },
  };
  const client = new LanguageClient('subagents.agentFiles', 'Subagents Agent Files', serverOptions, clientOptions);
  context.subscriptions.push(
    client,
    // VS Code's own checks may report after ours: look again whenever another source changes.
    vscode.languages.onDidChangeDiagnostics((event) => {
      for (const uri of event.uris) {
        const ours = received.get(uri.toString());
        const collection = client.diagnostics;
        if (!ours || !collection) continue;
        const kept = withoutDuplicates(ours, vscode.languages.getDiagnostics(uri));
        if (!sameList(collection.get(uri), kept)) collection.set(uri, kept);
      }
    }),
    vscode.workspace.onDidCloseTextDocument((document) => received.delete(document.uri.toString())),
    // A server that is not running cannot be told, and need not be: it is told when it starts.
    vscode.workspace.onDidGrantWorkspaceTrust(() =>
      client.sendNotification('subagents/setTrusted', { trusted: true }).catch((error: unknown) => log.info(`The agent-file server was not told of the new trust: ${String(error)}`)),
    ),
  );
  await client.start();
  log.info('Agent-file language server started.');
  return client;
}
