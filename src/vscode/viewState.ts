import type { Notice, StatusState } from '../protocol/webview';
import type { Services } from './services';
import { folderAgents, type FolderAgents } from '../surfaces/views/viewModel';

/** What the two views show besides the runs: every folder's agents (Agents view) and the notices that explain the state (Runs view). */

export interface AgentsState {
  folders: FolderAgents[];
  notices: Notice[];
  /** False in an untrusted workspace: nothing can run (S7.1). */
  canRun: boolean;
}

export function notices(services: Services): Notice[] {
  const out: Notice[] = [];
  if (!services.trusted) {
    out.push({
      id: 'untrusted',
      level: 'warning',
      text: 'Restricted Mode: this workspace is not trusted, so its own agents and plugin agents are not loaded and no agent can run. Only your user agents and the built-in ones are listed.',
      action: { label: 'Manage Workspace Trust', command: 'manageTrust' },
    });
  }
  if (services.keys.demo) {
    out.push({
      id: 'demo-model',
      level: 'info',
      text: 'Demo model: there is no Anthropic API key, so agents run on the scripted demo model npm start provides (models named demo-…). Set a key to run them on Claude.',
      action: { label: 'Set API Key', command: 'setApiKey' },
    });
  } else if (!services.keys.key) {
    out.push({
      id: 'no-key',
      level: 'info',
      text: 'No Anthropic API key yet. Set one to run agents (or start VS Code with ANTHROPIC_API_KEY).',
      action: { label: 'Set API Key', command: 'setApiKey' },
    });
  }
  if (services.keptWorktrees.length) {
    const n = services.keptWorktrees.length;
    out.push({
      id: 'kept-worktrees',
      level: 'info',
      text: `${n} worktree${n === 1 ? '' : 's'} with changes ${n === 1 ? 'was' : 'were'} kept from interrupted runs: ${services.keptWorktrees.map((r) => `${r.agentName} (${r.branch})`).join(', ')}.`,
      action: { label: 'Clean Up Worktrees…', command: 'cleanUpWorktrees' },
    });
  }
  return out;
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
      }),
    ),
    notices: notices(services),
    canRun: services.trusted,
  };
}

export function statusState(services: Services): StatusState {
  return { notices: notices(services), canRun: services.trusted };
}
