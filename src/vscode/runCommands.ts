import * as vscode from 'vscode';
import * as z from 'zod/mini';
import type { AgentRun } from '../core/engine/agentRun';
import type { Budget } from '../core/engine/budget';
import { EngineError } from '../core/engine/errors';
import { ensureApiKey } from './apiKey';
import { askTask, isGitRepo, pickAgent, pickFolder, pickRunningAgent } from './pickers';
import { announceRunEnd } from './runNotifications';
import type { Services } from './services';

/**
 * Run Agent…, Stop Run, Stop All and Send Follow-up. Every
 * command takes optional arguments that skip its dialogs, so the view, tests
 * and keybindings can script it; without them it asks.
 */

export interface RunAgentArgs {
  agent?: string;
  task?: string;
  /** Folder URI, path or name (multi-root). */
  folder?: string;
  isolation?: 'worktree' | 'none';
  /** False when the caller tells the user itself how the run ends (another extension, a keybinding). */
  notify?: boolean;
  /** Limits for this run's whole tree, in place of the subagents.budget.* settings (per limit). */
  budget?: Budget;
}

const budgetArg = z.strictObject({ maxTokens: z.optional(z.number().check(z.int(), z.nonnegative())), maxCostUsd: z.optional(z.number().check(z.nonnegative())) });

/** The `budget` argument checked, or the message saying what is wrong with it. */
function checkBudget(value: unknown): { budget?: Budget; error?: string } {
  if (value === undefined) return {};
  const parsed = budgetArg.safeParse(value);
  if (parsed.success) return { budget: parsed.data };
  return { error: `Run Agent: budget must be { maxTokens?: whole number ≥ 0, maxCostUsd?: number ≥ 0 }, got ${JSON.stringify(value)}.` };
}

const MANAGE_TRUST = 'Manage Workspace Trust';

