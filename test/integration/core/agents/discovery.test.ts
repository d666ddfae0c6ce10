import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { discoverAgents, type DiscoveryOptions, type DiscoveryResult } from '../../../../src/core/agents/catalog/discovery';
import { layout, writeAgent, writeFile } from './helpers';

// Where agents come from (docs/agent-files.md), rule by rule: search order,
// order within a folder, missing and unreadable folders. Each test builds its own workspace and home
// folder; only paths inside the test's temp root are asserted on, so stray
// agent dirs above the temp dir cannot make a test flaky.

async function discover(t: TestContext, root: string, options: DiscoveryOptions): Promise<DiscoveryResult> {
  const result = await discoverAgents({ loadClaudePlugins: false, bundledDir: null, ...options });
  const inside = (p: string) => p.startsWith(root + path.sep);
  t.diagnostic(`dirs: ${result.dirs.map((d) => d.path).join(', ')}`);
  return {
    agents: result.agents.filter((a) => inside(a.filePath)),
    shadowed: result.shadowed.filter((s) => inside(s.definition.filePath)),
    warnings: result.warnings.filter((w) => inside(w.filePath)),
    dirs: result.dirs.filter((d) => inside(d.path)),
    aliases: result.aliases,
  };
}

const rel = (root: string, p: string) => path.relative(root, p);

test('project beats user within a family, and the loser is recorded as shadowed', async (t) => {
  const { root, home, cwd } = layout(t);
  const project = writeAgent(cwd, '.claude/agents/a.md', 'a');
  const user = writeAgent(home, '.claude/agents/a.md', 'a');
  writeAgent(home, '.claude/agents/b.md', 'b');
  const result = await discover(t, root, { cwd, home });
  assert.deepEqual(result.agents.map((a) => [a.name, a.source, a.family, rel(root, a.filePath)]), [
    ['a', 'project', '.claude', rel(root, project)],
    ['b', 'user', '.claude', 'home/.claude/agents/b.md'],
  ]);
  assert.deepEqual(result.shadowed, [
    { definition: { ...result.shadowed[0]!.definition }, shadowedBy: { source: 'project', family: '.claude', filePath: project } },
  ]);
  assert.equal(result.shadowed[0]?.definition.filePath, user);
});

test('across families, the shadowed record names the winner\'s source and family, not the loser\'s', async (t) => {
  const { root, home, cwd } = layout(t);
  const project = writeAgent(cwd, '.claude/agents/reviewer.md', 'reviewer');
  const user = writeAgent(home, '.gemini/agents/reviewer.md', 'reviewer');
  const result = await discover(t, root, { cwd, home });
  assert.deepEqual(result.agents.map((a) => [a.name, a.source, a.family]), [['reviewer', 'project', '.claude']]);
  assert.deepEqual(
    result.shadowed.map((s) => [s.definition.source, s.definition.family, s.definition.filePath, s.shadowedBy]),
    [['user', '.gemini', user, { source: 'project', family: '.claude', filePath: project }]],
  );
});

test('families in order .omp, .claude, .codex, .gemini, .github, each project then user', async (t) => {
  const { root, home, cwd } = layout(t);
  // Every dir defines "x" plus an agent of its own; the order of the own
  // agents is the dir order, and "x" must come from the first dir.
  const dirs = [
    [cwd, '.omp/agents', 'omp-project'],
    [home, '.omp/agent/agents', 'omp-user'],
    [cwd, '.claude/agents', 'claude-project'],
    [home, '.claude/agents', 'claude-user'],
    [cwd, '.codex/agents', 'codex-project'],
    [home, '.codex/agents', 'codex-user'],
    [cwd, '.gemini/agents', 'gemini-project'],
    [home, '.gemini/agents', 'gemini-user'],
    [cwd, '.github/agents', 'github-project'],
  ] as const;
  for (const [base, dir, own] of [...dirs].reverse()) {
    writeAgent(base, `${dir}/x.md`, 'x');
    writeAgent(base, `${dir}/${own}.md`, own);
  }
  const result = await discover(t, root, { cwd, home });
  assert.deepEqual(result.dirs.map((d) => rel(root, d.path)), dirs.map(([base, dir]) => rel(root, path.join(base, dir))));
  assert.deepEqual(result.agents.map((a) => a.name), ['omp-project', 'x', 'omp-user', ...dirs.slice(2).map(([, , own]) => own)]);
  assert.equal(result.agents.find((a) => a.name === 'x')?.filePath, path.join(cwd, '.omp/agents/x.md'));
  assert.equal(result.shadowed.length, dirs.length - 1);
  assert.ok(result.shadowed.every((s) => s.shadowedBy.filePath === path.join(cwd, '.omp/agents/x.md')));
});

