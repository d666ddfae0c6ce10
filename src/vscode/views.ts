import * as vscode from 'vscode';
import { isActiveStatus } from '../protocol/vocabulary';
import type { RunSnapshot } from '../protocol/runSnapshot';
import type { RunHeader } from '../protocol/webview';
import { AgentsTree, filterAgentsBySourceCommand, filterAgentsCommand } from './agentsTree';
import { registerGuarded } from './guardedCommands';
import type { AgentNodeItem } from '../surfaces/views/agentsTreeModel';
import { NO_FILTER } from '../surfaces/views/agentsTreeModel';
import { setRunsViewVisibility } from './runNotifications';
import { badgeOf, countActive, RunsViewProvider, type RevealOptions, type RunsViewMessage } from './runsView';
import type { Services } from './services';
import { agentViewOf, runHeader } from '../surfaces/views/viewModel';
import { agentsState, dismissNotice, statusState } from './viewState';
import { WorktreesOverview, type WorktreesSummary } from './worktreesOverview';

/**
 * The Subagents container's two views, wired to the services: Runs (the live
 * webview) and Agents (the native catalog tree); the container badge; and the
 * commands that belong to the views (Show Run, Clear Finished, the filter).
 */

export interface SidebarViews {
  runs: RunsViewProvider;
  agents: AgentsTree;
  /** Shows the Runs view; with a run id, selects that run (or one of its agents). */
  reveal(runId?: string, agentId?: string, options?: RevealOptions): Promise<boolean>;
  agentsChanged(): void;
  /** Worktrees were applied, discarded or cleaned up: the Worktrees section is summed up again. */
  worktreesChanged(): void;
  touchRuns(runIds: readonly string[]): void;
  /** A run's header as the Runs view gets it (its folder named when several are open). */
  runHeader(run: RunSnapshot): RunHeader;
}

export interface ShowRunArgs {
  runId?: string;
  agentId?: string;
  /** Unfold the agent's Result line (a run that just ended). */
  showResult?: boolean;
  /** Keep the keyboard where it is when the Runs view is in sight. */
  preserveFocus?: boolean;
}

export function createViews(services: Services, context: vscode.ExtensionContext): { views: SidebarViews; disposables: vscode.Disposable[] } {
  const s = services;
  const header = (run: RunSnapshot) => runHeader(run, s.scopes.all.length > 1 ? (s.folderOf(run)?.folder.name ?? null) : null, (id) => s.worktrees.get(id));
  const runs = new RunsViewProvider(
    context.extensionUri,
    {
      runs: () => s.store.list(),
      run: (runId) => s.store.get(runId),
      header,
      agentView: (node) => agentViewOf(node, (id) => s.worktrees.get(id)),
      status: () => statusState(s),
    },
    (message) => handleRunsViewMessage(s, message, () => runs.statusChanged()),
    s.log,
    context.workspaceState,
  );
  const worktrees = new WorktreesOverview(s.worktrees, s.log);
  const agents = new AgentsTree(() => agentsState(s), () => worktrees.summary);
  setRunsViewVisibility(() => runs.visible);

  let hasActive: boolean | undefined;
  let hasFinished: boolean | undefined;
  const updateBadge = () => {
    const count = countActive(s.store.list());
    const badge = badgeOf(count);
    // The badge shows on the container through whichever view carries it: the
    // Runs view once it exists, the Agents tree (always there) before.
    if (runs.view) {
      runs.view.badge = badge;
      agents.view.badge = undefined;
    } else agents.view.badge = badge;
    const active = count.working + count.waiting > 0;
    if (active !== hasActive) void vscode.commands.executeCommand('setContext', 'subagents.hasActiveRuns', (hasActive = active));
    const finished = s.store.list().some((run) => !isActiveStatus(run.status));
    if (finished !== hasFinished) void vscode.commands.executeCommand('setContext', 'subagents.hasFinishedRuns', (hasFinished = finished));
  };
  const agentsChanged = () => {
    agents.refresh();
    runs.statusChanged();
    worktrees.refresh();
  };
  const unsubscribe = s.store.subscribe((changed) => {
    runs.runsChanged(changed);
    updateBadge();
    // Agents starting and ending make, keep and hand back worktrees.
    worktrees.refresh();
  });
  updateBadge();

  const views: SidebarViews = {
    runs,
    agents,
    runHeader: header,
    reveal: async (runId, agentId, options) => {
      if (runId) return runs.reveal(runId, agentId, options);
      await vscode.commands.executeCommand(`${RunsViewProvider.viewType}.focus`);
      return true;
    },
    agentsChanged,
    worktreesChanged: () => worktrees.refresh(),
    touchRuns: (ids) => runs.touchRuns(ids),
  };
  const disposables: vscode.Disposable[] = [
    runs,
    agents,
    worktrees,
    worktrees.onDidChange(() => {
      agents.refresh();
      worktreeContexts(s, worktrees.summary, () => runs.statusChanged());
    }),
    // The pool's background upkeep cleans, deletes and refills between runs.
    s.onDidChangePool(() => worktrees.refresh()),
    vscode.window.registerWebviewViewProvider(RunsViewProvider.viewType, runs),
    runs.onDidChangeVisibility(updateBadge),
    { dispose: unsubscribe },
    s.scopes.onDidChangeAgents(agentsChanged),
    s.keys.onDidChange(agentsChanged),
    s.approvals.onDidChange(agentsChanged),
    vscode.workspace.onDidGrantWorkspaceTrust(agentsChanged),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('subagents.disabledAgents') && agentsChanged()),
    ...registerViewCommands(s, views),
  ];
  return { views, disposables };
}

