import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_MODEL_ALIASES } from '../../../../../src/core/config';
import { modelEffect, resolveModelField } from '../../../../../src/core/agents/interpretation/modelNames';
import { resolveModel } from '../../../../../src/core/engine/loop/models';
import { parseAgentText } from '../../../../../src/core/agents/parsing/parse';

// One truth about a model: what the hover and the diagnostics say (modelEffect)
// is what the Agents view lists (the file's load warning) and what the engine does.

const file = (model: string) => `---\nname: m\ndescription: d\nmodel: ${model}\n---\nBody\n`;

test('a misspelt model: every surface says it runs on the parent’s model, and the engine does', () => {
  const effect = modelEffect('sonne', DEFAULT_MODEL_ALIASES);
  assert.equal(effect.runs, false);
  const { definition, warnings } = parseAgentText(file('sonne'), { filePath: '/p/.claude/agents/m.md', source: 'project', family: null });
  const listed = warnings.map((w) => w.message).find((m) => m.includes('sonne'));
  assert.equal(effect.text.toLowerCase(), `${listed}.`.toLowerCase(), 'the Agents view lists the same sentence');
  assert.equal(resolveModel({ definition: definition!.model, parent: 'claude-opus-5-5', defaultModel: 'sonnet', aliases: DEFAULT_MODEL_ALIASES }), 'claude-opus-5-5');
});

test('an alias the settings map runs as what it maps to; an id runs as written', () => {
  assert.deepEqual(modelEffect('sonnet', DEFAULT_MODEL_ALIASES), { runs: true, text: `"sonnet" runs as "${DEFAULT_MODEL_ALIASES.sonnet}" (subagents.modelAliases).` });
  assert.deepEqual(modelEffect('claude-opus-4-6', DEFAULT_MODEL_ALIASES), { runs: true, text: 'Model id "claude-opus-4-6", sent to the API as written.' });
  assert.equal(modelEffect('sonne', { ...DEFAULT_MODEL_ALIASES, sonne: 'claude-sonnet-5-5' }).runs, true, 'mapped by the user: it runs');
  assert.equal(modelEffect('fast', { fast: 'gpt-5' }).runs, false, 'mapped to another provider: it does not');
});

test('a name resolved again (kept from the first time) resolves as it did, per reading of ids', () => {
  for (let round = 0; round < 2; round++) {
    // Kiro's reading of ids (family and version) and the others' (an id is sent as written) differ for one name.
    assert.deepEqual(resolveModelField('claude-sonnet-4'), { model: 'claude-sonnet-4', runs: true });
    assert.equal(resolveModelField('claude-sonnet-4', { familyVersions: true })?.model, 'sonnet');
    assert.equal(resolveModelField('anthropic/claude-haiku-4-5')?.model, 'claude-haiku-4-5');
    assert.equal(resolveModelField('gpt-5')?.runs, false);
    assert.equal(resolveModelField('pi/smol, haiku')?.model, 'haiku');
  }
  // Shared between files, so nobody may change one.
  assert.ok(Object.isFrozen(resolveModelField('anthropic/claude-haiku-4-5')));
});
