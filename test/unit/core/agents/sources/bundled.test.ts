import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { bundledAgentsDir } from '../../../../../src/core/agents/sources/bundled';
import { parseAgentText } from '../../../../../src/core/agents/parsing/parse';

// A malformed bundled agent is a build error, never a runtime
// surprise. Every file must parse strictly: valid YAML, no warning at all.
const dir = bundledAgentsDir();
const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).sort();

test('bundledAgentsDir() finds the repository\'s agents/ folder from the sources', () => {
  assert.equal(dir, path.join(import.meta.dirname, '../../../../../agents'));
  assert.equal(bundledAgentsDir(path.join(import.meta.dirname, '../../../../../dist')), dir);
});

test('the bundled agents include the documented set', () => {
  const names = files.map((f) => parseAgentText(readFileSync(path.join(dir, f), 'utf8'), { filePath: f, source: 'bundled', family: null }).definition?.name);
  for (const name of ['general-purpose', 'explore', 'plan', 'reviewer']) assert.ok(names.includes(name), name);
  assert.equal(new Set(names).size, names.length, 'bundled agent names are unique');
});

for (const file of files) {
  test(`bundled agent ${file} parses without a single warning`, () => {
    const filePath = path.join(dir, file);
    const { definition, warnings } = parseAgentText(readFileSync(filePath, 'utf8'), { filePath, source: 'bundled', family: null });
    assert.deepEqual(warnings, []);
    assert.ok(definition);
    assert.equal(definition.name, path.basename(file, '.md'), 'file name matches the agent name');
    assert.ok(definition.description.length >= 80, 'the description tells the parent model when to use it');
    assert.ok(definition.systemPrompt.length >= 500, 'the system prompt is substantial');
  });
}

test('the read-only bundled agents cannot write, run commands or spawn', () => {
  for (const name of ['explore', 'plan', 'reviewer']) {
    const filePath = path.join(dir, `${name}.md`);
    const definition = parseAgentText(readFileSync(filePath, 'utf8'), { filePath, source: 'bundled', family: null }).definition;
    assert.ok(definition);
    assert.deepEqual(definition.tools, ['Read', 'Grep', 'Glob', 'LS'], name);
    assert.deepEqual(definition.spawns, [], name);
  }
  const plan = parseAgentText(readFileSync(path.join(dir, 'plan.md'), 'utf8'), { filePath: 'plan.md', source: 'bundled', family: null }).definition;
  assert.equal(plan?.permissionMode, 'plan');
  const explore = parseAgentText(readFileSync(path.join(dir, 'explore.md'), 'utf8'), { filePath: 'explore.md', source: 'bundled', family: null }).definition;
  assert.equal(explore?.model, 'haiku');
  const worker = parseAgentText(readFileSync(path.join(dir, 'general-purpose.md'), 'utf8'), { filePath: 'gp.md', source: 'bundled', family: null }).definition;
  assert.equal(worker?.tools, null);
});