/** Nothing runs in an untrusted workspace (Restricted Mode); says why and how to change it. */
export function ensureTrusted(what: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window
    .showWarningMessage(
      `${what} is not possible in Restricted Mode: agents run tools (shell commands, file edits) in this workspace, so it must be trusted first.`,
      MANAGE_TRUST,
    )
    .then((choice) => {
      if (choice === MANAGE_TRUST) void vscode.commands.executeCommand('workbench.trust.manage');
    });
  return false;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `reveal` shows the Runs view with the given run selected. */
export async function runAgentCommand(services: Services, reveal: (runId?: string) => Promise<void>, args: RunAgentArgs = {}): Promise<string | undefined> {
  if (!ensureTrusted('Running an agent')) return undefined;
  const { budget, error: budgetError } = checkBudget(args.budget);
  if (budgetError) {
    void vscode.window.showErrorMessage(budgetError);
    return undefined;
  }
  const scope = await pickFolder(services, args.folder);
  if (!scope) return undefined;
  if (!ensureApiKey(services.keys)) return undefined;
  const picked = args.agent ? undefined : await pickAgent(scope, 'Subagents: Run Agent');
  if (!args.agent && !picked) return undefined;
  // A team runs its lead with the team file; an agent of the same name wins.
  const team = picked?.kind === 'team' ? scope.teamStart(picked.team.name) : args.agent ? scope.teamStart(args.agent) : undefined;
  const agent = team ? scope.find(team.info.lead) : picked?.kind === 'agent' ? picked.agent : scope.find(args.agent!);
  if (!agent) {
    if (team) void vscode.window.showErrorMessage(`Team "${team.info.name}" is led by "${team.info.lead}", which is not an agent here (${team.info.filePath}).`);
    else void vscode.window.showErrorMessage(`Unknown agent or team "${args.agent}". Available: ${[...scope.agents.map((a) => a.name), ...(scope.teams?.teams.map((t) => t.name) ?? [])].join(', ') || 'none'}`);
    return undefined;
  }
  if (scope.settings.disabledAgents.includes(agent.name)) {
    void vscode.window.showErrorMessage(`Agent "${agent.name}" is disabled (setting subagents.disabledAgents). Remove it from that list to run it.`);
    return undefined;
  }
  if (agent.userInvocable === false) {
    void vscode.window.showErrorMessage(`Agent "${agent.name}" is there for other agents to start (user-invocable: false in its file), not to be run by itself.`);
    return undefined;
  }
  const what = team ? `team ${team.info.name}` : agent.name;
  let task = args.task?.trim();
  let isolated = args.isolation === 'worktree' || agent.isolation === 'worktree';
  if (!task) {
    // A team's members get worktrees of their own; the lead works in the folder.
    const canIsolate = !team && agent.isolation !== 'worktree' && args.isolation === undefined && (await isGitRepo(scope.folder.uri.fsPath));
    const input = await askTask({ title: `Subagents: Run ${what}`, prompt: team ? `What should team ${team.info.name} do?` : `What should ${agent.name} do?`, canIsolate, isolated });
    if (!input) return undefined;
    task = input.task;
    isolated ||= input.isolated;
  }
  let run: AgentRun;
  try {
    run = await scope.engine.start({ agent: agent.name, prompt: task, cwd: scope.folder.uri.fsPath, isolation: isolated ? 'worktree' : undefined, budget, team });
  } catch (error) {
    if (!(error instanceof EngineError)) services.log.error(`Starting ${what} failed: ${errorText(error)}`);
    void vscode.window.showErrorMessage(`Could not start ${what}: ${errorText(error)}`);
    return undefined;
  }
  services.log.info(`Started ${what} (${run.id}) in ${scope.folder.name}${isolated ? ' in a worktree' : ''}.`);
  if (args.notify !== false) void run.done.then(announceRunEnd);
  await reveal(run.tree.runId);
  return run.id;
}

export async function stopRunCommand(services: Services, agentId?: string): Promise<boolean> {
  agentId ??= await pickRunningAgent(services, { title: 'Subagents: Stop Run', placeHolder: 'Which agent should stop?', none: 'No agent is running.', note: 'stops its sub-agents too' });
  if (!agentId) return false;
  const stopped = await services.stopAgent(agentId, 'Stopped by the user.', 'vscode');
  if (stopped === 'not running') {
    void vscode.window.showInformationMessage('That agent is not running any more.');
    return false;
  }
  services.log.info(stopped === 'sent' ? `Asked the process that runs agent ${agentId} to stop it.` : `Stopped agent ${agentId}.`);
  return true;
}

export function stopAllCommand(services: Services): number {
  const stopped = services.scopes.all.reduce((sum, scope) => sum + scope.engine.cancelAll('Stopped by the user (Stop All).'), 0);
  services.log.info(`Stop All: stopped ${stopped} run(s).`);
  void vscode.window.showInformationMessage(stopped ? `Stopped ${stopped} run${stopped === 1 ? '' : 's'}.` : 'No agent is running.');
  return stopped;
}

export async function sendFollowUpCommand(services: Services, reveal: (runId?: string) => Promise<void>, agentId?: unknown, prompt?: unknown): Promise<string | undefined> {
  if (typeof agentId !== 'string' || !agentId) {
    void vscode.window.showErrorMessage('Send Follow-up needs an agent: use the button on an ended agent in the Agents view.');
    return undefined;
  }
  if (!ensureTrusted('Sending a follow-up')) return undefined;
  if (!ensureApiKey(services.keys)) return undefined;
  const node = services.agentNode(agentId);
  const run = services.runOf(agentId);
  const scope = run ? services.folderOf(run) : services.scopes.all[0];
  if (!scope) {
    void vscode.window.showErrorMessage('The folder this agent ran in is not open any more; open it to continue the agent.');
    return undefined;
  }
  let text = typeof prompt === 'string' ? prompt.trim() : '';
  if (!text) {
    const entered = await vscode.window.showInputBox({
      title: `Subagents: Follow-up to ${node?.agentName ?? agentId}`,
      prompt: 'The agent continues with its whole earlier conversation.',
      placeHolder: 'What should it do next?',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? null : 'Write the follow-up, or press Escape to cancel.'),
    });
    if (!entered?.trim()) return undefined;
    text = entered.trim();
  }
  try {
    const continued = await scope.engine.sendFollowUp(agentId, text);
    void continued.done.then(announceRunEnd);
    await reveal(continued.tree.runId);
    return continued.id;
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not continue ${node?.agentName ?? agentId}: ${errorText(error)}`);
    return undefined;
  }
}
