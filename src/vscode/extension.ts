import * as vscode from 'vscode';
import type { RunSnapshot } from '../protocol/runSnapshot';
import type { RunHeader } from '../protocol/webview';
import { APPROVAL_SCHEME, ApprovalEditors } from './approvalEditors';
import { registerCommands } from './commands';
import { ReviewEditors } from './review/reviewEditors';
import { WORKTREE_SCHEME, WorktreeContent } from './review/worktreeContent';
import { REVIEW_SCHEME, ReviewFiles } from './review/reviewFiles';
import { ApiKeys } from './apiKey';
import { registerChatParticipants } from './chat/chatParticipant';
import { demoMode } from './demoMode';
import { startLanguageClient } from './languageClient';
import { registerAgentTools } from './lm/agentTools';
import { ClaudeChatProvider, VENDOR } from './lm/chatProvider';
import { readSettings } from './settings';
import { Services } from './services';
import { TRANSCRIPT_SCHEME, TranscriptDocuments } from './transcriptDocument';
import { TRANSCRIPT_VIEW_TYPE, TranscriptPanels } from './transcriptPanels';
import { groupAgents, type AgentNodeItem } from '../surfaces/views/agentsTreeModel';
import { createViews } from './views';
import { agentsState, type AgentsState } from './viewState';
import { RESOLVED_SCHEME, ResolvedDefinitions } from './resolvedDefinitions';
import { registerGuarded } from './guardedCommands';

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
  /** What the views show besides the runs: folders and their agents (Agents view), notices (Runs view). */
  viewState(): AgentsState;
  /** What the Agents view lists now, after its filter: agent names per group, problems by file. */
  agentsView(): { groups: Array<{ title: string; agents: string[] }>; problems: string[]; shown: number; total: number; message: string | undefined };
  /** The Agents view's folder nodes (several folders open) and the agents listed under each. */
  agentsViewFolders(): Array<{ folder: string; agents: string[] }>;
  /** The tree item the Agents view shows for an agent (its click command included). */
  agentsViewItem(name: string, folder?: string): vscode.TreeItem | undefined;
  /** Each run's header as the Runs view gets it: its folder, when several are open. */
  runsViewHeaders(): RunHeader[];
  /** The runs the Runs view was last told to list, in its order (ids). */
  runsViewRuns(): readonly string[];
  /** Where the API key in effect comes from (never the key). */
  apiKeyOrigin(): 'secret storage' | 'ANTHROPIC_API_KEY' | null;
}

