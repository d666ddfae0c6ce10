import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import type { AgentDefinition } from '../core/agents/definition';
import type { TeamDefinition } from '../core/agents/teams/teamFile';
import { isActiveStatus } from '../protocol/vocabulary';
import { agentOf } from '../protocol/runSnapshot';
import type { FolderScope } from './scopes';
import type { Services } from './services';

/** The small dialogs several commands share. Each returns undefined when the user cancels. */

/** The folder to work in: the one given (URI, path or name), the only one, or the user's pick. */
export async function pickFolder(services: Services, given?: string): Promise<FolderScope | undefined> {
  const scopes = services.scopes.all;
  if (given) {
    const scope = services.scopes.get(given);
    if (!scope) void vscode.window.showErrorMessage(`"${given}" is not a folder of this workspace.`);
    return scope;
  }
  if (scopes.length === 0) {
    void vscode.window.showErrorMessage('Open a folder first: agents run in a workspace folder.');
    return undefined;
  }
  if (scopes.length === 1) return scopes[0];
  const picked = await vscode.window.showQuickPick(
    scopes.map((scope) => ({ label: scope.folder.name, description: scope.folder.uri.fsPath, scope })),
    { title: 'Subagents: which folder?', placeHolder: 'Agents run in one workspace folder and see its agents' },
  );
  return picked?.scope;
}

const SOURCE_LABELS: Record<AgentDefinition['source'], string> = { project: 'project', user: 'user', plugin: 'plugin', bundled: 'built-in' };

/** What Run Agent… may run: an agent, or a team (its lead with the team file). */
export type Runnable = { kind: 'agent'; agent: AgentDefinition } | { kind: 'team'; team: TeamDefinition };

export async function pickAgent(scope: FolderScope, title: string): Promise<Runnable | undefined> {
  const disabled = scope.settings.disabledAgents;
  // Copilot's `user-invocable: false`: the agent is there for other agents to start, not offered to you.
  const agents = scope.agents
    .filter((a) => !disabled.includes(a.name) && a.userInvocable !== false)
    .map((agent) => ({
      label: agent.name,
      description: [SOURCE_LABELS[agent.source], agent.model].filter(Boolean).join(' · '),
      detail: agent.description,
      runnable: { kind: 'agent', agent } as Runnable,
    }));
  // Teams after the agents; an agent of a team's name wins, so that team is not offered.
  const teams = (scope.teams?.teams ?? [])
    .filter((team) => !scope.find(team.name))
    .map((team) => ({
      label: `$(organization) ${team.name}`,
      description: `team · ${team.source} · lead ${team.lead}${team.members.length ? ` · ${team.members.map((m) => m.name).join(', ')}` : ''}`,
      detail: team.description,
      runnable: { kind: 'team', team } as Runnable,
    }));
  if (agents.length + teams.length === 0) {
    void vscode.window.showErrorMessage(`No agents are available in ${scope.folder.name}. Create one with "Subagents: New Agent…".`);
    return undefined;
  }
  const items: Array<vscode.QuickPickItem & { runnable?: Runnable }> = [
    ...agents,
    ...(teams.length ? [{ label: 'Teams', kind: vscode.QuickPickItemKind.Separator }, ...teams] : []),
  ];
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder: teams.length ? 'Pick an agent or a team' : 'Pick an agent', matchOnDetail: true });
  return picked?.runnable;
}

export interface TaskInput {
  task: string;
  isolated: boolean;
}

/**
 * Asks for the task. In a git repository the title bar has a toggle to run
 * the agent in a worktree of its own, so the common case stays one Enter.
 */
export function askTask(opts: { title: string; prompt: string; canIsolate: boolean; isolated: boolean }): Promise<TaskInput | undefined> {
  return new Promise((resolve) => {
    const box = vscode.window.createInputBox();
    let isolated = opts.isolated;
    const isolateButton = (): vscode.QuickInputButton => ({
      iconPath: new vscode.ThemeIcon(isolated ? 'git-branch' : 'folder'),
      tooltip: isolated ? 'Runs in an isolated git worktree (click to work in the workspace)' : 'Works in the workspace (click to use an isolated git worktree)',
    });
    const refresh = () => {
      box.prompt = `${opts.prompt}${opts.canIsolate ? (isolated ? ' — in an isolated git worktree' : ' — in the workspace') : ''}`;
      box.buttons = opts.canIsolate ? [isolateButton()] : [];
    };
    box.title = opts.title;
    box.placeholder = 'Describe the task';
    box.ignoreFocusOut = true;
    refresh();
    let done = false;
    const finish = (value: TaskInput | undefined) => {
      if (done) return;
      done = true;
      resolve(value);
      box.dispose();
    };
    box.onDidTriggerButton(() => {
      isolated = !isolated;
      refresh();
    });
    box.onDidChangeValue(() => (box.validationMessage = undefined));
    box.onDidAccept(() => {
      const task = box.value.trim();
      if (!task) {
        box.validationMessage = 'Describe the task, or press Escape to cancel.';
        return;
      }
      finish({ task, isolated });
    });
    box.onDidHide(() => finish(undefined));
    box.show();
  });
}

/** Whether `dir` is inside a git work tree (where worktree isolation is possible). */
export function isGitRepo(dir: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('git', ['rev-parse', '--is-inside-work-tree'], { cwd: dir, timeout: 5000 }, (error, stdout) => resolve(!error && stdout.trim() === 'true'));
  });
}

/**
 * An agent at work, in any folder, or undefined (with `none` said when
 * nothing runs). `note` ends each entry's detail (what picking it does).
 */
export async function pickRunningAgent(services: Services, opts: { title: string; placeHolder: string; none: string; note?: string }): Promise<string | undefined> {
  // Every agent at work, as the snapshots show it: in this window's runs, another window's, a terminal's.
  const running = services.store.list().flatMap((run) =>
    Object.values(run.agents)
      .filter((node) => isActiveStatus(node.status))
      .map((node) => ({ node, run })),
  );
  if (running.length === 0) {
    void vscode.window.showInformationMessage(opts.none);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    running.map(({ node, run }) => {
      const parent = node.parentId ? agentOf(run, node.parentId) : undefined;
      return {
        label: `${'  '.repeat(node.depth)}${node.agentName}`,
        description: node.description,
        detail: [parent ? `spawned by ${parent.agentName}` : 'started by you', services.folderOf(run)?.folder.name, opts.note].filter(Boolean).join(' · '),
        agentId: node.agentId,
      };
    }),
    { title: opts.title, placeHolder: opts.placeHolder },
  );
  return picked?.agentId;
}
