import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildAgentsTree, childrenOf, filterText, groupAgents, match, NO_FILTER, parseFilter, type GroupNode, type TreeNode } from '../../../../src/surfaces/views/agentsTreeModel';
import type { AgentSummary, FolderAgents } from '../../../../src/surfaces/views/viewModel';

function agent(name: string, source: AgentSummary['source'], extra: Partial<AgentSummary> = {}): AgentSummary {
  return { name, description: `${name} does things`, source, family: '.claude', filePath: `/repo/.claude/agents/${name}.md`, model: null, disabled: false, userInvocable: true, shadowedBy: null, color: null, foundIn: null, ...extra };
}

const folder: FolderAgents = {
  key: 'file:///repo',
  name: 'repo',
  agents: [
    agent('code-reviewer', 'project', { description: 'Reviews diffs for bugs' }),
    agent('test-runner', 'project', { description: 'Runs the test suite' }),
    agent('security-auditor', 'user', { description: 'Looks for injection and secrets' }),
    agent('explore', 'bundled'),
    agent('code-reviewer', 'plugin', { shadowedBy: 'project agent .claude/agents/code-reviewer.md', filePath: '/plugins/agents/code-reviewer.md' }),
  ],
  warnings: [{ filePath: '/repo/.claude/agents/broken.md', message: '.claude/agents/broken.md: missing description' }],
  dirs: [
    { rank: 1, path: '/repo/.claude/agents', display: '.claude/agents', source: 'project', family: '.claude', pluginName: null },
    { rank: 2, path: '/home/me/.claude/agents', display: '~/.claude/agents', source: 'user', family: '.claude', pluginName: null },
  ],
};

const names = (nodes: TreeNode[]) => nodes.map((n) => (n.kind === 'group' ? `${n.title}: ${groupAgents(n).map((a) => a.agent).join(',')}` : n.kind));

test('groups agents by source, problems first, and counts them', () => {
  const model = buildAgentsTree([folder], true, NO_FILTER);
  assert.deepEqual(names(model.roots), ['problems', 'Project: code-reviewer,test-runner', 'User: security-auditor', 'Plugins: code-reviewer', 'Built-in: explore', 'order']);
  assert.equal(model.total, 5);
  assert.equal(model.shown, 5);
  const shadowed = groupAgents(model.roots[3] as GroupNode)[0]!;
  assert.equal(shadowed.runnable, false, 'a shadowed agent cannot be run');
  assert.equal(groupAgents(model.roots[1] as GroupNode)[0]!.runnable, true);
  assert.equal(buildAgentsTree([folder], false, NO_FILTER).roots.some((n) => n.kind === 'group' && groupAgents(n).some((a) => a.runnable)), false, 'runnable in Restricted Mode');
});

test('an agent for other agents only (user-invocable: false) is listed but cannot be run', () => {
  const helper = { ...folder, agents: [agent('sql-helper', 'project', { userInvocable: false }), agent('test-runner', 'project')] };
  const group = buildAgentsTree([helper], true, NO_FILTER).roots.find((n) => n.kind === 'group') as GroupNode;
  assert.deepEqual(groupAgents(group).map((a) => [a.agent, a.runnable]), [['sql-helper', false], ['test-runner', true]]);
});

test('an agent node is itself a Run Agent argument', () => {
  const node = groupAgents(buildAgentsTree([folder], true, NO_FILTER).roots[1] as GroupNode)[0]!;
  assert.deepEqual({ agent: node.agent, folder: node.folder }, { agent: 'code-reviewer', folder: 'file:///repo' });
});

test('filters by words in the name or description, and by source; problems stay', () => {
  let model = buildAgentsTree([folder], true, parseFilter('review'));
  assert.deepEqual(names(model.roots), ['problems', 'Project: code-reviewer', 'Plugins: code-reviewer']);
  assert.equal(model.shown, 2);
  model = buildAgentsTree([folder], true, parseFilter('injection'));
  assert.deepEqual(names(model.roots), ['problems', 'User: security-auditor'], 'a description match');
  model = buildAgentsTree([folder], true, parseFilter('code @project'));
  assert.deepEqual(names(model.roots), ['problems', 'Project: code-reviewer']);
  model = buildAgentsTree([folder], true, parseFilter('TEST suite'));
  assert.deepEqual(names(model.roots), ['problems', 'Project: test-runner'], 'every word must match, case-insensitively');
  assert.deepEqual(buildAgentsTree([folder], true, parseFilter('nothing-like-this')).shown, 0);
});

test('filtered groups get their own ids, so they open even where the user folded them', () => {
  const plain = buildAgentsTree([folder], true, NO_FILTER).roots[1]!.id;
  const filtered = buildAgentsTree([folder], true, parseFilter('code')).roots[1]!.id;
  const other = buildAgentsTree([folder], true, parseFilter('review')).roots[1]!.id;
  assert.notEqual(plain, filtered);
  assert.notEqual(filtered, other, 'a new filter opens its groups afresh');
});

test('highlights where the words matched the name', () => {
  assert.deepEqual(match(folder.agents[0]!, parseFilter('review')), [[5, 11]]);
  assert.equal(match(folder.agents[0]!, parseFilter('@user')), null);
});

