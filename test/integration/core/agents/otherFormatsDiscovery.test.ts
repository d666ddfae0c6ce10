import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { AgentCatalog, type AgentCatalogOptions } from '../../../../src/core/agents/catalog/catalog';
import { discoverAgents, sourceOptions } from '../../../../src/core/agents/catalog/discovery';
import { resolveAgentDirs } from '../../../../src/core/agents/sources/sources';
import { layout, writeFile } from './helpers';

// Where the home tools of the formats read by readers of their own look,
// and which definition wins, as discovery sees it; and the catalog
// following their folders and single files (`.roomodes`, `opencode.json`).

const md = (fields: string, body = 'Do the work.') => `---\n${fields}\n---\n${body}\n`;

function workspace(t: TestContext) {
  const { root, home, cwd } = layout(t);
  // A git repository: opencode and Kilo walk up to its root.
  mkdirSync(path.join(cwd, '.git'), { recursive: true });
  const at = (relPath: string, text: string) => writeFile(relPath.startsWith('~/') ? path.join(home, relPath.slice(2)) : path.join(cwd, relPath), text);
  return { root, home, cwd, at, editorStorage: path.join(home, 'vscode-storage') };
}

test("each family's folders, and which definition wins: Cursor's over Claude Code's, the project's over the user's", async (t) => {
  const { home, cwd, at, editorStorage } = workspace(t);
  at('.claude/agents/reviewer.md', md('name: reviewer\ndescription: Claude Code reviewer.'));
  at('.cursor/agents/reviewer.md', md('name: reviewer\ndescription: Cursor reviewer.'));
  at('~/.qwen/agents/tester.md', md('name: tester\ndescription: User tester.', 'You test things carefully.'));
  at('.qwen/agents/tester.md', md('name: tester\ndescription: Project tester.', 'You test things carefully.'));
  at('.qwen/agents/sub/ignored.md', md('name: nested\ndescription: Qwen reads only the top level.', 'You are never loaded here.'));
  at('~/.kiro/agents/ops.json', JSON.stringify({ name: 'ops', description: 'Global ops.' }));
  at('.kiro/agents/ops.json', JSON.stringify({ name: 'ops', description: 'Local ops.' }));
  at('.kiro/agents/team/planner.md', md('description: Plans.'));
  at('.kiro/agents/team/nested.json', JSON.stringify({ name: 'nested-json', description: 'Kiro reads JSON at the top only.' }));
  at('.factory/droids/fd.md', md('name: fd\ndescription: Droid.'));
  at('.factory/droids/more/deep.md', md('name: deep\ndescription: Factory reads only the top level.'));
  at('.roomodes', 'customModes:\n  - slug: docs\n    name: Docs\n    roleDefinition: Project docs.\n    groups: [read]\n');
  at(path.join(path.relative(home, editorStorage), 'rooveterinaryinc.roo-cline/settings/custom_modes.yaml').replace(/^/, '~/'), 'customModes:\n  - slug: docs\n    name: Docs\n    roleDefinition: Global docs.\n    groups: [read]\n  - slug: global-only\n    name: G\n    roleDefinition: Global only.\n    groups: [read]\n');
  const result = await discoverAgents({ cwd, home, loadClaudePlugins: false, bundledDir: null, editorStorage });
  const winner = (name: string) => result.agents.find((a) => a.name === name);
  assert.equal(winner('reviewer')?.description, 'Cursor reviewer.');
  assert.equal(winner('tester')?.description, 'Project tester.');
  assert.equal(winner('ops')?.description, 'Local ops.');
  assert.equal(winner('team/planner')?.format, 'kiro');
  assert.equal(winner('docs')?.systemPrompt, 'Project docs.');
  assert.equal(winner('global-only')?.source, 'user');
  assert.equal(winner('fd')?.format, 'factory');
  for (const absent of ['nested', 'nested-json', 'deep']) assert.equal(winner(absent), undefined, absent);
  assert.deepEqual(result.shadowed.map((s) => [s.definition.name, s.definition.family]).sort(), [['docs', '.roo'], ['ops', '.kiro'], ['reviewer', '.claude'], ['tester', '.qwen']]);
  // The search order lists the single files' folders with the file they stand for.
  const order = result.dirs.map((d) => `${d.family}:${path.relative(cwd, d.path) || '.'}${d.rules?.only ? `/${d.rules.only.join('|')}` : ''}`);
  assert.ok(order.indexOf('.cursor:.cursor/agents') < order.indexOf('.claude:.claude/agents'), order.join('\n'));
  assert.ok(order.includes('.roo:./.roomodes'), order.join('\n'));
});

