import type { AgentSummary, AgentsState, FolderAgents, Notice, WebviewToHost } from '../../src/protocol/webview';
import { codicon, el, iconButton, treeItem } from './dom';

/** The upper part of the view: notices, then every folder's agents grouped by source, then problems. */

type Post = (message: WebviewToHost) => void;

/** Which groups the user folded, by key; kept by main.ts across renders and reloads. */
export interface GroupFolding {
  isFolded(key: string): boolean;
  setFolded(key: string, folded: boolean): void;
}

/** A group: a header button that folds it (Enter/Space/click) and its tree. */
function group(key: string, testId: string, icon: string, title: string, count: number, list: HTMLElement, folding: GroupFolding): HTMLElement {
  const header = el('button', { className: 'group-header', testId: `${testId}-header` }, [
    codicon('chevron-down', 'group-twistie'),
    codicon(icon),
    el('span', { text: title }),
    el('span', { className: 'count', text: String(count) }),
  ]);
  header.type = 'button';
  const container = el('div', { className: 'group', testId }, [el('h3', {}, [header]), list]);
  const apply = (folded: boolean) => {
    header.setAttribute('aria-expanded', String(!folded));
    container.classList.toggle('folded', folded);
  };
  apply(folding.isFolded(key));
  header.addEventListener('click', () => {
    const folded = !container.classList.contains('folded');
    folding.setFolded(key, folded);
    apply(folded);
  });
  return container;
}

const SOURCES: Array<{ source: AgentSummary['source']; title: string; icon: string }> = [
  { source: 'project', title: 'Project', icon: 'folder' },
  { source: 'user', title: 'User', icon: 'account' },
  { source: 'plugin', title: 'Plugins', icon: 'extensions' },
  { source: 'bundled', title: 'Built-in', icon: 'package' },
];

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, '-');
}

export function renderNotices(notices: Notice[], post: Post): HTMLElement | null {
  if (notices.length === 0) return null;
  return el(
    'div',
    { className: 'notices', testId: 'notices', role: 'status' },
    notices.map((n) => {
      const button = n.action ? el('button', { className: 'link-button', text: n.action.label, testId: `notice-action-${n.id}` }) : null;
      if (button && n.action) {
        const command = n.action.command;
        button.type = 'button';
        button.addEventListener('click', () => post({ type: 'command', command }));
      }
      return el('div', { className: `notice ${n.level}`, testId: `notice-${n.id}` }, [
        codicon(n.level === 'warning' ? 'warning' : 'info'),
        el('span', { className: 'notice-text', text: n.text }),
        button,
      ]);
    }),
  );
}

function agentItem(agent: AgentSummary, folder: FolderAgents, canRun: boolean, post: Post): HTMLLIElement {
  const open = () => post({ type: 'openFile', filePath: agent.filePath });
  const run = () => post({ type: 'runAgent', agentName: agent.name, folder: folder.key });
  const runnable = canRun && !agent.shadowedBy && !agent.disabled;
  const detail = agent.shadowedBy ? `shadowed by ${agent.shadowedBy}` : agent.disabled ? `disabled · ${agent.description}` : agent.description;
  const row = el('div', { className: 'row' }, [
    el('span', { className: 'twistie-space' }),
    codicon(agent.shadowedBy ? 'circle-slash' : agent.disabled ? 'debug-pause' : 'hubot'),
    el('span', { className: 'name', text: agent.name }),
    el('span', { className: 'detail', text: detail }),
    el('span', { className: 'actions' }, [
      runnable ? iconButton('play', `Run ${agent.name}…`, `run-${agent.name}`, run) : null,
      iconButton('go-to-file', `Open ${agent.name}'s definition`, `open-${agent.name}`, open),
    ]),
  ]);
  const tooltip = [
    agent.description,
    agent.model ? `Model: ${agent.model}` : '',
    agent.shadowedBy ? `Shadowed by ${agent.shadowedBy}` : '',
    agent.disabled ? 'Disabled by subagents.disabledAgents' : '',
    agent.filePath,
  ]
    .filter(Boolean)
    .join('\n');
  const item = treeItem(
    {
      className: `agent${agent.shadowedBy ? ' shadowed' : ''}${agent.disabled ? ' disabled' : ''}`,
      title: tooltip,
      testId: `agent-${agent.name}${agent.shadowedBy ? `-shadowed-${slug(agent.filePath)}` : ''}`,
      key: `agent:${folder.key}:${agent.filePath}`,
      label: `${agent.name}${agent.shadowedBy ? ', shadowed' : ''}${agent.disabled ? ', disabled' : ''}: ${agent.description}`,
      activate: runnable ? run : open,
    },
    row,
  );
  item.dataset.source = agent.source;
  return item;
}

function folderGroups(folder: FolderAgents, canRun: boolean, post: Post, folding: GroupFolding): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (const { source, title, icon } of SOURCES) {
    const agents = folder.agents.filter((a) => a.source === source);
    if (agents.length === 0) continue;
    const list = el('ul', { role: 'tree', className: 'tree' }, agents.map((a) => agentItem(a, folder, canRun, post)));
    list.setAttribute('aria-label', `${title} agents`);
    out.push(group(`${folder.key}:${source}`, `agent-group-${source}`, icon, title, agents.length, list, folding));
  }
  if (folder.warnings.length) {
    const list = el(
      'ul',
      { role: 'tree', className: 'tree warnings', testId: 'warnings' },
      folder.warnings.map((w, i) =>
        treeItem(
          { className: 'warning', title: `${w.message}\n(Enter opens the file)`, testId: `warning-${i}`, key: `warning:${folder.key}:${i}`, label: w.message, activate: () => post({ type: 'openFile', filePath: w.filePath }) },
          el('div', { className: 'row' }, [el('span', { className: 'twistie-space' }), codicon('warning'), el('span', { className: 'name wrap', text: w.message })]),
        ),
      ),
    );
    list.setAttribute('aria-label', 'Problems in agent files');
    out.push(group(`${folder.key}:problems`, 'agent-group-problems', 'warning', 'Problems', folder.warnings.length, list, folding));
  }
  return out;
}

export function renderAgents(state: AgentsState, post: Post, folding: GroupFolding): HTMLElement {
  const section = el('section', { testId: 'agents-section' }, [el('h2', { text: 'Agents' })]);
  const total = state.folders.reduce((n, f) => n + f.agents.length, 0);
  if (total === 0) {
    const create = el('button', { className: 'link-button', text: 'New Agent…', testId: 'agents-empty-new' });
    create.type = 'button';
    create.addEventListener('click', () => post({ type: 'command', command: 'newAgent' }));
    section.append(el('p', { className: 'empty', testId: 'agents-empty' }, [el('span', { text: state.folders.length ? 'No agents found. ' : 'Open a folder to see its agents. ' }), create]));
  }
  const several = state.folders.length > 1;
  for (const folder of state.folders) {
    if (folder.agents.length === 0 && folder.warnings.length === 0) continue;
    const groups = folderGroups(folder, state.canRun, post, folding);
    section.append(several ? el('div', { className: 'folder', testId: `folder-${slug(folder.name)}` }, [el('h3', { className: 'folder-name', text: folder.name }), ...groups]) : el('div', {}, groups));
  }
  return section;
}
