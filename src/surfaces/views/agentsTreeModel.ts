import { AGENT_FAMILIES, AGENT_FAMILY_TITLES, type AgentFamily, type AgentSource } from '../../core/agents/kinds';
import type { AgentSummary, FolderAgents, SearchedDir, TeamSummary, WarningSummary } from './viewModel';
import type { ServerListing } from '../../core/mcp/listing';

/**
 * The Agents view's tree as plain data: per folder, the problems in agent
 * files first (they need the user), then the agents grouped by source, each
 * narrowed by the filter, then the search order (the folders discovery read,
 * first to last: which definition of a name wins). No `vscode` here; agentsTree.ts turns nodes into
 * TreeItems. An agent node carries `agent` and `folder`, so it is itself a
 * valid argument of `subagents.runAgent` (the inline Run button passes it).
 */

export interface AgentFilter {
  /** Words that must all occur in the name or the description (case-insensitive). */
  text: string;
  /** Only these sources; null for all. */
  sources: ReadonlySet<AgentSource> | null;
}

export const NO_FILTER: AgentFilter = { text: '', sources: null };

export const SOURCE_GROUPS: ReadonlyArray<{ source: AgentSource; title: string; icon: string; token: string }> = [
  { source: 'project', title: 'Project', icon: 'folder', token: 'project' },
  { source: 'user', title: 'User', icon: 'account', token: 'user' },
  { source: 'plugin', title: 'Plugins', icon: 'extensions', token: 'plugin' },
  { source: 'bundled', title: 'Built-in', icon: 'package', token: 'builtin' },
];

export interface FolderNode {
  kind: 'folder';
  id: string;
  name: string;
  children: TreeNode[];
}

export interface GroupNode {
  kind: 'group';
  id: string;
  source: AgentSource;
  title: string;
  icon: string;
  /** Agents in the group before filtering. */
  total: number;
  /** Its agents; by family when they come from more than one (their precedence shown by the order). */
  children: Array<AgentNodeItem | FamilyNode>;
}

/** The agents of one family within a source group (`Project › Roo Code`), families in their search order. */
export interface FamilyNode {
  kind: 'family';
  id: string;
  family: AgentFamily;
  /** The home tool, as people call it. */
  title: string;
  children: AgentNodeItem[];
}

export interface AgentNodeItem {
  kind: 'agent';
  id: string;
  /** `subagents.runAgent` arguments: the agent's name and its folder's key. */
  agent: string;
  folder: string;
  summary: AgentSummary;
  runnable: boolean;
  /** Problems the agent's own file has (it loaded anyway). */
  problems: string[];
  /** Where the filter text matched the name, for highlighting. */
  highlights: Array<[number, number]>;
  /** Its MCP servers, and what it names but cannot reach, shown under it. */
  children: ServerNode[];
}

/** One MCP server (or editor tool set) of an agent, or a name it uses that reaches nothing. */
export interface ServerNode {
  kind: 'server';
  id: string;
  server: ServerListing | null;
  problem: string | null;
}

export interface ProblemsNode {
  kind: 'problems';
  id: string;
  children: ProblemNode[];
}

export interface ProblemNode {
  kind: 'problem';
  id: string;
  warning: WarningSummary;
}

/** The folders searched, in precedence order; shown folded, and not while filtering. */
export interface SearchOrderNode {
  kind: 'order';
  id: string;
  children: SearchedDirNode[];
}

export interface SearchedDirNode {
  kind: 'dir';
  id: string;
  dir: SearchedDir;
}

/** A folder's teams (team files), after its agents. */
export interface TeamsNode {
  kind: 'teams';
  id: string;
  children: TeamNodeItem[];
}

export interface TeamNodeItem {
  kind: 'team';
  id: string;
  /** `subagents.runAgent` arguments: the team's name and its folder's key (Run Agent runs a team by its name). */
  agent: string;
  folder: string;
  team: TeamSummary;
  runnable: boolean;
  children: MemberNode[];
}

/** A member a team file declares: its name, and the agent it runs (which may not exist here). */
export interface MemberNode {
  kind: 'member';
  id: string;
  name: string;
  agent: string;
  /** Whether the folder has that agent. */
  known: boolean;
  detail: string;
}

