import * as vscode from 'vscode';
import { AGENT_FAMILIES, AGENT_FAMILY_TITLES } from '../core/agents/kinds';
import { AGENT_COLOR_THEME } from '../protocol/agentColor';
import {
  buildAgentsTree,
  childrenOf,
  filterText,
  groupAgents,
  isFiltered,
  NO_FILTER,
  parseFilter,
  SOURCE_GROUPS,
  type AgentFilter,
  type AgentNodeItem,
  type AgentsTreeModel,
  type ServerNode,
  type TreeNode,
} from '../surfaces/views/agentsTreeModel';
import type { AgentsState } from './viewState';
import { describeServer, type ServerListing } from '../core/mcp/listing';
import { isWorktreesNode, worktreesChildren, worktreesItem, worktreesRoots, type WorktreesNode, type WorktreesSummary } from './worktreesOverview';

type ViewNode = TreeNode | WorktreesNode;

/**
 * The Agents view: a native tree of every folder's agents, grouped by
 * source, with problems in agent files on top. Being a TreeView it has VS
 * Code's own keyboard navigation, type-to-find, theming, context menus and
 * screen-reader support. The filter (name, description, source) narrows it
 * as the user types; the view's message says what is hidden and why.
 */

export const AGENTS_VIEW_ID = 'subagents.agentsView';

/** The rule the Search Order node lists, as discovery applies it (src/core/agents/sources/sources.ts). */
const SEARCH_ORDER_HELP =
  'Folders are searched in this order, and the first definition of a name wins; later ones are listed as shadowed. ' +
  `The order goes family by family (${AGENT_FAMILIES.map((f) => AGENT_FAMILY_TITLES[f]).join(', ')}), each family\'s project folder ` +
  'before your own (opencode and Kilo Code merge every definition of a name, in their own order), then plugins, then the built-in agents. ' +
  'So a `~/.claude/agents` agent wins over a project `.gemini/agents` one of the same name.';
const FILTER_CONTEXT = 'subagents.agentsFilterActive';
/** Typing in the filter box narrows the tree at most this often. */
const TYPING_DEBOUNCE_MS = 40;

export class AgentsTree implements vscode.TreeDataProvider<ViewNode>, vscode.Disposable {
  readonly #onDidChange = new vscode.EventEmitter<ViewNode | undefined>();
  readonly onDidChangeTreeData = this.#onDidChange.event;
  readonly view: vscode.TreeView<ViewNode>;
  #filter: AgentFilter = NO_FILTER;
  #model: AgentsTreeModel | null = null;
  #state: AgentsState | null = null;

