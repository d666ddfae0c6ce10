// The agent-file language server: diagnostics, completion,
// hover, go to definition and quick fixes for every file discovery reads as
// an agent definition. Started by the extension over IPC; other editors run
// `node dist/server.js --stdio`.
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CodeActionKind,
  createConnection,
  DidChangeConfigurationNotification,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type InitializeParams,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseSettings, SETTING_KEYS, type Settings } from '../core/config';
import { agentFileKind } from './agentFileKind';
import { AgentWorkspace } from './agentWorkspace';
import { quickFixes } from './codeActions';
import { completions } from './completion';
import { analyseAgentFile, type Analysis } from './diagnostics';
import type { FormatKnowledge } from './formatKnowledge';
import { definition, hover } from './hover';
import type { McpContext } from './mcpChecks';
import { McpKnowledge } from './mcpKnowledge';
import { isTeamFile, teamCompletions, teamDiagnostics } from './teamDocument';

/** What the extension passes in `initializationOptions`; other clients may pass nothing. */
interface InitializationOptions {
  /** False in an untrusted workspace (project and plugin agents are not read). Default true. */
  trusted?: boolean;
  /** Settings for clients that cannot answer `workspace/configuration` (same keys as package.json, without `subagents.`). */
  settings?: Record<string, unknown>;
  /** The editor's `User/globalStorage` folder (Roo Code's and Kilo Code's global modes); default VS Code's on this platform. */
  editorStorage?: string;
}

/** Sent by the extension when the user trusts the workspace. */
const SET_TRUSTED = 'subagents/setTrusted';

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
const analyses = new Map<string, { version: number; analysis: Analysis | null }>();
let workspace: AgentWorkspace;
let mcp: McpKnowledge;
let canAskConfiguration = false;
let canWatchFolders = false;
let initialSettings: Record<string, unknown> = {};
let folders: string[] = [];
let ready: Promise<void> = Promise.resolve();

function filePathOf(uri: string): string | null {
  return uri.startsWith('file:') ? fileURLToPath(uri) : null;
}

/** A dotted key (`budget.maxTokens`) from the nested object a client sends for the `subagents` section. */
function settingValue(section: Record<string, unknown>, key: string): unknown {
  if (key in section) return section[key];
  let value: unknown = section;
  for (const part of key.split('.')) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}

async function settingsOf(folder: string): Promise<Settings> {
  let section: Record<string, unknown> = initialSettings;
  if (canAskConfiguration) {
    const answer: unknown = await connection.workspace.getConfiguration({ scopeUri: pathToFileURL(folder).href, section: 'subagents' });
    if (answer && typeof answer === 'object') section = answer as Record<string, unknown>;
  }
  const raw: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) raw[key] = settingValue(section, key);
  const { settings, problems } = parseSettings(raw);
  for (const problem of problems) connection.console.warn(problem);
  return settings;
}

function mcpContext(scope: { folder: string; settings: Settings }): McpContext | undefined {
  const facts = mcp.facts(scope.folder, scope.settings);
  return facts ? { facts, folder: scope.folder, settings: scope.settings } : undefined;
}

/** Analyses a document if it is an agent file (null otherwise); cached per version. */
function analysisOf(document: TextDocument): Analysis | null {
  const cached = analyses.get(document.uri);
  if (cached && cached.version === document.version) return cached.analysis;
  const filePath = filePathOf(document.uri);
  const scope = filePath ? workspace.scopeFor(filePath) : undefined;
  const kind = filePath && scope ? agentFileKind(filePath, scope.catalog.dirs, os.homedir()) : null;
  const analysis = filePath && scope && kind
    ? analyseAgentFile(document, { filePath, kind, view: scope.catalog, settings: scope.settings, mcp: mcpContext(scope) })
    : null;
  analyses.set(document.uri, { version: document.version, analysis });
  return analysis;
}

/** A team file's scope, when `document` is one (its agents come from the folder's catalog). */
function teamScopeOf(document: TextDocument) {
  const filePath = filePathOf(document.uri);
  return filePath && isTeamFile(filePath, os.homedir()) ? { filePath, scope: workspace.scopeFor(filePath) ?? workspace.folders[0] } : null;
}

function publish(document: TextDocument, had = analyses.get(document.uri)?.analysis): void {
  const team = teamScopeOf(document);
  if (team) {
    void connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics: teamDiagnostics(document, team.filePath, team.scope?.catalog.agents ?? []) });
    return;
  }
  const started = performance.now();
  const analysis = analysisOf(document);
  // How long each check takes, for a client that turned tracing on (`$/setTrace`; the benchmark reads it).
  if (analysis) connection.tracer.log(`checked ${document.uri} version ${document.version} in ${(performance.now() - started).toFixed(3)} ms`);
  if (!analysis && !had) return;
  void connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics: analysis?.diagnostics ?? [] });
}