test('.github has no user dir, and .omp\'s user dir is ~/.omp/agent/agents', async (t) => {
  const { root, home, cwd } = layout(t);
  writeAgent(home, '.github/agents/gh.md', 'gh');
  writeAgent(home, '.omp/agents/wrong.md', 'wrong');
  writeAgent(home, '.omp/agent/agents/right.md', 'right');
  const result = await discover(t, root, { cwd, home });
  assert.deepEqual(result.agents.map((a) => a.name), ['right']);
});

test('plugins come after every family dir, configured roots first, and before bundled; their agents are plugin:agent', async (t) => {
  const { root, home, cwd } = layout(t);
  const pluginA = path.join(root, 'plugins', 'a');
  const pluginB = path.join(root, 'plugins', 'b');
  const bundled = path.join(root, 'bundled');
  writeAgent(home, '.gemini/agents/shared.md', 'shared');
  writeAgent(pluginA, 'agents/shared.md', 'shared');
  writeAgent(pluginA, 'agents/plugin-only.md', 'plugin-only');
  writeAgent(pluginA, 'agents/only-a.md', 'only-a');
  writeAgent(pluginB, 'agents/plugin-only.md', 'plugin-only');
  writeAgent(pluginB, 'agents/general.md', 'general');
  writeAgent(bundled, 'general.md', 'general');
  writeAgent(bundled, 'builtin.md', 'builtin');
  const result = await discover(t, root, { cwd, home, pluginDirs: [pluginA, pluginB], bundledDir: bundled });
  assert.deepEqual(result.agents.map((a) => [a.name, a.source, a.family]), [
    ['shared', 'user', '.gemini'],
    ['a:only-a', 'plugin', null],
    ['a:plugin-only', 'plugin', null],
    ['a:shared', 'plugin', null],
    ['b:general', 'plugin', null],
    ['b:plugin-only', 'plugin', null],
    ['builtin', 'bundled', null],
    ['general', 'bundled', null],
  ]);
  // Nothing shadows anything: every plugin agent has its own qualified name.
  assert.deepEqual(result.shadowed, []);
  // A bare name is kept only where it is one plugin agent's alone.
  assert.deepEqual(result.aliases, { 'only-a': 'a:only-a' });
  // A plugin agent named like a built-in one does not take the built-in's name, and says so.
  assert.deepEqual(
    result.warnings.map((w) => w.message),
    ['"general" is also the name of a built-in agent, which keeps it; this plugin agent is "b:general"'],
  );
});

test('names are case-sensitive: Task and task are two agents', async (t) => {
  const { root, home, cwd } = layout(t);
  writeAgent(cwd, '.claude/agents/upper.md', 'Task');
  writeAgent(cwd, '.claude/agents/lower.md', 'task');
  const result = await discover(t, root, { cwd, home });
  assert.deepEqual(result.agents.map((a) => a.name).sort(), ['Task', 'task']);
  assert.equal(result.shadowed.length, 0);
});

test('within a dir, files are read in lexicographic order of their relative path, subfolders included', async (t) => {
  const { root, home, cwd } = layout(t);
  const dir = path.join(cwd, '.claude/agents');
  for (const file of ['b/x.md', 'b.md', 'a/z.md', 'A.md', 'a-b.md']) writeAgent(dir, file, `dup`);
  writeAgent(dir, 'a/deeper/own.md', 'own');
  writeFile(path.join(dir, 'notes.txt'), 'not an agent');
  writeAgent(dir, '.hidden/secret.md', 'secret');
  const result = await discover(t, root, { cwd, home });
  // Code-unit order: 'A' < 'a' and '-' < '.' < '/'.
  assert.equal(result.agents.find((a) => a.name === 'dup')?.filePath, path.join(dir, 'A.md'));
  assert.deepEqual(result.shadowed.map((s) => rel(dir, s.definition.filePath)), ['a-b.md', 'a/z.md', 'b.md', 'b/x.md']);
  assert.deepEqual(result.agents.map((a) => a.name), ['dup', 'own']);
});

test('the nearest project dir wins and farther ones are not searched', async (t) => {
  const { root, home, cwd } = layout(t);
  const outer = path.join(root, 'work');
  writeAgent(outer, '.claude/agents/outer-only.md', 'outer-only');
  writeAgent(outer, '.claude/agents/x.md', 'x');
  writeAgent(cwd, '.claude/agents/x.md', 'x');
  writeAgent(outer, '.codex/agents/codex.md', 'codex');
  const deeper = path.join(cwd, 'src', 'deeper');
  mkdirSync(deeper, { recursive: true });
  const result = await discover(t, root, { cwd: deeper, home });
  // .claude: nearest is the repo's; .codex: only the outer folder has one.
  assert.deepEqual(result.agents.map((a) => [a.name, rel(root, a.filePath)]), [
    ['x', 'work/repo/.claude/agents/x.md'],
    ['codex', 'work/.codex/agents/codex.md'],
  ]);
  assert.equal(result.shadowed.length, 0);
});

