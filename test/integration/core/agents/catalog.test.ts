import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AgentCatalog, type AgentCatalogChange, type AgentCatalogOptions } from '../../../../src/core/agents/catalog/catalog';
import { UnknownAgentError } from '../../../../src/core/agents/catalog/lookup';
import { agentText, layout, writeAgent, writeFile } from './helpers';

// The catalog follows the files, re-reading only what changed, and looks
// names up exactly.

async function open(t: TestContext, options: AgentCatalogOptions): Promise<AgentCatalog> {
  const catalog = await AgentCatalog.create({ loadClaudePlugins: false, bundledDir: null, debounceMs: 20, ...options });
  t.after(() => catalog.dispose());
  return catalog;
}

/** Resolves with the change events seen until `done()` holds; fails after a timeout. */
function changesUntil(catalog: AgentCatalog, done: () => boolean, timeoutMs = 5000): Promise<AgentCatalogChange[]> {
  const seen: AgentCatalogChange[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no matching change within ${timeoutMs} ms; agents: ${catalog.agents.map((a) => a.name).join(', ')}`));
    }, timeoutMs);
    const unsubscribe = catalog.onDidChange((change) => {
      seen.push(change);
      if (done()) {
        clearTimeout(timer);
        unsubscribe();
        resolve(seen);
      }
    });
  });
}

const names = (catalog: AgentCatalog) => catalog.agents.map((a) => a.name);

test('find is exact; get names the available agents in precedence order', async (t) => {
  const { home, cwd } = layout(t);
  writeAgent(cwd, '.claude/agents/zeta.md', 'zeta');
  writeAgent(home, '.claude/agents/alpha.md', 'alpha');
  writeAgent(cwd, '.omp/agents/mid.md', 'mid');
  const catalog = await open(t, { cwd, home });
  assert.deepEqual(names(catalog), ['mid', 'zeta', 'alpha']);
  assert.equal(catalog.find('zeta')?.source, 'project');
  assert.equal(catalog.find('Zeta'), undefined);
  assert.equal(catalog.get('alpha').source, 'user');
  assert.throws(() => catalog.get('x'), (error: unknown) => error instanceof UnknownAgentError && error.message === 'Unknown agent "x". Available: mid, zeta, alpha');
});

test('watch: adding, editing and deleting a file updates the catalog and notifies', async (t) => {
  const { home, cwd } = layout(t);
  const dir = path.join(cwd, '.claude/agents');
  writeAgent(dir, 'a.md', 'a');
  writeAgent(home, '.claude/agents/b.md', 'b', 'model: haiku');
  const catalog = await open(t, { cwd, home, watch: true });
  assert.deepEqual(names(catalog), ['a', 'b']);

  let changes = changesUntil(catalog, () => catalog.find('c') !== undefined);
  const added = writeAgent(dir, 'c.md', 'c');
  assert.deepEqual((await changes).flatMap((c) => c.reparsedFiles), [added]);

  changes = changesUntil(catalog, () => catalog.find('c')?.model === 'opus');
  writeFileSync(added, agentText('c', 'model: opus'));
  assert.deepEqual([...new Set((await changes).flatMap((c) => c.reparsedFiles))], [added]);

  // A project agent shadowing a user one: deleting it brings the user one back.
  changes = changesUntil(catalog, () => catalog.find('b')?.source === 'project');
  writeAgent(dir, 'b.md', 'b', 'model: sonnet');
  await changes;
  assert.equal(catalog.shadowed.length, 1);
  changes = changesUntil(catalog, () => catalog.find('b')?.source === 'user');
  unlinkSync(path.join(dir, 'b.md'));
  assert.deepEqual((await changes).flatMap((c) => c.reparsedFiles), []);
  assert.equal(catalog.find('b')?.model, 'haiku');
  assert.equal(catalog.shadowed.length, 0);

  changes = changesUntil(catalog, () => catalog.find('c') === undefined);
  unlinkSync(added);
  await changes;
  assert.deepEqual(names(catalog), ['a', 'b']);
});

test('watch: one change among many files re-parses only that file', async (t) => {
  const { home, cwd } = layout(t);
  const dir = path.join(cwd, '.claude/agents');
  for (let i = 0; i < 300; i++) writeAgent(dir, `team-${i % 3}/agent-${i}.md`, `agent-${i}`);
  const catalog = await open(t, { cwd, home, watch: true });
  assert.equal(catalog.agents.length, 300);
  assert.equal(catalog.parseCount, 300);
  const order = names(catalog);

  const target = path.join(dir, 'team-1/agent-4.md');
  const changes = changesUntil(catalog, () => catalog.find('agent-4')?.description === 'Edited.');
  writeFileSync(target, '---\nname: agent-4\ndescription: Edited.\n---\nNew body.\n');
  assert.deepEqual([...new Set((await changes).flatMap((c) => c.reparsedFiles))], [target]);
  assert.equal(catalog.parseCount, 301);
  assert.equal(catalog.agents.length, 300);
  // The in-place update keeps the file's place in precedence order.
  assert.deepEqual(names(catalog), order);
});

test('watch: a burst of writes is debounced and fully applied', async (t) => {
  const { home, cwd } = layout(t);
  const dir = path.join(cwd, '.claude/agents');
  writeAgent(dir, 'seed.md', 'seed');
  const catalog = await open(t, { cwd, home, watch: true });
  const changes = changesUntil(catalog, () => catalog.agents.length === 51);
  for (let i = 0; i < 50; i++) writeAgent(dir, `burst-${i}.md`, `burst-${i}`);
  const seen = await changes;
  assert.ok(seen.length < 50, `expected debounced notifications, got ${seen.length}`);
  assert.equal(catalog.parseCount, 51);
});

test('watch: a new subfolder, and a project agents dir created later, are picked up', async (t) => {
  const { home, cwd } = layout(t);
  writeAgent(home, '.claude/agents/user.md', 'user');
  const catalog = await open(t, { cwd, home, watch: true });
  assert.deepEqual(names(catalog), ['user']);

  // No .claude folder in the workspace yet: it appears, with its agents dir.
  let changes = changesUntil(catalog, () => catalog.find('late') !== undefined);
  const staging = path.join(cwd, 'staging');
  writeAgent(staging, 'late.md', 'late');
  mkdirSync(path.join(cwd, '.claude'));
  renameSync(staging, path.join(cwd, '.claude/agents'));
  await changes;
  assert.equal(catalog.find('late')?.source, 'project');

  changes = changesUntil(catalog, () => catalog.find('nested') !== undefined);
  const sub = path.join(cwd, '.claude/agents/sub');
  mkdirSync(sub);
  writeAgent(sub, 'nested.md', 'nested');
  await changes;

  // The subfolder moves out of the agents dir: its agents go with it.
  changes = changesUntil(catalog, () => catalog.find('nested') === undefined);
  renameSync(sub, path.join(cwd, 'moved-away'));
  await changes;
  assert.ok(catalog.find('late'));

  // The whole project dir goes away again.
  changes = changesUntil(catalog, () => catalog.find('late') === undefined);
  rmSync(path.join(cwd, '.claude'), { recursive: true });
  await changes;
  assert.deepEqual(names(catalog), ['user']);
});

test('watch: a user dir created later and a plugin registry change are picked up', async (t) => {
  const { root, home, cwd } = layout(t);
  const catalog = await open(t, { cwd, home, watch: true, loadClaudePlugins: true });
  assert.deepEqual(names(catalog), []);

  let changes = changesUntil(catalog, () => catalog.find('gem') !== undefined);
  writeAgent(home, '.gemini/agents/gem.md', 'gem');
  await changes;

  const plugin = path.join(root, 'plugin-install');
  writeAgent(plugin, 'agents/from-plugin.md', 'from-plugin');
  changes = changesUntil(catalog, () => catalog.find('from-plugin') !== undefined);
  writeFile(path.join(home, '.claude/plugins/installed_plugins.json'), JSON.stringify({ version: 2, plugins: { 'x@m': [{ scope: 'user', installPath: plugin }] } }));
  await changes;
  assert.equal(catalog.find('from-plugin')?.source, 'plugin');
});

test('watch: a configured plugin folder that is missing is named, and its agents load once it is created', async (t) => {
  const { root, home, cwd } = layout(t);
  const plugin = path.join(root, 'later-plugin');
  const catalog = await open(t, { cwd, home, watch: true, pluginDirs: [plugin] });
  assert.deepEqual(catalog.warnings.map((w) => w.filePath), [plugin]);
  assert.match(catalog.warnings[0]!.message, /^plugin folder .*later-plugin does not exist/);
  const changes = changesUntil(catalog, () => catalog.find('later-plugin:helper') !== undefined);
  writeAgent(plugin, 'agents/helper.md', 'helper');
  await changes;
  assert.deepEqual(catalog.warnings, []);
});

test('refresh() re-reads without watching; no change means no event and no parse', async (t) => {
  const { home, cwd } = layout(t);
  const dir = path.join(cwd, '.claude/agents');
  writeAgent(dir, 'a.md', 'a');
  const catalog = await open(t, { cwd, home });
  let events = 0;
  const unsubscribe = catalog.onDidChange(() => events++);
  await catalog.refresh();
  assert.equal(events, 0);
  assert.equal(catalog.parseCount, 1);

  writeAgent(dir, 'b.md', 'b');
  await catalog.refresh();
  assert.equal(events, 1);
  assert.equal(catalog.parseCount, 2);
  assert.deepEqual(names(catalog), ['a', 'b']);

  unsubscribe();
  writeAgent(dir, 'c.md', 'c');
  await catalog.refresh();
  assert.equal(events, 1);
  assert.deepEqual(names(catalog), ['a', 'b', 'c']);
});

test('a listener that throws does not stop the others; dispose stops everything', async (t) => {
  const { home, cwd } = layout(t);
  const dir = path.join(cwd, '.claude/agents');
  const catalog = await open(t, { cwd, home, watch: true });
  catalog.onDidChange(() => {
    throw new Error('faulty listener');
  });
  const changes = changesUntil(catalog, () => catalog.find('a') !== undefined);
  mkdirSync(dir, { recursive: true });
  writeAgent(dir, 'a.md', 'a');
  await changes;

  catalog.dispose();
  let after = 0;
  catalog.onDidChange(() => after++);
  writeAgent(dir, 'b.md', 'b');
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(after, 0);
  assert.equal(catalog.find('b'), undefined);
});

test('watch: a symlink loop in a watched dir neither hangs nor breaks updates', async (t) => {
  const { home, cwd } = layout(t);
  const dir = path.join(cwd, '.claude/agents');
  writeAgent(dir, 'sub/a.md', 'a');
  symlinkSync('..', path.join(dir, 'sub/loop'));
  const catalog = await open(t, { cwd, home, watch: true });
  assert.deepEqual(names(catalog), ['a']);
  const changes = changesUntil(catalog, () => catalog.find('b') !== undefined);
  writeAgent(dir, 'sub/b.md', 'b');
  await changes;
  assert.deepEqual(names(catalog), ['a', 'b']);
});