export type TreeNode = FolderNode | GroupNode | FamilyNode | AgentNodeItem | ServerNode | ProblemsNode | ProblemNode | TeamsNode | TeamNodeItem | MemberNode | SearchOrderNode | SearchedDirNode;

export interface AgentsTreeModel {
  roots: TreeNode[];
  /** Agents shown and in all (shadowed definitions included). */
  shown: number;
  total: number;
  parents: Map<string, TreeNode>;
}

/** `@project`, `@user`, `@plugin`, `@builtin` in the text pick sources; the rest are words to find. */
export function parseFilter(input: string): AgentFilter {
  const sources = new Set<AgentSource>();
  const words: string[] = [];
  for (const word of input.trim().split(/\s+/).filter(Boolean)) {
    const group = word.startsWith('@') ? SOURCE_GROUPS.find((g) => g.token === word.slice(1).toLowerCase() || g.source === word.slice(1).toLowerCase()) : undefined;
    if (group) sources.add(group.source);
    else words.push(word);
  }
  return { text: words.join(' '), sources: sources.size ? sources : null };
}

export function filterText(filter: AgentFilter): string {
  const tokens = filter.sources ? SOURCE_GROUPS.filter((g) => filter.sources!.has(g.source)).map((g) => `@${g.token}`) : [];
  return [filter.text, ...tokens].filter(Boolean).join(' ');
}

export function isFiltered(filter: AgentFilter): boolean {
  return filter.text.trim() !== '' || filter.sources !== null;
}

/** Null when the agent does not match; otherwise where the words matched its name. */
export function match(agent: AgentSummary, filter: AgentFilter): Array<[number, number]> | null {
  if (filter.sources && !filter.sources.has(agent.source)) return null;
  const name = agent.name.toLowerCase();
  const description = agent.description.toLowerCase();
  const highlights: Array<[number, number]> = [];
  for (const word of filter.text.toLowerCase().split(/\s+/).filter(Boolean)) {
    const at = name.indexOf(word);
    if (at >= 0) highlights.push([at, at + word.length]);
    else if (!description.includes(word)) return null;
  }
  return highlights;
}

