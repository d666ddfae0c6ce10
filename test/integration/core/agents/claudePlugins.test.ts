import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { listClaudePluginRoots } from '../../../../src/core/agents/sources/claudePlugins';
import { layout, writeFile } from './helpers';

// Claude Code's plugin registry belongs to another program: every shape it
// has had must work, and anything else must cost only the plugins.

function registry(home: string, content: unknown): string {
  return writeFile(path.join(home, '.claude/plugins/installed_plugins.json'), typeof content === 'string' ? content : JSON.stringify(content));
}

test('no registry: no plugins and no warning', async (t) => {
  const { home, cwd } = layout(t);
  assert.deepEqual((await listClaudePluginRoots(home, cwd)).roots, []);
  assert.deepEqual((await listClaudePluginRoots(home, cwd)).warnings, []);
});

test('a malformed registry is empty plus one warning', async (t) => {
  for (const content of ['{ not json', '[1, 2]', '{"version": 2}', '{"plugins": []}', '"text"']) {
    const { home, cwd } = layout(t);
    const file = registry(home, content);
    const listing = await listClaudePluginRoots(home, cwd);
    assert.deepEqual(listing.roots, [], content);
    assert.equal(listing.warnings.length, 1, content);
    assert.equal(listing.warnings[0]?.filePath, file);
    assert.match(listing.warnings[0]?.message ?? '', /Claude Code's plugin registry was ignored/);
  }
});

test('version 2: per-plugin entry lists with scopes; other projects\' entries are left out', async (t) => {
  const { root, home, cwd } = layout(t);
  registry(home, {
    version: 2,
    plugins: {
      'u@m': [{ scope: 'user', installPath: '/opt/u', version: '1' }],
      'p@m': [
        { scope: 'project', projectPath: path.join(root, 'elsewhere'), installPath: '/opt/p-elsewhere' },
        { scope: 'local', projectPath: path.dirname(cwd), installPath: '/opt/p-here' },
      ],
      'managed@m': [{ scope: 'managed', installPath: '/opt/managed' }],
      'orphan@m': [{ scope: 'project', installPath: '/opt/no-project-path' }],
      'bad@m': ['not an object', { scope: 'user' }],
    },
  });
  const listing = await listClaudePluginRoots(home, cwd);
  assert.deepEqual(listing.roots, [
    { id: 'p@m', root: '/opt/p-here', scope: 'project' },
    { id: 'u@m', root: '/opt/u', scope: 'user' },
    { id: 'managed@m', root: '/opt/managed', scope: 'user' },
  ]);
  assert.deepEqual(listing.warnings.map((w) => w.message), [
    'plugin "bad@m" has an entry that is not an object; it is ignored',
    'plugin "bad@m" has no install path; its agents are not loaded',
  ]);
});

test('version 1: one object per plugin, user scope; relative install paths resolve in the plugins dir', async (t) => {
  const { home, cwd } = layout(t);
  registry(home, { version: 1, plugins: { 'a@m': { version: '1', installPath: 'cache/m/a/1' } } });
  const listing = await listClaudePluginRoots(home, cwd);
  assert.deepEqual(listing.roots, [{ id: 'a@m', root: path.join(home, '.claude/plugins/cache/m/a/1'), scope: 'user' }]);
});

test('a plugin without installPath is found through known_marketplaces.json', async (t) => {
  const { home, cwd } = layout(t);
  registry(home, { version: 2, plugins: { 'tool@market': [{ scope: 'user' }] } });
  writeFile(
    path.join(home, '.claude/plugins/known_marketplaces.json'),
    JSON.stringify({ market: { source: { source: 'github', repo: 'o/r' }, installLocation: path.join(home, '.claude/plugins/marketplaces/market') } }),
  );
  const listing = await listClaudePluginRoots(home, cwd);
  assert.deepEqual(listing.roots, [{ id: 'tool@market', root: path.join(home, '.claude/plugins/marketplaces/market/plugins/tool'), scope: 'user' }]);
});

test('plugins disabled in Claude Code settings are not loaded', async (t) => {
  const { home, cwd } = layout(t);
  registry(home, {
    version: 2,
    plugins: {
      'off@m': [{ scope: 'user', installPath: '/opt/off' }],
      'on@m': [{ scope: 'user', installPath: '/opt/on' }],
      'project-off@m': [{ scope: 'project', projectPath: cwd, installPath: '/opt/project-off' }],
    },
  });
  writeFile(path.join(home, '.claude/settings.json'), JSON.stringify({ enabledPlugins: { 'off@m': false, 'on@m': true } }));
  writeFile(path.join(cwd, '.claude/settings.local.json'), JSON.stringify({ enabledPlugins: { 'project-off@m': false } }));
  const listing = await listClaudePluginRoots(home, cwd);
  assert.deepEqual(listing.roots.map((r) => r.id), ['on@m']);
  assert.ok(listing.files.includes(path.join(cwd, '.claude/settings.local.json')));
});