test('source tokens round-trip through the filter text', () => {
  const filter = parseFilter('  review   @builtin @PROJECT ');
  assert.equal(filter.text, 'review');
  assert.deepEqual([...filter.sources!].sort(), ['bundled', 'project']);
  assert.equal(filterText(filter), 'review @project @builtin');
});

test('several folders each get a folder node', () => {
  const other = { ...folder, key: 'file:///other', name: 'other', warnings: [] };
  const model = buildAgentsTree([folder, other], true, NO_FILTER);
  assert.deepEqual(model.roots.map((n) => n.kind), ['folder', 'folder']);
  const group = model.roots[1]!.kind === 'folder' ? model.roots[1]!.children[0]! : undefined;
  assert.equal(model.parents.get(group!.id), model.roots[1]);
});

test("an agent with MCP servers opens to them: each server's state, then what it names but cannot reach", () => {
  const summary = {
    name: 'triager', description: 'd', source: 'project' as const, family: '.claude' as const, filePath: '/p/.claude/agents/triager.md', model: null, disabled: false, userInvocable: true, shadowedBy: null, color: null, foundIn: null,
    mcp: {
      servers: [{ name: 'github', source: 'claude-project', file: '/p/.mcp.json', transport: 'stdio' as const, target: 'gh-mcp', state: 'reachable' as const, tools: ['search'] }],
      problems: ['"mcp__slack__post" in its tools names the MCP server "slack", which is neither declared in its mcpServers nor configured'],
    },
  };
  const model = buildAgentsTree([{ key: 'k', name: 'p', agents: [summary], warnings: [], dirs: [] }], true, NO_FILTER);
  const group = model.roots[0] as { children: Array<{ kind: string; children: Array<{ server: { name: string } | null; problem: string | null; id: string }> }> };
  const agent = group.children[0]!;
  assert.deepEqual(agent.children.map((c) => c.server?.name ?? c.problem), ['github', summary.mcp.problems[0]]);
  assert.equal(model.parents.get(agent.children[0]!.id), agent);
});

test("a source group holding several families' agents shows each family under its own node, in search order", () => {
  const mixed: FolderAgents = {
    ...folder,
    warnings: [],
    agents: [
      agent('reviewer', 'project', { family: '.cursor', filePath: '/repo/.cursor/agents/reviewer.md' }),
      agent('docs', 'project', { family: '.roo', filePath: '/repo/.roomodes' }),
      agent('tester', 'project'),
      agent('lead', 'project', { family: '.opencode', filePath: '/repo/.opencode/agents/lead.md' }),
      agent('mine', 'user'),
    ],
  };
  const model = buildAgentsTree([mixed], true, NO_FILTER);
  const project = model.roots.find((n) => n.kind === 'group' && n.source === 'project') as GroupNode;
  assert.deepEqual(
    project.children.map((c) => (c.kind === 'family' ? `${c.title}: ${c.children.map((a) => a.agent).join(',')}` : c.agent)),
    ['Cursor: reviewer', 'Claude Code: tester', 'opencode: lead', 'Roo Code: docs'],
  );
  assert.deepEqual(groupAgents(project).map((a) => a.agent), ['reviewer', 'tester', 'lead', 'docs']);
  // Each family node is the parent of its agents, and the group of its families.
  const roo = project.children[3]!;
  assert.equal(model.parents.get(groupAgents(project)[3]!.id), roo);
  assert.equal(model.parents.get(roo.id), project);
  // One family: its agents straight under the group, as before.
  const user = model.roots.find((n) => n.kind === 'group' && n.source === 'user') as GroupNode;
  assert.deepEqual(user.children.map((c) => c.kind), ['agent']);
});

test('the Teams node sits after family-grouped agents, and a member may name an agent of any family', () => {
  const mixed: FolderAgents = {
    ...folder,
    warnings: [],
    agents: [agent('reviewer', 'project', { family: '.cursor', filePath: '/repo/.cursor/agents/reviewer.md' }), agent('tester', 'project')],
    teams: [
      {
        name: 'squad',
        description: 'Reviews and tests',
        source: 'project',
        filePath: '/repo/.subagents/teams/squad.md',
        lead: 'tester',
        members: [
          { name: 'rev', agent: 'reviewer' },
          { name: 'ghost', agent: 'nobody' },
        ],
        shadowedBy: null,
      },
    ],
  };
  const model = buildAgentsTree([mixed], true, NO_FILTER);
  assert.deepEqual(model.roots.map((n) => n.kind), ['group', 'teams', 'order']);
  const project = model.roots[0] as GroupNode;
  assert.deepEqual(project.children.map((c) => c.kind), ['family', 'family']);
  const teams = model.roots[1]!;
  const team = childrenOf(teams)[0]!;
  assert.ok(team.kind === 'team' && team.runnable);
  assert.deepEqual(childrenOf(team).map((m) => (m.kind === 'member' ? `${m.name}:${m.known}` : m.kind)), ['rev:true', 'ghost:false']);
  assert.equal(model.parents.get(childrenOf(team)[0]!.id), team);
  assert.equal(model.parents.get(team.id), teams);
});
