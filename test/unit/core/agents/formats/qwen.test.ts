import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, skipped } from './helpers';

const at = '/repo/.qwen/agents/tester.md';
const agent = (fields: string, body = 'You write tests that fail before the fix.') => `---\nname: tester\ndescription: Writes tests.\n${fields}---\n${body}\n`;

test('Qwen Code: tool names and display names, as a list or comma text; absent or empty is every tool', () => {
  const { definition, messages } = load(agent('tools:\n  - read_file\n  - WriteFile\n  - run_shell_command\n  - grep_search\n  - Glob\n  - ListFiles\n  - todo_write\n  - agent\n'), at, '.qwen');
  assert.deepEqual(definition.tools, ['Read', 'Write', 'Bash', 'Grep', 'Glob', 'LS', 'TodoWrite', 'Task']);
  assert.deepEqual(messages, []);
  assert.deepEqual(load(agent('tools: read_file, Shell, web_fetch\n'), at, '.qwen').definition.tools, ['Read', 'Bash', 'WebFetch']);
  assert.equal(load(agent('tools: []\n'), at, '.qwen').definition.tools, null);
  assert.equal(load(agent(''), at, '.qwen').definition.tools, null);
  // Older names.
  assert.deepEqual(load(agent('tools: [search_file_content, replace, ReadFolder, FindFiles, task]\n'), at, '.qwen').definition.tools, ['Grep', 'Edit', 'LS', 'Glob', 'Task']);
});

test('Qwen Code: names match exactly — a Claude Code name gives nothing there, so nothing here, and the warning says the Qwen spelling', () => {
  const { definition, messages } = load(agent('tools: [Read, Grep, Bash]\n'), at, '.qwen');
  // Grep is a Qwen display name too; Read and Bash are not Qwen names: the agent gets Grep alone.
  assert.deepEqual(definition.tools, ['Grep']);
  // A list of dead names is a list still: no tool at all, never every tool.
  assert.deepEqual(load(agent('tools: [Read, Bash]\n'), at, '.qwen').definition.tools, []);
  assert.deepEqual(messages, [
    'tool "Read" is not available in this runtime (Qwen Code matches tool names exactly: "read_file" or "ReadFile" is, so it gives no tool there, nor here); it will be ignored',
    'tool "Bash" is not available in this runtime (Qwen Code matches tool names exactly: "run_shell_command" or "Shell" is, so it gives no tool there, nor here); it will be ignored',
  ]);
});

test('Qwen Code: models — inherit, ids, authType:id; runConfig and maxTurns; approval modes', () => {
  assert.equal(load(agent('model: anthropic:claude-sonnet-4-5\n'), at, '.qwen').definition.model, 'claude-sonnet-4-5');
  const qwen = load(agent('model: qwen3-coder-plus\n'), at, '.qwen');
  assert.match(qwen.messages.join('\n'), /"qwen3-coder-plus" is Alibaba's/);
  assert.equal(load(agent('model: openai:gpt-4o\n'), at, '.qwen').definition.model, 'gpt-4o');
  assert.equal(load(agent('runConfig:\n  max_turns: 12\n'), at, '.qwen').definition.maxTurns, 12);
  assert.equal(load(agent('runConfig:\n  max_turns: 12\nmaxTurns: 5\n'), at, '.qwen').definition.maxTurns, 5);
  assert.equal(load(agent('approvalMode: auto-edit\n'), at, '.qwen').definition.permissionMode, 'acceptEdits');
  assert.equal(load(agent('approvalMode: yolo\n'), at, '.qwen').definition.permissionMode, 'bypassPermissions');
  assert.equal(load(agent('permissionMode: dontAsk\n'), at, '.qwen').definition.permissionMode, 'default');
  assert.equal(load(agent('effort: med\nbackground: true\ncolor: cyan\n'), at, '.qwen').definition.thinkingLevel, 'medium');
});

test('Qwen Code: what its validator refuses is skipped, with the reason', () => {
  assert.match(skipped('---\nname: tester\n---\nYou write tests for a living.\n', at, '.qwen')[0]!, /no "description" \(Qwen Code requires one\)/);
  assert.match(skipped('---\ndescription: x\n---\nYou write tests for a living.\n', at, '.qwen')[0]!, /no "name"/);
  assert.match(skipped(agent('', 'Short.'), at, '.qwen')[0]!, /shorter than 10 characters/);
  assert.match(skipped('---\nname: -tester\ndescription: x\n---\nYou write tests for a living.\n', at, '.qwen')[0]!, /may not start or end with "-" or "_"/);
  assert.match(skipped('---\nname: system\ndescription: x\n---\nYou write tests for a living.\n', at, '.qwen')[0]!, /a name Qwen Code keeps for itself/);
  assert.match(skipped('---\nname: a b\ndescription: x\n---\nYou write tests for a living.\n', at, '.qwen')[0]!, /only letters, digits/);
  assert.match(skipped(agent('approvalMode: sometimes\n'), at, '.qwen')[0]!, /"approvalMode" must be one of/);
  assert.match(skipped(agent('runConfig:\n  max_turns: -1\n'), at, '.qwen')[0]!, /"runConfig.max_turns" must be a whole number above 0/);
  assert.match(skipped(agent('tools: {read_file: true}\n'), at, '.qwen')[0]!, /"tools" must be a list of tool names/);
  assert.match(skipped('---\nname: tester\ndescription: Use when: testing\n---\nYou write tests for a living.\n', at, '.qwen')[0]!, /not valid YAML, which Qwen Code refuses/);
  assert.match(skipped('You write tests for a living.\n', at, '.qwen')[0]!, /Qwen Code requires/);
  assert.match(skipped(agent('executor:\n  command: other-agent\n'), at, '.qwen')[0]!, /runs an external agent/);
});

test('Qwen Code: the Claude Code fields newer versions read', () => {
  const { definition, messages } = load(agent('mcpServers:\n  - github\nisolation: worktree\nhooks: {}\nskills: [a]\n'), at, '.qwen');
  assert.deepEqual(definition.mcp, [{ name: 'github', ref: true }]);
  assert.equal(definition.isolation, 'worktree');
  assert.match(messages.join('\n'), /fields "hooks", "skills" have no counterpart here/);
});

test('Qwen Code: colours in any case, and "Automatic Color" (what its creation wizard wrote) as auto, without a warning', () => {
  assert.equal(load(agent('color: Blue\n'), at, '.qwen').definition.color, 'blue');
  const automatic = load(agent('color: Automatic Color\n'), at, '.qwen');
  assert.equal(automatic.definition.color, null);
  assert.deepEqual(automatic.messages, []);
  assert.match(load(agent('color: magenta\n'), at, '.qwen').messages.join('\n'), /"color" must be one of/);
});