test("opencode merges every definition of a name, in its own order: global config, the project's files, its .opencode folders", async (t) => {
  const { home, cwd, at } = workspace(t);
  at('~/.config/opencode/agents/review.md', md('description: From the global folder.\nmodel: anthropic/claude-haiku-4-5\ntemperature: 0.3', 'Global prompt.'));
  at('opencode.json', JSON.stringify({ agent: { review: { steps: 9, description: 'From opencode.json.' }, json_only: { description: 'Only in JSON.' } } }));
  at('.opencode/agents/review.md', md('description: From the project folder.', 'Project prompt.'));
  at('.opencode/modes/build.md', md('description: Builds.'));
  at('.opencode/agents/team/lead.md', md('description: Leads.'));
  // No XDG_CONFIG_HOME: the global folder is ~/.config/opencode, whatever the machine running the test sets.
  const result = await discoverAgents({ cwd, home, loadClaudePlugins: false, bundledDir: null, env: {} });
  const review = result.agents.find((a) => a.name === 'review')!;
  assert.deepEqual([review.description, review.systemPrompt, review.model, review.maxTurns, review.source], ['From the project folder.', 'Project prompt.', 'claude-haiku-4-5', 9, 'project']);
  assert.equal(review.mergedFrom?.length, 3);
  assert.ok(result.agents.some((a) => a.name === 'json_only'));
  assert.equal(result.agents.find((a) => a.name === 'build')?.modelInvocable, false);
  assert.ok(result.agents.some((a) => a.name === 'team/lead'));
  assert.deepEqual(result.shadowed.filter((s) => s.definition.name === 'review').map((s) => s.merged), [true, true]);
});

test('opencode and Kilo find their global folder under XDG_CONFIG_HOME, and the folder OPENCODE_CONFIG_DIR / KILO_CONFIG_DIR names, last (it wins)', async (t) => {
  const { root, home, cwd, at } = workspace(t);
  const xdg = path.join(root, 'xdg');
  const extra = path.join(root, 'extra-opencode');
  const kiloExtra = path.join(root, 'extra-kilo');
  at('~/.config/opencode/agents/stale.md', md('description: Only where XDG_CONFIG_HOME does not point.'));
  writeFile(path.join(xdg, 'opencode', 'agents', 'review.md'), md('description: From the XDG folder.\nsteps: 4', 'Global prompt.'));
  writeFile(path.join(xdg, 'opencode', 'opencode.json'), JSON.stringify({ agent: { from_global_json: { description: 'Global JSON.' } } }));
  at('.opencode/agents/review.md', md('description: From the project folder.', 'Project prompt.'));
  writeFile(path.join(extra, 'agents', 'review.md'), md('description: From OPENCODE_CONFIG_DIR.', 'Env prompt.'));
  writeFile(path.join(extra, 'opencode.json'), JSON.stringify({ agent: { from_env_json: { description: 'Env JSON.' } } }));
  writeFile(path.join(xdg, 'kilo', 'agents', 'kilo-global.md'), md('description: Kilo global.'));
  writeFile(path.join(kiloExtra, 'agent', 'kilo-extra.md'), md('description: Kilo extra.'));
  const env = { XDG_CONFIG_HOME: xdg, OPENCODE_CONFIG_DIR: extra, KILO_CONFIG_DIR: kiloExtra };
  const result = await discoverAgents({ cwd, home, loadClaudePlugins: false, bundledDir: null, env });
  const names = result.agents.map((a) => a.name);
  assert.ok(!names.includes('stale'), names.join());
  for (const name of ['from_global_json', 'from_env_json', 'kilo-global', 'kilo-extra']) assert.ok(names.includes(name), name);
  // Merged field by field, the environment's folder last: its description and prompt over the project's, the global steps kept.
  const review = result.agents.find((a) => a.name === 'review')!;
  assert.deepEqual([review.description, review.systemPrompt, review.maxTurns, review.filePath], ['From OPENCODE_CONFIG_DIR.', 'Env prompt.', 4, path.join(extra, 'agents', 'review.md')]);
  assert.equal(result.agents.find((a) => a.name === 'kilo-global')?.source, 'user');
  // An empty XDG_CONFIG_HOME is unset; a missing OPENCODE_CONFIG_DIR folder is watched for.
  const plain = await discoverAgents({ cwd, home, loadClaudePlugins: false, bundledDir: null, env: { XDG_CONFIG_HOME: '', OPENCODE_CONFIG_DIR: path.join(root, 'not-yet') } });
  assert.ok(plain.agents.some((a) => a.name === 'stale'));
  const { candidates } = await resolveAgentDirs(sourceOptions({ cwd, home, loadClaudePlugins: false, bundledDir: null, env: { OPENCODE_CONFIG_DIR: path.join(root, 'not-yet') } }));
  assert.ok(candidates.includes(path.join(root, 'not-yet', 'agents')) && candidates.includes(path.join(root, 'not-yet', 'opencode.json')));
});

