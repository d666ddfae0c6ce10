import * as vscode from 'vscode';
import { setApiKeyCommand } from './apiKey';
import { answerApprovalCommand } from './approvals';
import { newAgentCommand, refreshAgentsCommand, type NewAgentArgs } from './agentFiles';
import { runAgentCommand, sendFollowUpCommand, stopAllCommand, stopRunCommand, type RunAgentArgs } from './runCommands';
import { sendMessageCommand } from './messageCommands';
import type { Services } from './services';
import { showTranscriptCommand } from './transcriptDocument';
import type { SidebarViews } from './views';
import { registerGuarded } from './guardedCommands';
import { applyWorktreeCommand, cleanUpWorktreesCommand, discardWorktreeCommand, reviewWorktreeCommand, type CleanUpArgs } from './worktreeCommands';

/**
 * Registers every command (S6.3). The views' own commands (Show Run, Clear
 * Finished, the agents filter) and their clicks are in views.ts; a click and
 * the palette take the same path.
 */

const obj = <T extends object>(value: unknown): T => (value && typeof value === 'object' ? (value as T) : ({} as T));
const str = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

export function registerCommands(services: Services, view: SidebarViews): vscode.Disposable[] {
  // Shows the new run selected; the command does not wait for the webview to confirm it.
  const reveal = async (runId?: string) => {
    void view.reveal(runId);
  };
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
    'subagents.showTranscript': (agentId, options) => showTranscriptCommand(services, agentId, obj<{ source?: boolean }>(options)),
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
    // (agentId, text, via): the Runs view's message box and the chat's button pass them; the palette and the key binding ask.
    'subagents.sendMessage': (agentId, text, via) => sendMessageCommand(services, reveal, agentId, text, via),
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
  return registerGuarded(services.log, commands);
}
