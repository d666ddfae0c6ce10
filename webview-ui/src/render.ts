import type { AgentSummary, ViewState, WebviewToHost } from '../../src/protocol/webview';

type Post = (message: WebviewToHost) => void;

const SOURCE_TITLES: Record<AgentSummary['source'], string> = {
  project: 'Project',
  user: 'User',
  plugin: 'Plugins',
  bundled: 'Built-in',
};

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; text?: string; title?: string; testId?: string } = {},
  children: Node[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  if (props.title) node.title = props.title;
  if (props.testId) node.dataset.testid = props.testId;
  for (const child of children) node.append(child);
  return node;
}

function codicon(name: string): HTMLElement {
  return el('span', { className: `codicon codicon-${name}` });
}

function agentRow(agent: AgentSummary, post: Post): HTMLElement {
  const row = el('li', {
    className: `agent${agent.shadowedBy ? ' shadowed' : ''}${agent.disabled ? ' disabled' : ''}`,
    title: agent.description,
    testId: `agent-${agent.name}`,
  });
  row.tabIndex = 0;
  row.setAttribute('role', 'treeitem');
  const name = el('span', { className: 'name', text: agent.name });
  const detail = el('span', {
    className: 'detail',
    text: agent.shadowedBy ? `shadowed by ${agent.shadowedBy}` : agent.disabled ? 'disabled' : (agent.model ?? ''),
  });
  row.append(codicon(agent.shadowedBy ? 'circle-slash' : 'hubot'), name, detail);
  const open = () => post({ type: 'openDefinition', filePath: agent.filePath });
  row.addEventListener('dblclick', open);
  row.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') open();
  });
  return row;
}

export function renderView(root: HTMLElement, state: ViewState, post: Post): void {
  const sections: Node[] = [];
  if (state.notice) sections.push(el('p', { className: 'notice', text: state.notice, testId: 'notice' }));

  const agentsSection = el('section', { testId: 'agents-section' }, [el('h2', { text: 'Agents' })]);
  if (state.agents.length === 0) {
    agentsSection.append(el('p', { className: 'empty', text: 'No agents found', testId: 'agents-empty' }));
  } else {
    for (const source of ['project', 'user', 'plugin', 'bundled'] as const) {
      const agents = state.agents.filter((a) => a.source === source);
      if (agents.length === 0) continue;
      const list = el('ul', { className: 'agents' }, agents.map((a) => agentRow(a, post)));
      list.setAttribute('role', 'tree');
      agentsSection.append(el('h3', { text: `${SOURCE_TITLES[source]} (${agents.length})` }), list);
    }
  }
  if (state.warnings.length > 0) {
    const list = el(
      'ul',
      { className: 'warnings', testId: 'warnings' },
      state.warnings.map((w) => el('li', { text: w.message, title: w.filePath }, [])),
    );
    agentsSection.append(el('h3', { text: `Problems (${state.warnings.length})` }), list);
  }
  sections.push(agentsSection);

  const runsSection = el('section', { testId: 'runs-section' }, [
    el('h2', { text: 'Runs' }),
    el('p', { className: 'empty', text: 'No runs yet', testId: 'runs-empty' }),
  ]);
  sections.push(runsSection);
  root.replaceChildren(...sections);
}