/** Every open agent file again: another file, a setting or the trust changed what they are told. */
function revalidateAll(): void {
  for (const document of documents.all()) {
    const had = analyses.get(document.uri)?.analysis;
    analyses.delete(document.uri);
    publish(document, had);
  }
}

connection.onInitialize((params: InitializeParams) => {
  const options = (params.initializationOptions ?? {}) as InitializationOptions;
  initialSettings = options.settings ?? {};
  canAskConfiguration = params.capabilities.workspace?.configuration === true;
  canWatchFolders = params.capabilities.workspace?.workspaceFolders === true;
  const uris = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
  folders = uris.map(filePathOf).filter((p): p is string => p !== null);
  if (folders.length === 0) folders = [process.cwd()];
  workspace = new AgentWorkspace({ home: os.homedir(), trusted: options.trusted ?? true, log: (m) => connection.console.log(m), ...(options.editorStorage ? { editorStorage: options.editorStorage } : {}) });
  workspace.onDidChange(() => {
    mcp.invalidate();
    revalidateAll();
  });
  // Server names and MCP tool names are checked against files and the status cache, read again in the background.
  mcp = new McpKnowledge({ home: os.homedir(), env: process.env, log: (m) => connection.console.log(m), onChange: () => void ready.then(revalidateAll) });
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      completionProvider: { triggerCharacters: [' ', ',', '(', '['], resolveProvider: false },
      hoverProvider: true,
      definitionProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
    },
    serverInfo: { name: 'subagents-agent-files' },
  };
});

/**
 * Queues a catalog update behind the ones before it. A failed step (a client that
 * cannot answer `workspace/configuration`, an unreadable folder) is logged and the
 * queue goes on: every request waits on `ready`, so it must never reject.
 */
function enqueue(what: string, step: () => Promise<void> | void): void {
  ready = ready.then(step).catch((error: unknown) => {
    connection.console.error(`Could not ${what}: ${error instanceof Error ? error.message : String(error)}`);
  });
}

connection.onInitialized(() => {
  enqueue('load the agents', () => workspace.setFolders(folders, settingsOf).then(revalidateAll));
  if (canAskConfiguration) void connection.client.register(DidChangeConfigurationNotification.type, { section: 'subagents' });
  if (!canWatchFolders) return;
  connection.workspace.onDidChangeWorkspaceFolders((event) => {
    const removed = new Set(event.removed.map((f) => filePathOf(f.uri)));
    folders = [...folders.filter((f) => !removed.has(f)), ...event.added.map((f) => filePathOf(f.uri)).filter((p): p is string => p !== null)];
    enqueue('load the agents of the changed folders', () => workspace.setFolders(folders, settingsOf));
  });
});

connection.onDidChangeConfiguration((change) => {
  const settings = (change.settings as { subagents?: Record<string, unknown> } | null)?.subagents;
  if (!canAskConfiguration && settings) initialSettings = settings;
  enqueue('apply the changed settings', async () => {
    for (const scope of workspace.folders) await workspace.updateSettings(scope.folder, await settingsOf(scope.folder));
  });
});

connection.onNotification(SET_TRUSTED, (params: { trusted: boolean }) => {
  enqueue('apply the workspace trust', () => workspace.setTrusted(params.trusted));
});

// Only the edited document is parsed on a keystroke; the other agents come from the catalog.
documents.onDidChangeContent((change) => void ready.then(() => publish(change.document)));
documents.onDidClose((event) => {
  if (analyses.get(event.document.uri)?.analysis || teamScopeOf(event.document)) void connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] });
  analyses.delete(event.document.uri);
});

function withAnalysis<T>(uri: string, fallback: T, use: (document: TextDocument, analysis: Analysis, settings: Settings, format: FormatKnowledge) => T): Promise<T> {
  return ready.then(() => {
    const document = documents.get(uri);
    const analysis = document && analysisOf(document);
    const scope = analysis && workspace.scopeFor(filePathOf(uri)!);
    return document && analysis && scope ? use(document, analysis, scope.settings, analysis.format) : fallback;
  });
}

connection.onCompletion((params) =>
  ready.then(() => {
    const document = documents.get(params.textDocument.uri);
    const team = document && teamScopeOf(document);
    if (document && team) return teamCompletions(document, document.offsetAt(params.position), team.scope?.catalog.agents ?? []);
    return withAnalysis(params.textDocument.uri, [], (doc, analysis, settings, format) => completions(doc, analysis, doc.offsetAt(params.position), settings, format));
  }),
);
connection.onHover((params) =>
  withAnalysis(params.textDocument.uri, null, (document, analysis, settings, format) => hover(document, analysis, document.offsetAt(params.position), settings, format)),
);
connection.onDefinition((params) =>
  withAnalysis(params.textDocument.uri, null, (document, analysis) => definition(analysis, document.offsetAt(params.position))),
);
connection.onCodeAction((params) => withAnalysis(params.textDocument.uri, [], () => quickFixes(params.textDocument.uri, params.context.diagnostics)));
connection.onShutdown(() => workspace?.dispose());

documents.listen(connection);
connection.listen();