test('a workspace inside the home folder does not mistake the user dir for a project dir', async (t) => {
  const { root, home } = layout(t);
  const cwd = path.join(home, 'code', 'repo');
  mkdirSync(cwd, { recursive: true });
  writeAgent(home, '.claude/agents/mine.md', 'mine');
  const result = await discover(t, root, { cwd, home });
  assert.deepEqual(result.agents.map((a) => [a.name, a.source]), [['mine', 'user']]);
});

test('project-scope Claude plugins come before user-scope ones, after configured roots', async (t) => {
  const { root, home, cwd } = layout(t);
  const userPlugin = path.join(home, '.claude/plugins/cache/m/user-plugin/1.0.0');
  const projectPlugin = path.join(home, '.claude/plugins/cache/m/project-plugin/1.0.0');
  const configured = path.join(root, 'configured');
  writeAgent(userPlugin, 'agents/p.md', 'p');
  writeAgent(userPlugin, 'agents/user-only.md', 'user-only');
  writeAgent(projectPlugin, 'agents/p.md', 'p');
  writeAgent(configured, 'agents/c.md', 'c');
  writeFile(
    path.join(home, '.claude/plugins/installed_plugins.json'),
    JSON.stringify({
      version: 2,
      plugins: {
        'user-plugin@m': [{ scope: 'user', installPath: userPlugin, version: '1.0.0' }],
        'project-plugin@m': [{ scope: 'project', projectPath: cwd, installPath: projectPlugin, version: '1.0.0' }],
      },
    }),
  );
  const result = await discover(t, root, { cwd, home, loadClaudePlugins: true, pluginDirs: [configured] });
  assert.deepEqual(result.dirs.map((d) => [rel(root, d.path), d.pluginScope ?? null]), [
    ['configured/agents', null],
    [rel(root, path.join(projectPlugin, 'agents')), 'project'],
    [rel(root, path.join(userPlugin, 'agents')), 'user'],
  ]);
  // Installed plugins are named by their registry id (`<name>@<marketplace>`), not their version folder.
  assert.deepEqual(result.agents.map((a) => [a.name, rel(root, a.filePath)]), [
    ['configured:c', 'configured/agents/c.md'],
    ['project-plugin:p', rel(root, path.join(projectPlugin, 'agents/p.md'))],
    ['user-plugin:p', rel(root, path.join(userPlugin, 'agents/p.md'))],
    ['user-plugin:user-only', rel(root, path.join(userPlugin, 'agents/user-only.md'))],
  ]);
  assert.deepEqual(result.aliases, { c: 'configured:c', 'user-only': 'user-plugin:user-only' });
  assert.deepEqual(result.shadowed, []);
});

test('an untrusted workspace loads only user and bundled agents', async (t) => {
  const { root, home, cwd } = layout(t);
  const bundled = path.join(root, 'bundled');
  const plugin = path.join(root, 'plugin');
  writeAgent(cwd, '.claude/agents/project.md', 'project');
  writeAgent(home, '.claude/agents/user.md', 'user');
  writeAgent(plugin, 'agents/plugin.md', 'plugin');
  writeAgent(bundled, 'bundled.md', 'bundled');
  const result = await discover(t, root, { cwd, home, pluginDirs: [plugin], bundledDir: bundled, includeProjectAndPlugins: false });
  assert.deepEqual(result.agents.map((a) => a.name), ['user', 'bundled']);
});

test('symlinked agents dirs and files are followed', async (t) => {
  const { root, home, cwd } = layout(t);
  const shared = path.join(root, 'dotfiles');
  writeAgent(shared, 'agents/linked-dir.md', 'linked-dir');
  writeAgent(shared, 'single.md', 'linked-file');
  mkdirSync(path.join(cwd, '.claude'), { recursive: true });
  symlinkSync(path.join(shared, 'agents'), path.join(cwd, '.claude/agents'));
  mkdirSync(path.join(home, '.claude/agents'), { recursive: true });
  symlinkSync(path.join(shared, 'single.md'), path.join(home, '.claude/agents/single.md'));
  const result = await discover(t, root, { cwd, home });
  assert.deepEqual(result.agents.map((a) => [a.name, a.source]), [['linked-dir', 'project'], ['linked-file', 'user']]);
});
