import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { AgentCatalog } from '../../../../src/core/agents/catalog/catalog';
import { buildAgentsTree, NO_FILTER, type SearchOrderNode } from '../../../../src/surfaces/views/agentsTreeModel';
import { folderAgents } from '../../../../src/surfaces/views/viewModel';
import { layout, writeAgent } from './helpers';

// Precedence goes family by family, each family's project folder before the
// user's: a ~/.claude agent wins over a project .gemini one of the same name.
// The Agents view shows that order (its Search Order node, each agent's
// place in it), computed from the dirs discovery really searched.

test('family by family: a user ~/.claude agent shadows a project .gemini one, and the view lists the folders in that order', async (t) => {
  const { root, home, cwd } = layout(t);
  writeAgent(cwd, '.gemini/agents/reviewer.md', 'reviewer');
  writeAgent(home, '.claude/agents/reviewer.md', 'reviewer');
  writeAgent(cwd, '.claude/agents/lead.md', 'lead');
  writeAgent(home, '.omp/agent/agents/scout.md', 'scout');
  writeAgent(path.join(root, 'plug'), 'agents/helper.md', 'helper');
  const catalog = await AgentCatalog.create({ cwd, home, pluginDirs: [path.join(root, 'plug')], loadClaudePlugins: false, bundledDir: null });
  t.after(() => catalog.dispose());

  assert.equal(catalog.find('reviewer')?.filePath, path.join(home, '.claude/agents/reviewer.md'));
  const view = folderAgents({ key: 'k', name: 'repo', folder: cwd, catalog, disabled: [] });
  assert.deepEqual(
    view.dirs.map((d) => `${d.rank}. ${d.display} (${d.source})`),
    // (The test's home is not the user's, so its folders show as full paths.)
    [`1. ${path.join(home, '.omp/agent/agents')} (user)`, '2. .claude/agents (project)', `3. ${path.join(home, '.claude/agents')} (user)`, '4. .gemini/agents (project)', `5. ${path.join(root, 'plug', 'agents')} (plugin)`],
  );
  const reviewers = view.agents.filter((a) => a.name === 'reviewer');
  assert.deepEqual(
    reviewers.map((a) => [a.source, a.foundIn, a.shadowedBy]),
    [
      ['user', { rank: 3, dir: path.join(home, '.claude/agents') }, null],
      ['project', { rank: 4, dir: '.gemini/agents' }, `user agent ${path.join(home, '.claude/agents/reviewer.md')}`],
    ],
  );
  const order = buildAgentsTree([view], true, NO_FILTER).roots.find((n): n is SearchOrderNode => n.kind === 'order');
  assert.deepEqual(order?.children.map((c) => c.dir.rank), [1, 2, 3, 4, 5]);
});

test("files that hold agents by their name (a .roomodes, an opencode.json) show as such in the search order, and their agents' place in it", async (t) => {
  const { home, cwd } = layout(t);
  writeAgent(cwd, '.kiro/agents/ops.md', 'ops');
  writeFileSync(path.join(cwd, '.roomodes'), 'customModes:\n  - slug: docs\n    name: Docs\n    roleDefinition: Docs.\n    groups: [read]\n');
  writeFileSync(path.join(cwd, 'opencode.json'), JSON.stringify({ agent: { planner: { description: 'Plans.' } } }));
  const catalog = await AgentCatalog.create({ cwd, home, pluginDirs: [], loadClaudePlugins: false, bundledDir: null, editorStorage: path.join(home, 'storage') });
  t.after(() => catalog.dispose());
  const view = folderAgents({ key: 'k', name: 'repo', folder: cwd, catalog, disabled: [] });
  assert.deepEqual(view.dirs.map((d) => `${d.rank}. ${d.display} (${d.family})`), ['1. opencode.json, opencode.jsonc (.opencode)', '2. .roomodes (.roo)', '3. .kiro/agents (.kiro)']);
  assert.deepEqual(view.agents.map((a) => [a.name, a.foundIn?.dir]), [['planner', 'opencode.json, opencode.jsonc'], ['docs', '.roomodes'], ['ops', '.kiro/agents']]);
});
