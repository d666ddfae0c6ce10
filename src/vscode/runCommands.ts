import * as vscode from 'vscode';
import * as z from 'zod/mini';
import { AdmissionError, type AdmissionRefusal } from '../core/engine/tree/admission';
import type { Budget } from '../core/engine/tree/budget';
import { EngineError } from '../core/engine/errors';
import type { RunHandle } from '../core/runtime/api';
import type { RunSnapshot } from '../protocol/runSnapshot';
import { ADMISSION_WORDS, namingTeams } from '../protocol/admission';
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
  showRestricted(`${what} is not possible in Restricted Mode: agents run tools (shell commands, file edits) in this workspace, so it must be trusted first.`);
  return false;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The engine's refusal (admission.ts), in its words, with the way out where there is one. */
function refuse(services: Services, refusal: AdmissionRefusal): undefined {
  if (refusal.code === 'restricted') showRestricted(refusal.message);
  else if (refusal.code === 'no-key') ensureApiKey(services.keys);
  else void vscode.window.showErrorMessage(refusal.message);
  return undefined;
}

function showRestricted(message: string): void {
  void vscode.window.showWarningMessage(message, MANAGE_TRUST).then((choice) => {
    if (choice === MANAGE_TRUST) void vscode.commands.executeCommand('workbench.trust.manage');
  });
}

/** `reveal` shows the Runs view with the given run selected. */
export async function runAgentCommand(services: Services, reveal: (runId?: string) => Promise<void>, args: RunAgentArgs = {}): Promise<string | undefined> {
  if (!vscode.workspace.isTrusted) return refuse(services, { code: 'restricted', message: ADMISSION_WORDS.restricted() });
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
  const name = team?.info.lead ?? (picked?.kind === 'agent' ? picked.agent.name : args.agent!);
  // Asked before the task is: the engine's answer, in its words, whatever it is.
  const refusal = scope.admission(name, 'user', budget);
  // A name that is no agent may have been meant as a team: the teams are named too.
  const teams = scope.teams?.teams.map((t) => t.name) ?? [];
  if (refusal) return refuse(services, namingTeams(refusal, teams));
  const agent = scope.find(name)!;
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
  let run: RunHandle;
  try {
    run = await services.runtime.start({ scope: scope.spec(), agent: agent.name, prompt: task, isolation: isolated ? 'worktree' : undefined, budget, via: 'palette', team });
  } catch (error) {
    if (error instanceof AdmissionError) return refuse(services, error.refusal);
    if (!(error instanceof EngineError)) services.log.error(`Starting ${what} failed: ${errorText(error)}`);
    void vscode.window.showErrorMessage(`Could not start ${what}: ${errorText(error)}`);
    return undefined;
  }
  services.scopes.noteRun(run.runId, scope);
  services.log.info(`Started ${what} (${run.agentId}) in ${scope.folder.name}${isolated ? ' in a worktree' : ''}.`);
  if (args.notify !== false) void announceWhenDone(run, (runId) => services.store.get(runId));
  await reveal(run.runId);
  return run.agentId;
}

/**
 * Announces how a run this window started ends (runNotifications.ts), with
 * the changes any of its agents left (`runOf` gives its snapshot); a runtime
 * that went away says nothing.
 */
export async function announceWhenDone(run: RunHandle, runOf?: (runId: string) => RunSnapshot | undefined): Promise<void> {
  const result = await run.result().catch(() => null);
  if (result) announceRunEnd(result, runOf?.(result.runId));
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

export async function stopAllCommand(services: Services): Promise<number> {
  const stopped = await services.runtime.stopAll('Stopped by the user (Stop All).');
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
    const continued = await services.runtime.followUp({ scope: scope.spec(), agentId, prompt: text });
    void announceWhenDone(continued, (runId) => services.store.get(runId));
    await reveal(continued.runId);
    return continued.agentId;
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not continue ${node?.agentName ?? agentId}: ${errorText(error)}`);
    return undefined;
  }
}
