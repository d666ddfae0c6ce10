import * as vscode from 'vscode';
import { setApiKeyCommand } from './apiKey';
import { runDemo } from './demoMode';
import { approvalIdOf } from './approvalEditors';
import { answerApprovalCommand } from './approvals';
import { newAgentCommand, refreshAgentsCommand, type NewAgentArgs } from './agentFileCommands';
import { runAgentCommand, sendFollowUpCommand, stopAllCommand, stopRunCommand, type RunAgentArgs } from './runCommands';
import { sendMessageCommand } from './messageCommands';
import type { Services } from './services';
import { showTranscriptCommand } from './transcriptDocument';
import type { TranscriptPanels } from './transcriptPanels';
import type { SidebarViews } from './views';
import { registerGuarded } from './guardedCommands';
import { checkMcpServersCommand } from './mcpCommands';
import type { ReviewEditors } from './review/reviewEditors';
import { applyTeamCommand } from './teamApply';
import {
  applyChangesOf,
  applyWorktreeCommand,
  applyWorktreeFilesCommand,
  cleanUpWorktreesCommand,
  discardWorktreeCommand,
  discardWorktreeFilesCommand,
  reviewWorktreeCommand,
  type CleanUpArgs,
} from './worktreeCommands';

/**
 * Registers every command. The views' own commands (Show Run, Clear
 * Finished, the agents filter) and their clicks are in views.ts; a click and
 * the palette take the same path.
 */

const obj = <T extends object>(value: unknown): T => (value && typeof value === 'object' ? (value as T) : ({} as T));
const str = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);
/** An agent given as its id, or as the context of a Runs view row's menu (`{ agentId }`). */
/** A worktree action's target: a review file's URI as it is, else an agent. */
const worktreeArg = (value: unknown): unknown => (value instanceof vscode.Uri ? value : agentArg(value));
const agentArg = (value: unknown): string | undefined => str(value) ?? str((value as { agentId?: unknown } | undefined)?.agentId);

export function registerCommands(services: Services, view: SidebarViews, reviews: ReviewEditors, transcripts: TranscriptPanels): vscode.Disposable[] {
  // Shows the new run selected; the command does not wait for the webview to confirm it.
  const reveal = async (runId?: string) => {
    void view.reveal(runId);
  };
  // A worktree action changed what the Runs view shows of its agents (applied, files left, gone).
  const worktreesChanged = <T>(result: T): T => {
    view.touchRuns(services.store.list().filter((run) => Object.values(run.agents).some((a) => a.worktree)).map((run) => run.runId));
    view.worktreesChanged();
    return result;
  };
  const commands: Record<string, (...args: unknown[]) => unknown> = {
    // A string argument is the agent name (e.g. from a keybinding); an object may set everything.
    'subagents.runAgent': (args) => runAgentCommand(services, reveal, typeof args === 'string' ? { agent: args } : obj<RunAgentArgs>(args)),
    'subagents.runDemo': () => runDemo(services, (args) => runAgentCommand(services, reveal, args)),
    'subagents.stopRun': (agentId) => stopRunCommand(services, agentArg(agentId)),
    'subagents.stopAll': () => stopAllCommand(services),
    'subagents.showTranscript': (agentId, options) => showTranscriptCommand(services, transcripts, agentArg(agentId), obj<{ source?: boolean }>(options)),
    // The transcript view's title button: its Markdown text.
    'subagents.showTranscriptSource': (agentId) => showTranscriptCommand(services, transcripts, agentArg(agentId) ?? transcripts.activeAgent, { source: true }),
    'subagents.newAgent': (args) => newAgentCommand(services, obj<NewAgentArgs>(args)),
    'subagents.refreshAgents': () => refreshAgentsCommand(services),
    'subagents.checkMcpServers': () => checkMcpServersCommand(services),
    'subagents.setApiKey': (key) => setApiKeyCommand(services.keys, services.log, key),
    'subagents.cleanUpWorktrees': async (args) => {
      const left = await cleanUpWorktreesCommand(services, reviews, obj<CleanUpArgs>(args), () => view.worktreesChanged());
      view.agentsChanged();
      return worktreesChanged(left);
    },
    'subagents.sendFollowUp': (agentId, prompt) => sendFollowUpCommand(services, reveal, agentArg(agentId), prompt),
    // (agentId, text, via): the Runs view's message box and the chat's button pass them; the palette and the key binding ask.
    'subagents.sendMessage': (agentId, text, via) => sendMessageCommand(services, reveal, agentArg(agentId), text, via),
    // Each takes an agent id, a file of an open review (editor title), or acts on the active review, or asks.
    'subagents.reviewWorktree': (target) => reviewWorktreeCommand(services, reviews, worktreeArg(target)),
    'subagents.applyWorktree': async (target) => worktreesChanged(await applyWorktreeCommand(services, reviews, worktreeArg(target))),
    // A team's Apply All (the Runs view's team panel): every teammate's changes in turn, asking once before one merges over another's.
    'subagents.applyTeam': async (runId) => worktreesChanged(await applyTeamCommand(services, runId, (agentId) => applyChangesOf(services, reviews, agentId, { confirmed: true }))),
    'subagents.applyWorktreeFiles': async (target, paths) => worktreesChanged(await applyWorktreeFilesCommand(services, reviews, worktreeArg(target), paths)),
    'subagents.discardWorktreeFiles': async (target, paths) => worktreesChanged(await discardWorktreeFilesCommand(services, reviews, worktreeArg(target), paths)),
    // The same, from the title of one file's diff: the file is the one shown.
    'subagents.applyWorktreeFile': async (target) => worktreesChanged(await applyWorktreeFilesCommand(services, reviews, target)),
    'subagents.discardWorktreeFile': async (target) => worktreesChanged(await discardWorktreeFilesCommand(services, reviews, target)),
    // The buttons of a pending approval (notification, Runs view, chat): `answer` is allow | allowAgent | allowRun | deny.
    'subagents.answerApproval': (approvalId, answer, by) => answerApprovalCommand(services, approvalId, answer, by),
    // The command or change of a pending approval, whole, in an editor whose title has the answers below.
    'subagents.showApproval': (approvalId) => (typeof approvalId === 'string' ? services.approvals.show?.(approvalId) : false),
    ...Object.fromEntries(
      (['allow', 'allowAgent', 'allowRun', 'deny'] as const).map((answer) => [
        `subagents.approval.${answer}`,
        (target: unknown) => answerApprovalCommand(services, target instanceof vscode.Uri ? approvalIdOf(target) : target, answer, 'editor'),
      ]),
    ),
    'subagents.discardWorktree': async (target, options) =>
      worktreesChanged(await discardWorktreeCommand(services, reviews, worktreeArg(target), obj<{ confirmed?: boolean }>(options))),
  };
  return registerGuarded(services.log, commands);
}
