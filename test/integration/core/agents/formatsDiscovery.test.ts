import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { AgentCatalog } from '../../../../src/core/agents/catalog/catalog';
import { discoverAgents } from '../../../../src/core/agents/catalog/discovery';
import { layout, writeFile } from './helpers';

// Where each format's files live, and what its home tool skips.

test("each family's dirs: Codex TOML, Gemini's _ names skipped, Copilot chat modes and ~/.copilot/agents", async (t) => {
  const { root, home, cwd } = layout(t);
  writeFile(path.join(cwd, '.codex/agents/review.toml'), 'name = "codex-review"\ndescription = "d"\ndeveloper_instructions = "Review."\n');
  writeFile(path.join(cwd, '.codex/agents/team/plan.toml'), 'name = "codex-plan"\ndescription = "d"\ndeveloper_instructions = "Plan."\n');
  writeFile(path.join(home, '.codex/agents/mine.toml'), 'name = "codex-mine"\ndescription = "d"\ndeveloper_instructions = "Mine."\n');
  // TOML outside Codex's dirs is not an agent file.
  writeFile(path.join(cwd, '.claude/agents/stray.toml'), 'name = "stray"\ndescription = "d"\ndeveloper_instructions = "x"\n');
  writeFile(path.join(cwd, '.gemini/agents/kept.md'), '---\nname: gemini-kept\ndescription: d\n---\nx');
  writeFile(path.join(cwd, '.gemini/agents/_draft.md'), '---\nname: gemini-draft\ndescription: d\n---\nx');
  writeFile(path.join(cwd, '.gemini/agents/_archive/old.md'), '---\nname: gemini-old\ndescription: d\n---\nx');
  writeFile(path.join(cwd, '.github/agents/triage.md'), '---\ndescription: Triage issues.\n---\nx');
  writeFile(path.join(cwd, '.github/chatmodes/review.chatmode.md'), '---\ndescription: Review mode.\ntools: [codebase]\n---\nx');
  writeFile(path.join(home, '.copilot/agents/helper.agent.md'), '---\ndescription: Helps.\n---\nx');
  const result = await discoverAgents({ cwd, home, loadClaudePlugins: false, bundledDir: null });
  const inside = result.agents.filter((a) => a.filePath.startsWith(root));
  assert.deepEqual(
    inside.map((a) => [a.name, a.format, a.source]),
    [
      ['codex-review', 'codex', 'project'],
      ['codex-plan', 'codex', 'project'],
      ['codex-mine', 'codex', 'user'],
      ['gemini-kept', 'gemini', 'project'],
      ['triage', 'copilot', 'project'],
      ['review', 'copilot', 'project'],
      ['helper', 'copilot', 'user'],
    ],
  );
  assert.deepEqual(result.warnings.filter((w) => w.filePath.startsWith(root)), []);
});

test('the watching catalog follows Codex TOML edits and ignores Gemini _ files', async (t) => {
  const { home, cwd } = layout(t);
  const toml = writeFile(path.join(cwd, '.codex/agents/a.toml'), 'name = "a"\ndescription = "first"\ndeveloper_instructions = "x"\n');
  writeFile(path.join(cwd, '.gemini/agents/g.md'), '---\nname: g\ndescription: d\n---\nx');
  const catalog = await AgentCatalog.create({ cwd, home, loadClaudePlugins: false, bundledDir: null, watch: true, debounceMs: 20 });
  t.after(() => catalog.dispose());
  const changed = (check: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no change within 20 s')), 20_000);
      const off = catalog.onDidChange(() => {
        if (!check()) return;
        clearTimeout(timer);
        off();
        resolve();
      });
    });
  const edited = changed(() => catalog.find('a')?.description === 'second');
  writeFile(toml, 'name = "a"\ndescription = "second"\ndeveloper_instructions = "x"\n');
  await edited;
  // An `_` file in .gemini never becomes an agent; a normal one next to it does.
  const added = changed(() => catalog.find('h') !== undefined);
  writeFile(path.join(cwd, '.gemini/agents/_skip.md'), '---\nname: skipped\ndescription: d\n---\nx');
  writeFile(path.join(cwd, '.gemini/agents/h.md'), '---\nname: h\ndescription: d\n---\nx');
  await added;
  assert.equal(catalog.find('skipped'), undefined);
  const removed = changed(() => catalog.find('a') === undefined);
  rmSync(toml);
  await removed;
});

