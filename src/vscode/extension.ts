import * as vscode from 'vscode';
import type { RunSnapshot } from '../protocol/runSnapshot';
import type { AgentsState } from '../protocol/webview';
import { AgentsViewProvider } from './agentsView';
import { handleViewMessage, registerCommands } from './commands';
import { ApiKeys } from './apiKey';
import { registerChatParticipants } from './chat/chatParticipant';
import { demoMode } from './demoMode';
import { registerAgentTools } from './lm/agentTools';
import { ClaudeChatProvider, VENDOR } from './lm/chatProvider';
import { readSettings } from './settings';
import { Services } from './services';
import { TRANSCRIPT_SCHEME, TranscriptDocuments } from './transcriptDocument';
import { runView } from './viewModel';
import { agentsState, knownFiles } from './viewState';

/**
 * Activation: the services (catalogs, engines, run store and history,
 * worktrees, approvals, API key), then the surfaces that read them: the
 * Agents view, the commands, the transcript documents. Everything goes into
 * context.subscriptions; deactivate() saves the run history.
 */

/** What other extensions (and the extension-host tests) can read. */
export interface SubagentsApi {
  /** Agents of a folder (URI, path or name; the first folder by default), winners first. */
  agents(folder?: string): Array<{ name: string; source: string; filePath: string; shadowed: boolean }>;
  runs(): RunSnapshot[];
  /** Resolves after every folder's catalog re-read its dirs. */
  refresh(): Promise<void>;
  /** What the Agents view shows above the runs (folders, agents, notices). */
  viewState(): AgentsState;
  /** Where the API key in effect comes from (never the key). */
  apiKeyOrigin(): 'secret storage' | 'ANTHROPIC_API_KEY' | null;
}

let services: Services | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<SubagentsApi | undefined> {
  const log = vscode.window.createOutputChannel('Subagents', { log: true });
  context.subscriptions.push(log);
  const keys = await ApiKeys.create(context.secrets, () => readSettings().settings.apiBaseUrl);
  context.subscriptions.push(keys);
  // Chat first. Where no other extension provides chat models (code-server,
  // VS Code without Copilot), a request to a participant fails with "Language
  // model unavailable" until the chat has picked a model; ours are offered
  // before the agents are even read, and resolved here, so the very first
  // @agent request works (NOTES.md). The handler waits for the services.
  let resolveStarted!: (started: Services | undefined) => void;
  const started = new Promise<Services | undefined>((resolve) => (resolveStarted = resolve));
  const models = new ClaudeChatProvider(keys, () => readSettings().settings.modelAliases, log);
  context.subscriptions.push(models, vscode.lm.registerLanguageModelChatProvider(VENDOR, models), ...registerChatParticipants(started, context.extensionUri));
  // Awaited, but not for long: when the model picker itself activated us
  // (onLanguageModelChatProvider), the workbench answers only once activation
  // has ended, and waiting for it here would wait forever.
  const resolved = vscode.lm.selectChatModels({ vendor: VENDOR }).then(
    (found) => log.info(`Chat models from Subagents: ${found.map((m) => m.id).join(', ') || 'none'}.`),
    (error: unknown) => log.warn(`Could not resolve the chat models: ${String(error)}`),
  );
  await Promise.race([resolved, new Promise((resolve) => setTimeout(resolve, 1000))]);
  try {
    services = await Services.create(context, log, keys);
    resolveStarted(services);
  } catch (error) {
    resolveStarted(undefined);
    const message = error instanceof Error ? error.message : String(error);
    log.error(`Subagents could not start: ${error instanceof Error ? (error.stack ?? message) : message}`);
    void vscode.window.showErrorMessage(`Subagents could not start: ${message}. See the "Subagents" output for details.`);
    return undefined;
  }
  const s = services;
  context.subscriptions.push({ dispose: () => void s.dispose() });

  const view = new AgentsViewProvider(
    context.extensionUri,
    {
      agents: () => agentsState(s),
      runs: () => s.store.list(),
      run: (runId) => s.store.get(runId),
      runView: (run) => runView(run, s.scopes.all.length > 1 ? (s.folderOf(run)?.folder.name ?? null) : null, (id) => s.worktrees.get(id)),
    },
    (message) => handleViewMessage(s, () => knownFiles(s), message),
    log,
  );
  const transcripts = new TranscriptDocuments(s);
  const agentsChanged = () => view.agentsChanged();
  const unsubscribe = s.store.subscribe((changed) => view.runsChanged(changed));
  context.subscriptions.push(
    view,
    vscode.window.registerWebviewViewProvider(AgentsViewProvider.viewType, view),
    transcripts,
    vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, transcripts),
    ...registerCommands(s, view),
    { dispose: unsubscribe },
    s.scopes.onDidChangeAgents(agentsChanged),
    s.keys.onDidChange(agentsChanged),
    s.approvals.onDidChange(agentsChanged),
    vscode.workspace.onDidGrantWorkspaceTrust(agentsChanged),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('subagents.disabledAgents') && agentsChanged()),
    demoMode(s, (args) => vscode.commands.executeCommand('subagents.runAgent', args)),
    ...registerAgentTools(s),
  );
  // Not awaited: git work on leftovers must not hold up activation.
  void s.recoverWorktrees().then(agentsChanged);
  log.info(`Subagents activated: ${s.scopes.all.length} folder(s), ${s.store.list().length} run(s) in the history${s.trusted ? '' : ', Restricted Mode'}.`);

  return {
    agents: (folder) => {
      const scope = folder ? s.scopes.get(folder) : s.scopes.all[0];
      if (!scope?.catalog) return [];
      return [
        ...scope.catalog.agents.map((a) => ({ name: a.name, source: a.source, filePath: a.filePath, shadowed: false })),
        ...scope.catalog.shadowed.map((x) => ({ name: x.definition.name, source: x.definition.source, filePath: x.definition.filePath, shadowed: true })),
      ];
    },
    runs: () => s.store.list(),
    refresh: async () => {
      await Promise.all(s.scopes.all.map((scope) => scope.catalog?.refresh()));
    },
    viewState: () => agentsState(s),
    apiKeyOrigin: () => s.keys.origin,
  };
}

export async function deactivate(): Promise<void> {
  await services?.dispose();
  services = undefined;
}
