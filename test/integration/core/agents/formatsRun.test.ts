import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { AgentCatalog } from '../../../../src/core/agents/catalog/catalog';
import { isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { ScriptedRequest } from '../../../support/scriptedServer';
import { layout, writeFile } from './helpers';

// Every agent-file format end to end: files of each format, discovered from disk, run on
// the real engine against the scripted Messages API server.

function marker(name: string): string {
  return `You are ${name}. [agent:${name}]`;
}

/** A parent that spawns `targets` one after the other and reports each tool result. */
function spawnEach(targets: string[]) {
  return (req: ScriptedRequest) => {
    if (!isAgent(req.system, 'parent')) return { text: `${req.system.split(' [')[0]} (${req.model})` };
    if (req.turn < targets.length) return { toolUses: [{ name: 'Task', input: { description: 'go', prompt: 'go', subagent_type: targets[req.turn] } }] };
    return { text: 'done' };
  };
}

test('plugin agents run by plugin:agent, by a unique bare name, and never in place of a built-in', async (t) => {
  const { root, home, cwd } = layout(t);
  const plugin = path.join(root, 'plugins', 'sec');
  writeFile(path.join(plugin, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'claude-security', agents: ['./extra/auditor.md'] }));
  writeFile(path.join(plugin, 'agents', 'explore.md'), `---\nname: explore\ndescription: The plugin's explore.\nmodel: haiku\n---\n${marker('plugin-explore')}`);
  writeFile(path.join(plugin, 'extra', 'auditor.md'), `---\nname: auditor\ndescription: Audits.\n---\n${marker('auditor')}`);
  writeFile(path.join(plugin, 'extra', 'not-listed.md'), `---\nname: not-listed\ndescription: Not in plugin.json.\n---\nx`);
  const bundled = path.join(root, 'bundled');
  writeFile(path.join(bundled, 'explore.md'), `---\nname: explore\ndescription: The built-in explore.\n---\n${marker('builtin-explore')}`);
  writeFile(path.join(cwd, '.claude', 'agents', 'parent.md'), `---\nname: parent\ndescription: Parent.\n---\n${marker('parent')}`);
  const catalog = await AgentCatalog.create({ cwd, home, pluginDirs: [plugin], loadClaudePlugins: false, bundledDir: bundled });
  t.after(() => catalog.dispose());
  assert.deepEqual(catalog.agents.map((a) => a.name), ['parent', 'claude-security:explore', 'claude-security:auditor', 'explore']);

  const h = await harness({ agents: [], script: spawnEach(['claude-security:explore', 'explore', 'auditor']), engine: { catalog } });
  try {
    await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    const children = h.server.requests.filter((r) => !isAgent(r.system, 'parent')).map((r) => r.system.split(' [')[0]);
    assert.deepEqual(children, ['You are plugin-explore.', 'You are builtin-explore.', 'You are auditor.']);
    const started = h.events.filter((e) => e.type === 'agent_started').map((e) => (e as { agentName?: string }).agentName);
    assert.deepEqual(started.slice(1), ['claude-security:explore', 'explore', 'claude-security:auditor']);
  } finally {
    await h.close();
  }
});

test('models written in other formats run as what they resolve to; unrunnable ones inherit unless aliased', async (t) => {
  const { home, cwd } = layout(t);
  writeFile(path.join(cwd, '.claude', 'agents', 'parent.md'), `---\nname: parent\ndescription: Parent.\nmodel: opus\n---\n${marker('parent')}`);
  writeFile(path.join(cwd, '.github', 'agents', 'copilot.agent.md'), `---\ndescription: d\nmodel: ['GPT-5 (copilot)', 'Claude Sonnet 4.5 (copilot)']\n---\n${marker('copilot')}`);
  writeFile(path.join(cwd, '.omp', 'agents', 'omp.md'), `---\nname: omp\ndescription: d\nmodel: pi/smol, flash\n---\n${marker('omp')}`);
  writeFile(
    path.join(cwd, '.codex', 'agents', 'codex.toml'),
    `name = "codex"\ndescription = "d"\nmodel = "gpt-5.4"\ndeveloper_instructions = "${marker('codex')}"\n`,
  );
  writeFile(path.join(cwd, '.gemini', 'agents', 'gemini.md'), `---\nname: gemini\ndescription: d\nmodel: gemini-2.5-pro\n---\n${marker('gemini')}`);
  const catalog = await AgentCatalog.create({ cwd, home, loadClaudePlugins: false, bundledDir: null });
  t.after(() => catalog.dispose());
  const h = await harness({
    agents: [],
    script: spawnEach(['copilot', 'omp', 'codex', 'gemini']),
    engine: { catalog },
    // The user maps Gemini's model to one that runs; Codex's stays unmapped.
    settings: { modelAliases: { sonnet: 'claude-sonnet-5-5', opus: 'claude-opus-5-5', haiku: 'claude-haiku-5-5', 'gemini-2.5-pro': 'claude-sonnet-4-6' } },
  });
  try {
    await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    const models = Object.fromEntries(h.server.requests.filter((r) => r.turn === 0).map((r) => [r.system.split(' [')[0], r.model]));
    assert.deepEqual(models, {
      'You are parent.': 'claude-opus-5-5',
      'You are copilot.': 'claude-sonnet-4-5',
      'You are omp.': 'claude-haiku-5-5',
      // gpt-5.4 cannot run and is not mapped: the parent's model.
      'You are codex.': 'claude-opus-5-5',
      'You are gemini.': 'claude-sonnet-4-6',
    });
  } finally {
    await h.close();
  }
});

test('a Codex read-only agent cannot write, nor can anything it starts, even when the user runs with bypassPermissions', async (t) => {
  const { home, cwd } = layout(t);
  writeFile(path.join(cwd, '.codex', 'agents', 'reviewer.toml'), `name = "reviewer"\ndescription = "d"\nsandbox_mode = "read-only"\ndeveloper_instructions = "${marker('parent')}"\n`);
  writeFile(path.join(cwd, '.claude', 'agents', 'writer.md'), `---\nname: writer\ndescription: Writes.\n---\n${marker('writer')}`);
  const catalog = await AgentCatalog.create({ cwd, home, loadClaudePlugins: false, bundledDir: null });
  t.after(() => catalog.dispose());
  assert.equal(catalog.find('reviewer')?.permissionMode, 'plan');
  // Codex children run under their parent's sandbox: the writer the reviewer starts is read-only too.
  const h = await harness({ agents: [], script: spawnEach(['writer']), engine: { catalog } });
  try {
    const result = await h.engine.run({ agent: 'reviewer', prompt: 'go', cwd: h.dir, permissionMode: 'bypassPermissions' });
    assert.equal(result.status, 'completed');
    const toolsOf = (name: string) => h.server.requests.find((r) => isAgent(r.system, name))!.toolNames;
    assert.deepEqual(toolsOf('parent'), ['Task', 'TaskOutput', 'TaskStop', 'SendMessage', 'Read', 'Glob', 'Grep', 'LS', 'TodoWrite']);
    assert.deepEqual(toolsOf('writer'), ['Read', 'Glob', 'Grep', 'LS', 'TodoWrite']);
  } finally {
    await h.close();
  }
});