export function buildAgentsTree(folders: readonly FolderAgents[], canRun: boolean, filter: AgentFilter): AgentsTreeModel {
  const filtered = isFiltered(filter);
  const parents = new Map<string, TreeNode>();
  let shown = 0;
  let total = 0;
  const several = folders.length > 1;
  const roots: TreeNode[] = [];
  for (const folder of folders) {
    const nodes: TreeNode[] = [];
    if (folder.warnings.length) {
      const problems: ProblemsNode = { kind: 'problems', id: `problems:${folder.key}`, children: [] };
      problems.children = folder.warnings.map((warning, i) => ({ kind: 'problem', id: `problem:${folder.key}:${i}:${warning.filePath}`, warning }));
      for (const child of problems.children) parents.set(child.id, problems);
      nodes.push(problems);
    }
    const problemsOf = new Map<string, string[]>();
    for (const w of folder.warnings) problemsOf.set(w.filePath, [...(problemsOf.get(w.filePath) ?? []), w.message]);
    for (const { source, title, icon } of SOURCE_GROUPS) {
      const agents = folder.agents.filter((a) => a.source === source);
      if (agents.length === 0) continue;
      total += agents.length;
      // Each filter gives the group an id of its own, so its matches show expanded even where the user had folded it.
      const group: GroupNode = { kind: 'group', id: `group:${folder.key}:${source}${filtered ? `:filter:${filterText(filter)}` : ''}`, source, title, icon, total: agents.length, children: [] };
      for (const summary of agents) {
        const highlights = match(summary, filter);
        if (!highlights) continue;
        const node: AgentNodeItem = {
          kind: 'agent',
          id: `agent:${folder.key}:${summary.filePath}:${summary.shadowedBy ? 'shadowed' : 'winner'}`,
          agent: summary.name,
          folder: folder.key,
          summary,
          runnable: canRun && !summary.shadowedBy && !summary.disabled && summary.userInvocable,
          problems: problemsOf.get(summary.filePath) ?? [],
          highlights,
          children: [],
        };
        const mcp = summary.mcp;
        if (mcp) {
          node.children = [
            ...mcp.servers.map((server): ServerNode => ({ kind: 'server', id: `${node.id}:server:${server.source}:${server.name}`, server, problem: null })),
            ...mcp.problems.map((problem, i): ServerNode => ({ kind: 'server', id: `${node.id}:mcp-problem:${i}`, server: null, problem })),
          ];
          for (const child of node.children) parents.set(child.id, node);
        }
        parents.set(node.id, group);
        group.children.push(node);
      }
      shown += group.children.length;
      // Agents of several tools' folders in one group: each family under its own node, in search order.
      const families = AGENT_FAMILIES.filter((family) => group.children.some((node) => (node as AgentNodeItem).summary.family === family));
      if (families.length > 1) {
        const agents = group.children as AgentNodeItem[];
        const loose = agents.filter((node) => node.summary.family === null);
        group.children = [
          ...families.map((family): FamilyNode => {
            const node: FamilyNode = { kind: 'family', id: `${group.id}:family:${family}`, family, title: AGENT_FAMILY_TITLES[family], children: agents.filter((a) => a.summary.family === family) };
            for (const child of node.children) parents.set(child.id, node);
            parents.set(node.id, group);
            return node;
          }),
          ...loose,
        ];
      }
      if (group.children.length) nodes.push(group);
    }
    const teams = (folder.teams ?? []).filter((t) => !filter.sources || filter.sources.has(t.source)).filter((t) => {
      const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
      return words.every((w) => t.name.toLowerCase().includes(w) || t.description.toLowerCase().includes(w));
    });
    if (teams.length) {
      const known = new Set(folder.agents.filter((a) => !a.shadowedBy).map((a) => a.name));
      const group: TeamsNode = { kind: 'teams', id: `teams:${folder.key}${filtered ? `:filter:${filterText(filter)}` : ''}`, children: [] };
      for (const team of teams) {
        const node: TeamNodeItem = {
          kind: 'team',
          id: `team:${folder.key}:${team.filePath}`,
          agent: team.name,
          folder: folder.key,
          team,
          runnable: canRun && !team.shadowedBy && known.has(team.lead),
          children: [],
        };
        node.children = team.members.map((m): MemberNode => ({
          kind: 'member',
          id: `${node.id}:member:${m.name}`,
          name: m.name,
          agent: m.agent,
          known: known.has(m.agent),
          detail: [m.agent, m.model, m.isolation === 'none' ? 'shares the folder' : null].filter(Boolean).join(' · '),
        }));
        for (const child of node.children) parents.set(child.id, node);
        parents.set(node.id, group);
        group.children.push(node);
      }
      nodes.push(group);
    }
    if (!filtered && folder.dirs.length) {
      const order: SearchOrderNode = { kind: 'order', id: `order:${folder.key}`, children: [] };
      order.children = folder.dirs.map((dir) => ({ kind: 'dir', id: `order:${folder.key}:${dir.rank}:${dir.path}`, dir }));
      for (const child of order.children) parents.set(child.id, order);
      nodes.push(order);
    }
    if (several) {
      const node: FolderNode = { kind: 'folder', id: `folder:${folder.key}`, name: folder.name, children: nodes };
      for (const child of nodes) parents.set(child.id, node);
      roots.push(node);
    } else roots.push(...nodes);
  }
  return { roots, shown, total, parents };
}

export function childrenOf(node: TreeNode): TreeNode[] {
  return node.kind === 'folder' || node.kind === 'group' || node.kind === 'family' || node.kind === 'problems' || node.kind === 'agent' || node.kind === 'teams' || node.kind === 'team' || node.kind === 'order' ? node.children : [];
}

/** The agent nodes of a group, through its family nodes. */
export function groupAgents(group: GroupNode): AgentNodeItem[] {
  return group.children.flatMap((child) => (child.kind === 'family' ? child.children : [child]));
}