test('plugin.json names the plugin and adds agent paths; a path leaving the plugin is refused', async (t) => {
  const { root, home, cwd } = layout(t);
  const plugin = path.join(root, 'my-plugin-checkout');
  writeFile(path.join(plugin, '.claude-plugin/plugin.json'), JSON.stringify({ name: 'tools-kit', agents: ['./specialists/', './one/solo.md', '../outside/'] }));
  writeFile(path.join(plugin, 'agents/base.md'), '---\nname: base\ndescription: d\n---\nx');
  writeFile(path.join(plugin, 'specialists/deep/spec.md'), '---\nname: spec\ndescription: d\n---\nx');
  writeFile(path.join(plugin, 'one/solo.md'), '---\nname: solo\ndescription: d\n---\nx');
  writeFile(path.join(plugin, 'one/other.md'), '---\nname: other\ndescription: d\n---\nx');
  writeFile(path.join(root, 'outside/escape.md'), '---\nname: escape\ndescription: d\n---\nx');
  const result = await discoverAgents({ cwd, home, pluginDirs: [plugin], loadClaudePlugins: false, bundledDir: null });
  assert.deepEqual(result.agents.map((a) => a.name), ['tools-kit:base', 'tools-kit:spec', 'tools-kit:solo']);
  assert.deepEqual(result.aliases, { base: 'tools-kit:base', spec: 'tools-kit:spec', solo: 'tools-kit:solo' });
  assert.deepEqual(result.warnings.map((w) => w.message), ['agent path "../outside/" leaves the plugin folder; it is ignored']);
});

test('plugin.json: a file or folder listed twice, or already inside a listed or default folder, is found once; a folder listed after one of its files keeps all of them', async (t) => {
  const { root, home, cwd } = layout(t);
  const plugin = path.join(root, 'kit');
  const agents = ['./one/solo.md', './one/', './one/solo.md', './agents/nested/', './agents/nested/deep.md', './more/', './more/sub/inner.md', './agents/base.md'];
  writeFile(path.join(plugin, '.claude-plugin/plugin.json'), JSON.stringify({ name: 'kit', agents }));
  writeFile(path.join(plugin, 'agents/base.md'), '---\nname: base\ndescription: d\n---\nx');
  writeFile(path.join(plugin, 'agents/nested/deep.md'), '---\nname: deep\ndescription: d\n---\nx');
  writeFile(path.join(plugin, 'one/solo.md'), '---\nname: solo\ndescription: d\n---\nx');
  writeFile(path.join(plugin, 'one/other.md'), '---\nname: other\ndescription: d\n---\nx');
  writeFile(path.join(plugin, 'more/sub/inner.md'), '---\nname: inner\ndescription: d\n---\nx');
  const result = await discoverAgents({ cwd, home, pluginDirs: [plugin], loadClaudePlugins: false, bundledDir: null });
  assert.deepEqual(result.agents.map((a) => a.name).sort(), ['kit:base', 'kit:deep', 'kit:inner', 'kit:other', 'kit:solo']);
  assert.deepEqual(result.shadowed.map((s) => s.definition.filePath), [], 'no file is found a second time');
  assert.deepEqual(result.warnings, []);
  assert.deepEqual(
    result.dirs.map((d) => [path.relative(plugin, d.path), d.rules ?? null]),
    [['agents', null], ['one', null], ['more', null]],
  );
});
