import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, skipped } from './helpers';

const at = '/repo/.factory/droids/reviewer.md';
const droid = (fields: string) => `---\nname: reviewer\ndescription: Reviews diffs.\n${fields}---\nReview.\n`;

test('Factory: tool ids mean their Claude Code tools, and every droid keeps a task list', () => {
  const { definition, messages } = load(droid('tools: ["Read", "Create", "ApplyPatch", "Execute", "FetchUrl", "LS"]\n'), at, '.factory');
  assert.deepEqual(definition.tools, ['Read', 'Write', 'Edit', 'Bash', 'WebFetch', 'LS', 'TodoWrite']);
  assert.deepEqual(messages, []);
  assert.equal(definition.format, 'factory');
});

test('Factory: a category gives its tools; absent is every tool; Claude Code names kept in copied files still mean theirs', () => {
  assert.deepEqual(load(droid('tools: read-only\n'), at, '.factory').definition.tools, ['Read', 'LS', 'Grep', 'Glob', 'TodoWrite']);
  assert.deepEqual(load(droid('tools: execute\n'), at, '.factory').definition.tools, ['Bash', 'TodoWrite']);
  assert.deepEqual(load(droid('tools: mcp\n'), at, '.factory').definition.tools, ['mcp__*', 'TodoWrite']);
  assert.equal(load(droid(''), at, '.factory').definition.tools, null);
  assert.deepEqual(load(droid('tools: Read, Bash, Write, WebFetch\n'), at, '.factory').definition.tools, ['Read', 'Bash', 'Write', 'WebFetch', 'TodoWrite']);
  const unknown = load(droid('tools: [Read, AskUser, Create-PR]\n'), at, '.factory');
  assert.deepEqual(unknown.definition.tools, ['Read', 'AskUser', 'Create-PR', 'TodoWrite']);
  assert.match(unknown.messages.join('\n'), /tool "AskUser" is not available in this runtime/);
});

test('Factory: reasoningEffort is the thinking level; models inherit, Claude ids run, others inherit with a warning', () => {
  const { definition } = load(droid('reasoningEffort: high\nmodel: claude-sonnet-4-5-20250929\n'), at, '.factory');
  assert.deepEqual([definition.thinkingLevel, definition.model], ['high', 'claude-sonnet-4-5-20250929']);
  assert.equal(load(droid('model: inherit\n'), at, '.factory').definition.model, 'inherit');
  assert.match(load(droid('model: gpt-5-codex\n'), at, '.factory').messages.join('\n'), /"gpt-5-codex" is OpenAI's/);
  assert.match(load(droid('model: custom:my-llama\n'), at, '.factory').messages.join('\n'), /model "my-llama" is not a Claude model/);
  assert.match(load(droid('reasoningEffort: extreme\n'), at, '.factory').messages.join('\n'), /"reasoningEffort" must be low, medium or high/);
});

test('Factory: a droid without a name, or with a name Factory refuses, is skipped with the reason; unknown fields are named', () => {
  assert.match(skipped('---\ndescription: x\n---\ny\n', at, '.factory')[0]!, /no "name" \(Factory requires one\)/);
  assert.match(skipped('---\nname: Code Reviewer\n---\ny\n', at, '.factory')[0]!, /may hold only lower-case letters, digits/);
  const { definition, messages } = load(droid('capabilities: [review]\ndisallowedTools: Execute\n'), at, '.factory');
  assert.deepEqual(definition.disallowedTools, ['Bash']);
  assert.match(messages[0]!, /^field "capabilities" has no counterpart here/);
});