  /** `worktrees`: the Worktrees section's summary, shown below the agents (see worktreesOverview.ts). */
  constructor(
    private readonly state: () => AgentsState,
    private readonly worktrees: () => WorktreesSummary | null = () => null,
  ) {
    this.view = vscode.window.createTreeView(AGENTS_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    void vscode.commands.executeCommand('setContext', FILTER_CONTEXT, false);
  }

  get filter(): AgentFilter {
    return this.#filter;
  }

  /** The model as shown now (tests and the filter e2e read it). */
  get model(): AgentsTreeModel {
    return (this.#model ??= this.#build());
  }

  refresh(): void {
    this.#state = null;
    this.#model = null;
    this.#onDidChange.fire(undefined);
    this.#updateMessage();
  }

  setFilter(filter: AgentFilter): void {
    this.#filter = filter;
    void vscode.commands.executeCommand('setContext', FILTER_CONTEXT, isFiltered(filter));
    this.#model = null;
    this.#onDidChange.fire(undefined);
    this.#updateMessage();
  }

  #build(): AgentsTreeModel {
    const state = (this.#state ??= this.state());
    return buildAgentsTree(state.folders, state.canRun, this.#filter);
  }

  #updateMessage(): void {
    const state = (this.#state ??= this.state());
    const lines: string[] = [];
    if (!state.canRun) lines.push('Restricted Mode: only your user agents and the built-in ones are listed, and none can run until you trust this workspace.');
    if (isFiltered(this.#filter)) {
      const { shown, total } = this.model;
      lines.push(`${shown} of ${total} agents match "${filterText(this.#filter)}".`);
    }
    this.view.message = lines.length ? lines.join(' ') : undefined;
  }

  getChildren(node?: ViewNode): ViewNode[] {
    if (!node) {
      // The search order (reference, rarely opened) stays last, below the worktrees you may have to act on.
      const order = this.model.roots.filter((n) => n.kind === 'order');
      return [...this.model.roots.filter((n) => n.kind !== 'order'), ...worktreesRoots(this.worktrees()), ...order];
    }
    return isWorktreesNode(node) ? worktreesChildren(node) : childrenOf(node);
  }

  getParent(node: ViewNode): ViewNode | undefined {
    if (isWorktreesNode(node)) return node.kind === 'worktrees' ? undefined : worktreesRoots(this.worktrees())[0];
    return this.model.parents.get(node.id);
  }

  /** Tooltips are made on hover, so a refresh of 160 agents sends only what the rows show. */
  resolveTreeItem(item: vscode.TreeItem, node: ViewNode): vscode.TreeItem {
    if (node.kind === 'agent') item.tooltip = agentTooltip(node);
    return item;
  }

  getTreeItem(node: ViewNode): vscode.TreeItem {
    if (isWorktreesNode(node)) return worktreesItem(node);
    switch (node.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.Expanded);
        item.id = node.id;
        item.iconPath = new vscode.ThemeIcon('root-folder');
        item.contextValue = 'folder';
        return item;
      }
      case 'group': {
        const item = new vscode.TreeItem(node.title, vscode.TreeItemCollapsibleState.Expanded);
        item.id = node.id;
        item.iconPath = new vscode.ThemeIcon(node.icon);
        const shown = groupAgents(node).length;
        item.description = shown === node.total ? String(node.total) : `${shown} of ${node.total}`;
        item.contextValue = 'group';
        return item;
      }
      case 'family': {
        const item = new vscode.TreeItem(node.title, vscode.TreeItemCollapsibleState.Expanded);
        item.id = node.id;
        item.iconPath = new vscode.ThemeIcon('symbol-namespace');
        item.description = String(node.children.length);
        item.tooltip = `${node.title}'s agent files, read as ${node.title} reads them. Families are listed in the order they are searched (Search Order, below).`;
        item.contextValue = 'family';
        return item;
      }
      case 'agent':
        return agentItem(node);
      case 'server':
        return serverItem(node);
      case 'problems': {
        // A few problems show at once; many start folded so they do not push the agents away.
        const item = new vscode.TreeItem('Problems', node.children.length <= 3 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
        item.id = node.id;
        item.description = String(node.children.length);
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
        item.tooltip = 'Agent files with problems. Files that could not be read as agents are not listed as agents.';
        item.contextValue = 'problems';
        return item;
      }
      case 'order': {
        const item = new vscode.TreeItem('Search Order', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = node.id;
        item.description = `${node.children.length} folder${node.children.length === 1 ? '' : 's'}`;
        item.iconPath = new vscode.ThemeIcon('list-ordered');
        item.tooltip = new vscode.MarkdownString(SEARCH_ORDER_HELP);
        item.contextValue = 'order';
        return item;
      }
      case 'teams': {
        const item = new vscode.TreeItem('Teams', vscode.TreeItemCollapsibleState.Expanded);
        item.id = node.id;
        item.description = String(node.children.length);
        item.iconPath = new vscode.ThemeIcon('organization');
        item.tooltip = 'Team files (.subagents/teams/<name>.md of the project, and your own): a lead and its members. ▷ runs one with a goal.';
        item.contextValue = 'teams';
        return item;
      }
      case 'team': {
        const t = node.team;
        const item = new vscode.TreeItem(t.name, node.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        item.description = t.shadowedBy ? `shadowed by ${t.shadowedBy}` : `lead ${t.lead} · ${t.members.length} member${t.members.length === 1 ? '' : 's'}${t.description ? ` · ${t.description}` : ''}`;
        item.iconPath = new vscode.ThemeIcon(t.shadowedBy ? 'circle-slash' : 'organization');
        item.tooltip = new vscode.MarkdownString(`**${escape(t.name)}** · team (${t.source})\n\n${escape(t.description)}\n\nLead: \`${escape(t.lead)}\`\n\n_${escape(t.filePath)}_`);
        item.contextValue = node.runnable ? 'team.runnable' : 'team';
        item.command = { command: 'vscode.open', title: 'Open Team File', arguments: [vscode.Uri.file(t.filePath)] };
        item.accessibilityInformation = { label: `Team ${t.name}, led by ${t.lead}, ${t.members.length} members${t.shadowedBy ? ', shadowed' : ''}` };
        return item;
      }
      case 'member': {
        const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        item.description = node.known ? node.detail : `${node.detail} · no such agent`;
        item.iconPath = new vscode.ThemeIcon(node.known ? 'person' : 'warning', node.known ? undefined : new vscode.ThemeColor('list.warningForeground'));
        item.contextValue = 'teamMember';
        return item;
      }
      case 'dir': {
        const { dir } = node;
        const item = new vscode.TreeItem(`${dir.rank}. ${dir.display}`, vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        const family = dir.family ? AGENT_FAMILY_TITLES[dir.family] : null;
        const plugin = dir.pluginName ? `plugin ${dir.pluginName}` : null;
        item.description = [SOURCE_GROUPS.find((g) => g.source === dir.source)?.title, family, plugin].filter(Boolean).join(' · ');
        item.iconPath = new vscode.ThemeIcon(SOURCE_GROUPS.find((g) => g.source === dir.source)?.icon ?? 'folder');
        item.tooltip = dir.path;
        item.resourceUri = vscode.Uri.file(dir.path);
        item.contextValue = 'searchedDir';
        return item;
      }
      case 'problem': {
        const [file, ...rest] = node.warning.message.split(': ');
        const item = new vscode.TreeItem(file ?? node.warning.filePath, vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        item.description = rest.join(': ');
        item.tooltip = `${node.warning.message}\n\nClick to open the file.`;
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
        item.command = { command: 'vscode.open', title: 'Open File', arguments: [vscode.Uri.file(node.warning.filePath)] };
        item.contextValue = 'problem';
        item.resourceUri = vscode.Uri.file(node.warning.filePath);
        return item;
      }
    }
  }

  dispose(): void {
    this.view.dispose();
    this.#onDidChange.dispose();
  }
}

function agentItem(node: AgentNodeItem): vscode.TreeItem {
  const a = node.summary;
  // An agent with MCP servers opens to them (folded: most of the time one looks for the agent).
  const item = new vscode.TreeItem({ label: a.name, highlights: node.highlights }, node.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = node.id;
  item.description = a.shadowedBy ? `shadowed by ${a.shadowedBy}` : a.disabled ? `disabled · ${a.description}` : a.description;
  // Problems outrank the agent's own accent (its definition's `color`).
  const color = node.problems.length ? new vscode.ThemeColor('list.warningForeground') : a.color ? new vscode.ThemeColor(AGENT_COLOR_THEME[a.color]) : undefined;
  item.iconPath = new vscode.ThemeIcon(a.shadowedBy ? 'circle-slash' : a.disabled ? 'debug-pause' : 'hubot', color);
  item.contextValue = node.runnable ? 'agent.runnable' : 'agent';
  item.command = { command: 'subagents.openAgentDefinition', title: 'Open Definition', arguments: [node] };
  item.accessibilityInformation = {
    label: `${a.name}${a.shadowedBy ? ', shadowed' : ''}${a.disabled ? ', disabled' : ''}${node.problems.length ? ', has problems' : ''}: ${a.description}`,
  };
  return item;
}

const SERVER_ICONS: Record<ServerListing['state'], [string, string | undefined]> = {
  reachable: ['pass', 'testing.iconPassed'],
  failed: ['error', 'list.errorForeground'],
  unchecked: ['circle-large-outline', undefined],
  untrusted: ['shield', 'list.warningForeground'],
  editor: ['plug', undefined],
};

function serverItem(node: ServerNode): vscode.TreeItem {
  if (!node.server) {
    const item = new vscode.TreeItem(node.problem ?? '', vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    item.tooltip = node.problem ?? '';
    item.contextValue = 'mcpProblem';
    return item;
  }
  const server = node.server;
  const item = new vscode.TreeItem(server.name, vscode.TreeItemCollapsibleState.None);
  item.id = node.id;
  const [icon, color] = SERVER_ICONS[server.state];
  item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
  // "reachable, 8 tools" … without the name the label already shows.
  item.description = describeServer(server).slice(server.name.length + 1);
  const tooltip = new vscode.MarkdownString(undefined, true);
  tooltip.appendMarkdown(`**${escape(server.name)}** · MCP server${server.transport === 'editor' ? ' run by VS Code' : ` (${server.transport})`}\n\n`);
  if (server.target) tooltip.appendMarkdown(`\`${escape(server.target)}\`\n\n`);
  if (server.error) tooltip.appendMarkdown(`$(error) ${escape(server.error)}\n\n`);
  if (server.tools?.length) tooltip.appendMarkdown(`Tools: ${server.tools.map((t) => `\`${escape(t)}\``).join(', ')}\n\n`);
  if (server.file) tooltip.appendMarkdown(`_${escape(server.file)}_`);
  item.tooltip = tooltip;
  item.contextValue = `mcpServer.${server.state}`;
  if (server.file) item.command = { command: 'vscode.open', title: 'Open File', arguments: [vscode.Uri.file(server.file)] };
  return item;
}

function agentTooltip(node: AgentNodeItem): vscode.MarkdownString {
  const a = node.summary;
  const tooltip = new vscode.MarkdownString(undefined, true);
  tooltip.appendMarkdown(`**${escape(a.name)}**${a.model ? ` · \`${escape(a.model)}\`` : ''}\n\n`);
  tooltip.appendText(a.description);
  tooltip.appendMarkdown('\n\n');
  if (a.foundIn) tooltip.appendMarkdown(`$(list-ordered) Found in ${escape(a.foundIn.dir)}, folder ${a.foundIn.rank} of the search order\n\n`);
  if (a.shadowedBy) tooltip.appendMarkdown(`$(circle-slash) Shadowed by ${escape(a.shadowedBy)}, found earlier in the search order\n\n`);
  if (a.disabled) tooltip.appendMarkdown('$(debug-pause) Disabled by `subagents.disabledAgents`\n\n');
  if (!a.userInvocable) tooltip.appendMarkdown('$(type-hierarchy-sub) Started by other agents only (`user-invocable: false`)\n\n');
  for (const problem of node.problems) tooltip.appendMarkdown(`$(warning) ${escape(problem)}\n\n`);
  tooltip.appendMarkdown(`_${escape(a.filePath)}_`);
  return tooltip;
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>$]/g, '\\$&');
}

/** Filter Agents…: narrows the tree as the user types; Escape puts the previous filter back. */
export function filterAgentsCommand(tree: AgentsTree, given?: unknown): Promise<AgentFilter> {
  if (typeof given === 'string') {
    tree.setFilter(parseFilter(given));
    return Promise.resolve(tree.filter);
  }
  const before = tree.filter;
  const input = vscode.window.createInputBox();
  input.title = 'Subagents: Filter Agents';
  input.placeholder = 'Name or description; @project @user @plugin @builtin pick sources';
  input.value = filterText(before);
  input.prompt = `${tree.model.shown} of ${tree.model.total} agents`;
  let timer: NodeJS.Timeout | undefined;
  return new Promise((resolve) => {
    let accepted = false;
    input.onDidChangeValue((value) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        tree.setFilter(parseFilter(value));
        input.prompt = `${tree.model.shown} of ${tree.model.total} agents`;
      }, TYPING_DEBOUNCE_MS);
    });
    input.onDidAccept(() => {
      clearTimeout(timer);
      tree.setFilter(parseFilter(input.value));
      accepted = true;
      input.hide();
    });
    input.onDidHide(() => {
      clearTimeout(timer);
      if (!accepted) tree.setFilter(before);
      input.dispose();
      resolve(tree.filter);
    });
    input.show();
  });
}

/** Filter by Source…: a multi-select of the sources, kept with the filter's words. */
export async function filterAgentsBySourceCommand(tree: AgentsTree): Promise<AgentFilter> {
  const current = tree.filter.sources;
  const picked = await vscode.window.showQuickPick(
    SOURCE_GROUPS.map((g) => ({ label: `$(${g.icon}) ${g.title}`, source: g.source, picked: !current || current.has(g.source) })),
    { title: 'Subagents: Filter Agents by Source', canPickMany: true, placeHolder: 'Which sources should the Agents view list?' },
  );
  if (!picked) return tree.filter;
  const all = picked.length === 0 || picked.length === SOURCE_GROUPS.length;
  tree.setFilter({ text: tree.filter.text, sources: all ? null : new Set(picked.map((p) => p.source)) });
  return tree.filter;
}
