import { test } from 'node:test';
import assert from 'node:assert/strict';
import { discoverAgents } from '../../../../src/core/agents/catalog/discovery';
import { AGENT_FORMATS } from '../../../../src/core/agents/kinds';
import { generateAgents, GENERATED_AGENT_COUNT, writeGeneratedAgents } from '../../../support/generatedAgents';
import { layout, runtimeTools } from './helpers';

// The generated workspace the end-to-end tests list at scale (210 agents in
// every format and field shape): each file loads as the generator says it
// must, with exactly the warnings it expects, and the drafts Gemini CLI
// skips are neither loaded nor warned about.

test('210 generated agents in twelve formats load as written, warnings exactly where expected', async (t) => {
  const { home, cwd } = layout(t);
  const { agents, ignored } = writeGeneratedAgents(cwd);
  assert.equal(agents.length, GENERATED_AGENT_COUNT);
  assert.deepEqual(new Set(agents.map((a) => a.format)), new Set(AGENT_FORMATS));
  const result = await discoverAgents({ cwd, home, loadClaudePlugins: false, bundledDir: null });

  // Precedence order is the generator's order: family by family, then by path.
  assert.deepEqual(result.agents.map((a) => a.name), agents.map((a) => a.expect.name));
  assert.deepEqual(result.shadowed, []);
  for (const [i, want] of agents.entries()) {
    const got = result.agents[i]!;
    const file = want.path;
    assert.equal(got.filePath, `${cwd}/${file}`, file);
    assert.equal(got.format, want.format, file);
    assert.equal(got.family, want.family, file);
    assert.deepEqual(
      { name: got.name, description: got.description, tools: runtimeTools(got), model: got.model },
      want.expect,
      file,
    );
    const warnings = result.warnings.filter((w) => w.filePath === got.filePath).map((w) => w.message);
    assert.equal(warnings.length, want.warnings.length, `${file}: ${JSON.stringify(warnings)}`);
    for (const pattern of want.warnings) assert.ok(warnings.some((w) => pattern.test(w)), `${file}: no warning matches ${pattern}: ${JSON.stringify(warnings)}`);
  }
  for (const file of ignored) assert.ok(!result.warnings.some((w) => w.filePath.endsWith(file.path)), file.path);
  // The agents of one file (a .roomodes) share its warnings: each file's are counted once.
  const byFile = new Map(agents.map((a) => [a.path, a.warnings.length]));
  assert.equal(result.warnings.length, [...byFile.values()].reduce((n, count) => n + count, 0));
});

test('the generator is deterministic and its names are unique', () => {
  const a = writeGeneratedAgentsNowhere();
  const b = writeGeneratedAgentsNowhere();
  assert.deepEqual(a, b);
  assert.equal(new Set(a).size, GENERATED_AGENT_COUNT);
  assert.ok(a.includes('code-reviewer'));
});

function writeGeneratedAgentsNowhere(): string[] {
  return generateAgents().agents.map((x) => x.expect.name);
}
