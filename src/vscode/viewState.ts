import type { Notice, StatusState } from '../protocol/webview';
import type { Services } from './services';
import { folderAgents, type FolderAgents } from '../surfaces/views/viewModel';

/** What the two views show besides the runs: every folder's agents (Agents view) and the notices that explain the state (Runs view). */

export interface AgentsState {
  folders: FolderAgents[];
  notices: Notice[];
  /** False in an untrusted workspace: nothing can run. */
  canRun: boolean;
}

/** Notices the user closed for good (the demo banner), kept across windows and reloads. */
export const DISMISSED_NOTICES_KEY = 'subagents.dismissedNotices';

function dismissed(services: Services): string[] {
  return services.context.globalState.get<string[]>(DISMISSED_NOTICES_KEY, []);
}

/** One line each: the view is narrow, and the full text is each notice's tooltip. */
export function notices(services: Services): Notice[] {
  const out: Notice[] = [];
  if (!services.trusted) {
    out.push({
      id: 'untrusted',
      level: 'warning',
      text: 'Restricted Mode: no agent can run.',
      tooltip: 'Restricted Mode: this workspace is not trusted, so its own agents and plugin agents are not loaded and no agent can run. Only your user agents and the built-in ones are listed.',
      actions: [{ label: 'Manage Workspace Trust', command: 'manageTrust' }],
      dismissible: false,
    });
  }
  if (services.keys.demo) {
    if (!dismissed(services).includes('demo-model')) {
      out.push({
        id: 'demo-model',
        level: 'info',
        text: 'Demo model',
        tooltip: 'There is no Anthropic API key, so agents run on the scripted demo model (models named demo-…): it plays a short session with the sample agents and cannot read your requests. Set a key to run them on Claude.',
        actions: [{ label: 'Set API Key', command: 'setApiKey' }],
        dismissible: true,
      });
    }
  } else if (!services.keys.key) {
    out.push({
      id: 'no-key',
      level: 'info',
      text: 'No Anthropic API key yet.',
      tooltip: 'No Anthropic API key yet. Set one to run agents (or start VS Code with ANTHROPIC_API_KEY).',
      actions: [{ label: 'Set API Key', command: 'setApiKey' }],
      dismissible: false,
    });
  }
  if (services.keptWorktrees.length) {
    const n = services.keptWorktrees.length;
    out.push({
      id: 'kept-worktrees',
      level: 'info',
      text: `${n} worktree${n === 1 ? '' : 's'} with changes kept`,
      // Earlier runs: ones that ended with changes nobody applied yet, and ones a crash interrupted (their work is committed on the branch).
      tooltip: `${n === 1 ? 'A worktree' : `${n} worktrees`} with changes left by earlier runs ${n === 1 ? 'waits' : 'wait'} for review: ${services.keptWorktrees.map((r) => `${r.agentName} (${r.branch})`).join(', ')}.`,
      actions: [{ label: 'Review…', command: 'cleanUpWorktrees' }],
      dismissible: false,
    });
  }
  return out;
}

/** Closes a dismissible notice for good. */
export async function dismissNotice(services: Services, id: string): Promise<void> {
  const now = dismissed(services);
  if (!now.includes(id)) await services.context.globalState.update(DISMISSED_NOTICES_KEY, [...now, id]);
}

export function agentsState(services: Services): AgentsState {
  return {
    folders: services.scopes.all.map((scope) =>
      folderAgents({
        key: scope.key,
        name: scope.folder.name,
        folder: scope.folder.uri.fsPath,
        catalog: scope.catalog,
        disabled: scope.settings.disabledAgents,
        mcpServers: scope.mcpServers,
        teams: scope.teams,
      }),
    ),
    notices: notices(services),
    canRun: services.trusted,
  };
}

export function statusState(services: Services): StatusState {
  return { notices: notices(services), canRun: services.trusted, demo: services.keys.demo };
}
