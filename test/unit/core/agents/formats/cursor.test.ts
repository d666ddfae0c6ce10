import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, skipped } from './helpers';

const at = '/repo/.cursor/agents/reviewer.md';

test('Cursor: every field optional; the file names the agent; no frontmatter is an agent whose prompt is the whole text', () => {
  const plain = load('Review the diff and say what breaks.\n', at, '.cursor').definition;
  assert.deepEqual([plain.name, plain.description, plain.systemPrompt, plain.tools, plain.model, plain.format], ['reviewer', '', 'Review the diff and say what breaks.', null, null, 'cursor']);
  const named = load('---\nname: checker\ndescription: Checks things.\n---\nCheck.\n', at, '.cursor').definition;
  assert.deepEqual([named.name, named.description], ['checker', 'Checks things.']);
});

test('Cursor: readonly takes away what writes and runs in plan mode; is_background starts it in the background', () => {
  const { definition, messages } = load('---\nreadonly: true\nis_background: true\n---\nLook.\n', at, '.cursor');
  assert.equal(definition.permissionMode, 'plan');
  assert.deepEqual(definition.disallowedTools.sort(), ['Bash', 'Edit', 'MultiEdit', 'Write']);
  assert.equal(definition.background, true);
  assert.deepEqual(messages, []);
  const writer = load('---\nreadonly: false\n---\nWrite.\n', at, '.cursor').definition;
  assert.deepEqual([writer.permissionMode, writer.disallowedTools], [null, []]);
});

test('Cursor: models — inherit, fast (haiku), a Claude family in its own ids, other models inherit with a warning', () => {
  const model = (written: string) => load(`---\nmodel: ${written}\n---\nx\n`, at, '.cursor');
  assert.equal(model('inherit').definition.model, 'inherit');
  assert.equal(model('fast').definition.model, 'haiku');
  assert.equal(model('claude-4.5-sonnet').definition.model, 'claude-sonnet-4-5');
  assert.equal(model('sonnet-4.5').definition.model, 'claude-sonnet-4-5');
  const composer = model('composer-2');
  assert.equal(composer.definition.model, 'composer-2');
  assert.match(composer.messages.join('\n'), /model "composer-2" is not a Claude model or alias this runtime knows; the agent runs on its parent's model/);
  assert.match(model('gpt-5').messages.join('\n'), /"gpt-5" is OpenAI's/);
});

test('Cursor: a tools list is ignored as Cursor ignores it, and other fields are named in one warning', () => {
  const { definition, messages } = load('---\nname: r\ntools: Read, Grep\ncolor: blue\npermissionMode: plan\n---\nx\n', at, '.cursor');
  assert.equal(definition.tools, null);
  assert.equal(definition.permissionMode, null);
  assert.equal(definition.color, null);
  assert.deepEqual(definition.extra, { tools: 'Read, Grep', color: 'blue', permissionMode: 'plan' });
  assert.match(messages[0]!, /^"tools" is ignored: Cursor gives a subagent every tool/);
  assert.match(messages[1]!, /^fields "color", "permissionMode" have no counterpart here \(Cursor reads only name, description, model, readonly and is_background\)/);
});

test('Cursor: YAML that is not valid is read line by line, with a warning; an unclosed frontmatter is skipped', () => {
  const { definition, messages } = load('---\nname: r\ndescription: Use when: the diff is big\n---\nx\n', at, '.cursor');
  assert.equal(definition.description, 'Use when: the diff is big');
  assert.match(messages[0]!, /^invalid YAML frontmatter/);
  assert.match(skipped('---\nname: r\n', at, '.cursor')[0]!, /no closing "---" line/);
});