test('an untrusted workspace reads none of the project files of these formats', async (t) => {
  const { home, cwd, at } = workspace(t);
  at('.roomodes', 'customModes:\n  - slug: docs\n    name: Docs\n    roleDefinition: x\n    groups: [read]\n');
  at('opencode.json', JSON.stringify({ agent: { a: { description: 'a' } } }));
  at('.cursor/agents/c.md', 'c');
  at('~/.cursor/agents/mine.md', 'Mine.');
  const result = await discoverAgents({ cwd, home, loadClaudePlugins: false, bundledDir: null, includeProjectAndPlugins: false });
  assert.deepEqual(result.agents.map((a) => a.name), ['mine']);
});

async function open(t: TestContext, options: AgentCatalogOptions): Promise<AgentCatalog> {
  const catalog = await AgentCatalog.create({ loadClaudePlugins: false, bundledDir: null, debounceMs: 20, watch: true, ...options });
  t.after(() => catalog.dispose());
  return catalog;
}

function changed(catalog: AgentCatalog, done: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`${what}: no such change; agents: ${catalog.agents.map((a) => a.name).join(', ')}`));
    }, 10_000);
    const off = catalog.onDidChange(() => {
      if (!done()) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

test('live: a .roomodes and an opencode.json written later are read, edits apply, deletions remove their agents; new folders too', async (t) => {
  const { home, cwd, at } = workspace(t);
  const catalog = await open(t, { cwd, home });
  const names = () => catalog.agents.map((a) => a.name).sort();
  assert.deepEqual(names(), []);

  let next = changed(catalog, () => names().includes('docs'), 'a new .roomodes');
  at('.roomodes', 'customModes:\n  - slug: docs\n    name: Docs\n    roleDefinition: First.\n    groups: [read]\n');
  await next;

  next = changed(catalog, () => catalog.find('docs')?.systemPrompt === 'Second.' && names().includes('helper'), 'an edited .roomodes');
  at('.roomodes', 'customModes:\n  - slug: docs\n    name: Docs\n    roleDefinition: Second.\n    groups: [read]\n  - slug: helper\n    name: Helper\n    roleDefinition: Helps.\n    groups: [read]\n');
  await next;

  next = changed(catalog, () => names().includes('planner'), 'a new opencode.json');
  at('opencode.json', JSON.stringify({ agent: { planner: { description: 'Plans.' } } }));
  await next;

  next = changed(catalog, () => names().includes('droid'), 'a new .factory/droids folder');
  at('.factory/droids/droid.md', md('name: droid\ndescription: A droid.'));
  await next;

  next = changed(catalog, () => !names().includes('docs') && !names().includes('helper'), 'a deleted .roomodes');
  rmSync(path.join(cwd, '.roomodes'));
  await next;
  assert.deepEqual(names(), ['droid', 'planner']);
});

test('a .roomodes or opencode.json that is there is watched as content alone: its edits are read without relisting every dir', async (t) => {
  const { home, cwd, at } = workspace(t);
  at('.roomodes', 'customModes: []\n');
  at('opencode.json', '{}');
  const { candidates } = await resolveAgentDirs(sourceOptions({ cwd, home, loadClaudePlugins: false, bundledDir: null }));
  assert.ok(!candidates.includes(path.join(cwd, '.roomodes')) && !candidates.includes(path.join(cwd, 'opencode.json')));
  // Its absent siblings are still watched for: they may appear next to it.
  assert.ok(candidates.includes(path.join(cwd, 'opencode.jsonc')) && candidates.includes(path.join(cwd, '.kilocodemodes')));
});
