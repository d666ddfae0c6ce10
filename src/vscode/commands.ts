import * as vscode from 'vscode';
import type { WebviewToHost } from '../protocol/webview';
import { setApiKeyCommand } from './apiKey';
import { answerApprovalCommand } from './approvals';
import { newAgentCommand, refreshAgentsCommand, type NewAgentArgs } from './agentFiles';
import type { AgentsViewProvider } from './agentsView';
import { runAgentCommand, sendFollowUpCommand, stopAllCommand, stopRunCommand, type RunAgentArgs } from './runCommands';
import type { Services } from './services';
import { showTranscriptCommand } from './transcriptDocument';
import { applyWorktreeCommand, cleanUpWorktreesCommand, discardWorktreeCommand, reviewWorktreeCommand, type CleanUpArgs } from './worktreeCommands';

/**
 * Registers every command (S6.3) and turns the Agents view's messages into
 * command calls, so a click in the view and the palette take the same path.
 */

const obj = <T extends object>(value: unknown): T => (value && typeof value === 'object' ? (value as T) : ({} as T));
const str = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

export function registerCommands(services: Services, view: AgentsViewProvider): vscode.Disposable[] {
  const reveal = () => view.reveal();
  const withRun = (agentId: string) => {
    const runId = services.agentNode(agentId)?.runId;
    if (runId) view.touchRuns([runId]);
  };
  const needsAgent = (name: string, agentId: unknown): agentId is string => {
    if (typeof agentId === 'string' && agentId) return true;
    void vscode.window.showErrorMessage(`${name} needs an agent: use its button on an agent in the Agents view.`);
    return false;
  };
  const commands: Record<string, (...args: unknown[]) => unknown> = {
    // A string argument is the agent name (e.g. from a keybinding); an object may set everything.
    'subagents.runAgent': (args) => runAgentCommand(services, reveal, typeof args === 'string' ? { agent: args } : obj<RunAgentArgs>(args)),
    'subagents.stopRun': (agentId) => stopRunCommand(services, str(agentId)),
    'subagents.stopAll': () => stopAllCommand(services),
    'subagents.showTranscript': (agentId) => showTranscriptCommand(services, agentId),
    'subagents.newAgent': (args) => newAgentCommand(services, obj<NewAgentArgs>(args)),
    'subagents.refreshAgents': () => refreshAgentsCommand(services),
    'subagents.setApiKey': (key) => setApiKeyCommand(services.keys, services.log, key),
    'subagents.cleanUpWorktrees': async (args) => {
      const left = await cleanUpWorktreesCommand(services, obj<CleanUpArgs>(args));
      view.agentsChanged();
      view.touchRuns(services.store.list().filter((run) => Object.values(run.agents).some((a) => a.worktree)).map((run) => run.runId));
      return left;
    },
    'subagents.sendFollowUp': (agentId, prompt) => sendFollowUpCommand(services, reveal, agentId, prompt),
    'subagents.reviewWorktree': (agentId) => needsAgent('Review Changes', agentId) && reviewWorktreeCommand(services, agentId),
    'subagents.applyWorktree': async (agentId) => {
      if (!needsAgent('Apply Changes', agentId)) return false;
      const applied = await applyWorktreeCommand(services, agentId);
      withRun(agentId);
      return applied;
    },
    // The buttons of a pending approval (notification, Runs view, chat): `answer` is allow | allowAgent | allowRun | deny.
    'subagents.answerApproval': (approvalId, answer, by) => answerApprovalCommand(services, approvalId, answer, by),
    'subagents.discardWorktree': async (agentId, options) => {
      if (!needsAgent('Discard Changes', agentId)) return false;
      const discarded = await discardWorktreeCommand(services, agentId, obj<{ confirmed?: boolean }>(options));
      withRun(agentId);
      return discarded;
    },
  };
  return Object.entries(commands).map(([id, handler]) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await handler(...args);
      } catch (error) {
        // A command never fails silently or with a stack in the user's face.
        services.log.error(`${id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        void vscode.window.showErrorMessage(`Subagents: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
    }),
  );
}

/** What a click in the Agents view does: always one of the commands above (or opening a file the view listed). */
export function handleViewMessage(services: Services, knownFiles: () => Set<string>, message: Exclude<WebviewToHost, { type: 'ready' }>): void {
  const run = (command: string, ...args: unknown[]) => void vscode.commands.executeCommand(command, ...args);
  switch (message.type) {
    case 'runAgent':
      return run('subagents.runAgent', { agent: message.agentName, folder: message.folder });
    case 'openFile':
      // Only files the view was given (agent definitions, files with problems): the webview names, the host decides.
      if (!knownFiles().has(message.filePath)) {
        services.log.warn(`The Agents view asked to open a file it was never shown: ${message.filePath}`);
        return;
      }
      return run('vscode.open', vscode.Uri.file(message.filePath));
    case 'command':
      return message.command === 'manageTrust' ? run('workbench.trust.manage') : run(`subagents.${message.command}`);
    case 'agentAction': {
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
  }
}
