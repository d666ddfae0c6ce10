import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import path from 'node:path';
import { agentsCli as cli, assertBundledExplore, BUNDLED_AGENT_COUNT as bundledCount, layout, type AgentsJson } from '../integration/core/agents/helpers';
import { CORPUS_DIR, corpusFiles } from '../support/corpus';

// `subagents agents` over the 158 real-world Claude Code files, as a
// project's agents and as a plugin's.

const CORPUS = CORPUS_DIR;
corpusFiles();

/** A workspace whose .claude/agents is a copy of the corpus (never a link: nothing may write into it). */
function corpusProject(t: TestContext) {
  const dirs = layout(t);
  cpSync(CORPUS, path.join(dirs.cwd, '.claude/agents'), { recursive: true });
  return dirs;
}

test('--json over a project holding the corpus: 158 project agents, the bundled ones, 10 warnings', async (t) => {
  const { cwd, home } = corpusProject(t);
  const { code, stdout, stderr } = await cli(['--json'], cwd, home);
  assert.equal(code, 0, stderr);
  const json = JSON.parse(stdout) as AgentsJson;
  const project = json.agents.filter((a) => a.source === 'project');
  assert.equal(project.length, 158);
  assert.ok(project.every((a) => a.family === '.claude' && a.shadowed === false && a.filePath.startsWith(path.join(cwd, '.claude/agents'))));
  assert.equal(json.agents.filter((a) => a.source === 'bundled').length, bundledCount);
  assert.equal(json.agents.length, 158 + bundledCount);
  assert.deepEqual(json.shadowed, []);
  // 8 files are not valid YAML, 2 name tools this runtime does not have (2 more name MCP tools: mcp__server__tool is matched against servers when the agent runs).
  assert.equal(json.warnings.filter((w) => w.message.startsWith('invalid YAML')).length, 8);
  assert.equal(json.warnings.filter((w) => /not available in this runtime/.test(w.message)).length, 2);
  assert.equal(json.warnings.length, 10);
  assertBundledExplore(json);
});

test('--plugin-dir: the same corpus as a plugin loads beside the project copy, as plugin:agent', async (t) => {
  const { root, cwd, home } = corpusProject(t);
  const plugin = path.join(root, 'plugin');
  cpSync(CORPUS, path.join(plugin, 'agents'), { recursive: true });
  const { code, stdout } = await cli(['--json', '--plugin-dir', plugin], cwd, home);
  assert.equal(code, 0);
  const json = JSON.parse(stdout) as AgentsJson;
  assert.equal(json.agents.length, 158 + 158 + bundledCount);
  assert.equal(json.shadowed.length, 0);
  const fromPlugin = json.agents.filter((a) => a.filePath.startsWith(plugin));
  assert.equal(fromPlugin.length, 158);
  // Every plugin agent is `plugin:name`; the project copy keeps the bare name, so no alias is given.
  assert.ok(fromPlugin.every((a) => a.name.startsWith('plugin:') && json.agents.some((p) => p.name === a.name.slice('plugin:'.length) && p.source === 'project')));
  assert.deepEqual(json.aliases, {});
  assert.equal(json.warnings.length, 20, 'each plugin copy warns like its project twin');
  assert.deepEqual(json.dirs.filter((d) => d.source === 'plugin').map((d) => d.path), [path.join(plugin, 'agents')]);
});