let services: Services | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<SubagentsApi | undefined> {
  const activated = Date.now();
  const log = vscode.window.createOutputChannel('Subagents', { log: true });
  context.subscriptions.push(log);
  // Not awaited: the chat's models are offered before the stored key is even read.
  const keys = ApiKeys.open(context.secrets, () => readSettings().settings.apiBaseUrl);
  context.subscriptions.push(keys);
  // Chat first. Where no other extension provides chat models (code-server,
  // VS Code without Copilot), a request to a participant fails with "Language
  // model unavailable" unless the chat had picked a model when it was sent:
  // VS Code looks the request's model up before it calls any participant, and
  // only Copilot's models are defaults. A request sent before we were active
  // (one that activates us) has none. So the extension activates at start-up
  // (`*`, not `onStartupFinished`, which came after a quick user's first
  // request), and offers and resolves its models before the agents are even
  // read, so the chat picks one as soon as it opens. The handler waits for the services.
  let resolveStarted!: (started: Services | undefined) => void;
  const started = new Promise<Services | undefined>((resolve) => (resolveStarted = resolve));
  const models = new ClaudeChatProvider(keys, () => readSettings().settings.modelAliases, log);
  context.subscriptions.push(models, vscode.lm.registerLanguageModelChatProvider(VENDOR, models), ...registerChatParticipants(started, context.extensionUri));
  // Awaited, but not for long: when the model picker itself activated us
  // (onLanguageModelChatProvider), the workbench answers only once activation
  // has ended, and waiting for it here would wait forever.
  const resolved = vscode.lm.selectChatModels({ vendor: VENDOR }).then(
    (found) => log.info(`Chat models from Subagents: ${found.map((m) => m.id).join(', ') || 'none'} (${Date.now() - activated} ms after activation).`),
    (error: unknown) => log.warn(`Could not resolve the chat models: ${String(error)}`),
  );
  await Promise.race([resolved, new Promise((resolve) => setTimeout(resolve, 1000))]);
  // Language support for agent files does not wait for (or depend on) the services.
  startLanguageClient(context, log).catch((error: unknown) =>
    log.error(`The agent-file language server did not start: ${error instanceof Error ? error.message : String(error)}`),
  );
  await keys.loaded;
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

  const { views, disposables } = createViews(s, context);
  const transcripts = new TranscriptDocuments(s);
  const reviewFiles = new ReviewFiles();
  const reviews = new ReviewEditors(s.worktrees, reviewFiles);
  const panels = new TranscriptPanels(s, vscode.Uri.joinPath(context.extensionUri, 'media', 'subagents.svg'));
  const approvalEditors = new ApprovalEditors(s.approvals.view);
  const resolvedDefinitions = new ResolvedDefinitions(s);
  s.approvals.show = (approvalId) => approvalEditors.show(approvalId);
  context.subscriptions.push(
    ...disposables,
    transcripts,
    reviews,
    approvalEditors,
    vscode.workspace.registerTextDocumentContentProvider(APPROVAL_SCHEME, approvalEditors),
    vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, transcripts),
    vscode.workspace.registerTextDocumentContentProvider(WORKTREE_SCHEME, new WorktreeContent(s.worktrees)),
    resolvedDefinitions,
    vscode.workspace.registerTextDocumentContentProvider(RESOLVED_SCHEME, resolvedDefinitions),
    // From the Agents view (its node), the palette (asks), or a name.
    ...registerGuarded(s.log, { 'subagents.showResolvedDefinition': (arg) => resolvedDefinitions.show(arg) }),
    vscode.workspace.registerFileSystemProvider(REVIEW_SCHEME, reviewFiles, { isCaseSensitive: true }),
    reviewFiles,
    panels,
    vscode.window.registerWebviewPanelSerializer(TRANSCRIPT_VIEW_TYPE, panels),
    ...registerCommands(s, views, reviews, panels),
    demoMode(s, (args) => vscode.commands.executeCommand('subagents.runAgent', args)),
    ...registerAgentTools(s),
  );
  // Not awaited: git work on leftovers must not hold up activation.
  void s.recoverWorktrees().then(views.agentsChanged);
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
    agentsView: () => {
      const model = views.agents.model;
      const groups: Array<{ title: string; agents: string[] }> = [];
      const problems: string[] = [];
      const walk = (nodes: typeof model.roots) => {
        for (const node of nodes) {
          if (node.kind === 'folder') walk(node.children);
          if (node.kind === 'group') groups.push({ title: node.title, agents: groupAgents(node).map((a) => a.agent) });
          if (node.kind === 'problems') problems.push(...node.children.map((p) => p.warning.filePath));
        }
      };
      walk(model.roots);
      return { groups, problems, shown: model.shown, total: model.total, message: views.agents.view.message };
    },
    agentsViewFolders: () =>
      views.agents.model.roots.flatMap((node) =>
        node.kind === 'folder' ? [{ folder: node.name, agents: node.children.flatMap((g) => (g.kind === 'group' ? groupAgents(g).map((a) => a.agent) : [])) }] : [],
      ),
    agentsViewItem: (name, folder) => {
      const key = folder ? s.scopes.get(folder)?.key : undefined;
      const find = (nodes: typeof views.agents.model.roots): AgentNodeItem | undefined => {
        for (const node of nodes) {
          if (node.kind === 'agent' && node.agent === name && (!key || node.folder === key) && !node.summary.shadowedBy) return node;
          const inner = node.kind === 'folder' || node.kind === 'group' || node.kind === 'family' ? find(node.children) : undefined;
          if (inner) return inner;
        }
        return undefined;
      };
      const node = find(views.agents.model.roots);
      return node && views.agents.getTreeItem(node);
    },
    runsViewHeaders: () => s.store.list().map(views.runHeader),
    runsViewRuns: () => views.runs.feed.listed,
    apiKeyOrigin: () => s.keys.origin,
  };
}

export async function deactivate(): Promise<void> {
  await services?.dispose();
  services = undefined;
}