function registerViewCommands(s: Services, views: SidebarViews): vscode.Disposable[] {
  const commands: Record<string, (...args: unknown[]) => unknown> = {
    // Called by the chat surface and notifications: { runId, agentId? }, or an agent id alone.
    'subagents.showRun': async (args) => {
      const given: ShowRunArgs = typeof args === 'string' ? { agentId: args } : args && typeof args === 'object' ? (args as ShowRunArgs) : {};
      const runId = given.runId ?? (given.agentId ? s.store.agent(given.agentId)?.runId : undefined);
      if (!runId || !s.store.get(runId)) {
        await views.reveal();
        if (!runId && !given.agentId) return true;
        void vscode.window.showInformationMessage('That run is not in the history any more (it may have expired).');
        return false;
      }
      return views.reveal(runId, given.agentId, { showResult: given.showResult === true, preserveFocus: given.preserveFocus === true });
    },
    'subagents.clearFinishedRuns': () => views.runs.clearFinished(),
    'subagents.showClearedRuns': () => views.runs.showCleared(),
    'subagents.filterAgents': (text) => filterAgentsCommand(views.agents, text),
    'subagents.filterAgentsBySource': () => filterAgentsBySourceCommand(views.agents),
    'subagents.clearAgentsFilter': () => views.agents.setFilter(NO_FILTER),
    // From the Agents view (its node) or a Runs view row's menu ({ agentId }: the host looks the file up).
    'subagents.openAgentDefinition': async (node) => {
      const agentId = (node as { agentId?: unknown } | undefined)?.agentId;
      const filePath = typeof agentId === 'string' ? s.store.agent(agentId)?.filePath : (node as Partial<AgentNodeItem> | undefined)?.summary?.filePath;
      if (!filePath) return false;
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(filePath), { preview: true });
      return true;
    },
  };
  return registerGuarded(s.log, commands);
}

/** What a click in the Runs view does: always one of the commands (the palette takes the same path). */
export function handleRunsViewMessage(s: Services, message: RunsViewMessage, statusChanged: () => void = () => undefined): void {
  const run = (command: string, ...args: unknown[]) => void vscode.commands.executeCommand(command, ...args);
  switch (message.type) {
    case 'command': {
      const ids = {
        runAgent: 'subagents.runAgent',
        runDemo: 'subagents.runDemo',
        stopAll: 'subagents.stopAll',
        clearFinished: 'subagents.clearFinishedRuns',
        showCleared: 'subagents.showClearedRuns',
        setApiKey: 'subagents.setApiKey',
        manageTrust: 'workbench.trust.manage',
        cleanUpWorktrees: 'subagents.cleanUpWorktrees',
      } as const;
      return run(ids[message.command]);
    }
    case 'agentAction': {
      if (message.action === 'openDefinition') {
        // The webview names an agent; the host decides which file that is.
        const filePath = s.store.agent(message.agentId)?.filePath;
        if (filePath) run('vscode.open', vscode.Uri.file(filePath), { preview: true });
        return;
      }
      const ids = {
        stop: 'subagents.stopRun',
        transcript: 'subagents.showTranscript',
        followUp: 'subagents.sendFollowUp',
        reviewWorktree: 'subagents.reviewWorktree',
        applyWorktree: 'subagents.applyWorktree',
        discardWorktree: 'subagents.discardWorktree',
      } as const;
      return run(ids[message.action], message.agentId);
    }
    case 'teamAction':
      return run('subagents.applyTeam', message.runId);
    case 'dismissNotice':
      void dismissNotice(s, message.id).then(statusChanged);
      return;
    case 'showApproval':
      return run('subagents.showApproval', message.approvalId);
    case 'sendMessage':
      return run('subagents.sendMessage', message.agentId, message.text, 'runsView');
    case 'approval': {
      // Only the question the agent is waiting on now: a stale button (answered elsewhere) does nothing.
      const pending = s.store.agent(message.agentId)?.approval;
      if (pending?.approvalId !== message.approvalId) {
        s.log.info(`The Runs view answered approval ${message.approvalId}, which ${message.agentId} no longer waits on.`);
        return;
      }
      return run('subagents.answerApproval', message.approvalId, message.answer, 'sidebar');
    }
  }
}

/**
 * What the worktrees allow now, for the palette (`when` clauses in
 * package.json hide Review/Apply/Discard with nothing to act on), and the
 * Runs view's "worktrees kept" notice, retired as soon as the worktrees it
 * names are applied or discarded.
 */
function worktreeContexts(s: Services, summary: WorktreesSummary | null, noticesChanged: () => void): void {
  const kept = summary?.kept ?? [];
  void vscode.commands.executeCommand('setContext', 'subagents.hasChangesToApply', kept.some((k) => k.state === 'finished'));
  void vscode.commands.executeCommand('setContext', 'subagents.hasKeptWorktrees', kept.length > 0);
  const stillToReview = new Set(kept.filter((k) => k.state === 'finished').map((k) => k.agentId));
  const before = s.keptWorktrees.length;
  s.keptWorktrees = s.keptWorktrees.filter((r) => stillToReview.has(r.agentId));
  if (s.keptWorktrees.length !== before) noticesChanged();
}
