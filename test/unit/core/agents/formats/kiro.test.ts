import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, skipped } from './helpers';

const at = '/repo/.kiro/agents/aws-helper.json';
const json = (value: Record<string, unknown>) => JSON.stringify(value, null, 2);

test('Kiro JSON: named by its file unless it says; built-in tool names, @builtin, @server and * ; no tools list is no tools', () => {
  const { definition, messages } = load(json({ description: 'Helps with AWS.', prompt: 'You know AWS.', tools: ['read', 'write', 'shell', 'glob', 'grep', 'web_fetch', '@github', '@jira/get_issue', 'use_subagent', 'todo'] }), at, '.kiro');
  assert.deepEqual([definition.name, definition.description, definition.systemPrompt, definition.format], ['aws-helper', 'Helps with AWS.', 'You know AWS.', 'kiro']);
  assert.deepEqual(definition.tools, ['Read', 'LS', 'Write', 'Edit', 'MultiEdit', 'Bash', 'Glob', 'Grep', 'WebFetch', 'mcp__github', 'mcp__jira__get_issue', 'Task', 'TodoWrite']);
  assert.deepEqual(messages, []);
  assert.deepEqual(load(json({ name: 'named' }), at, '.kiro').definition.tools, []);
  assert.equal(load(json({ name: 'named' }), at, '.kiro').definition.name, 'named');
  assert.ok(load(json({ tools: ['*'] }), at, '.kiro').definition.tools?.includes('mcp__*'));
  assert.ok(!load(json({ tools: ['@builtin'] }), at, '.kiro').definition.tools?.includes('mcp__*'));
  // Q Developer's older names.
  assert.deepEqual(load(json({ tools: ['fs_read', 'fs_write', 'execute_bash'] }), at, '.kiro').definition.tools, ['Read', 'LS', 'Write', 'Edit', 'MultiEdit', 'Bash']);
  assert.match(load(json({ tools: ['aws', 'introspect'] }), at, '.kiro').messages.join('\n'), /tools "aws", "introspect" are not available in this runtime/);
});

test('Kiro JSON: a prompt file:// is read when the agent starts, relative to the agent file; resources are context files', () => {
  const { definition } = load(json({ prompt: 'file://./prompts/aws.md', resources: ['file://README.md', 'file://.kiro/steering/**/*.md', 'skill://aws'] }), at, '.kiro');
  assert.equal(definition.systemPrompt, '');
  assert.deepEqual(definition.promptIncludes?.map((i) => [i.as, i.paths, i.required]), [
    ['prompt', ['/repo/.kiro/agents/prompts/aws.md'], true],
    ['context', ['README.md'], false],
    ['context', ['.kiro/steering/**/*.md'], false],
  ]);
  assert.match(load(json({ resources: ['skill://aws'] }), at, '.kiro').messages.join('\n'), /resource "skill:\/\/aws" is not a file:\/\/ resource/);
});

test('Kiro: allowedTools, toolsSettings and permissions become rules, the strictest last (deny over ask over allow)', () => {
  const { definition, messages } = load(
    json({
      tools: ['read', 'shell', 'write'],
      allowedTools: ['read', 'fs_*', '@git'],
      toolsSettings: { shell: { allowedCommands: ['git status', 'npm test'], deniedCommands: ['rm .*'], autoAllowReadonly: true }, write: { allowedPaths: ['src/**'] } },
    }),
    at,
    '.kiro',
  );
  assert.deepEqual(
    definition.permissions?.map((r) => [r.tools.join('+'), r.pattern, r.syntax, r.action]),
    [
      ['Read+LS', null, 'glob', 'allow'],
      ['Read+LS+Write+Edit+MultiEdit', null, 'glob', 'allow'],
      ['mcp__git', null, 'glob', 'allow'],
      ['Bash', 'git status', 'anchored', 'allow'],
      ['Bash', 'npm test', 'anchored', 'allow'],
      ['Write+Edit+MultiEdit', 'src/**', 'glob', 'allow'],
      ['Bash', 'rm .*', 'anchored', 'deny'],
    ],
  );
  assert.match(messages.join('\n'), /field "toolsSettings.shell.autoAllowReadonly" has no counterpart here/);
  assert.match(load(json({ allowedTools: ['*'] }), at, '.kiro').messages.join('\n'), /"allowedTools" may not hold "\*" alone/);
});

test('Kiro: hooks on the events this runtime fires; others said; MCP servers; dotted model ids', () => {
  const { definition, messages } = load(
    json({ hooks: { agentSpawn: [{ command: 'git status', timeout_ms: 5000 }], stop: [{ command: 'npm test' }], preToolUse: [{ command: 'echo' }] }, mcpServers: { git: { command: 'git-mcp', args: ['--repo', '.'] } }, model: 'claude-sonnet-4.5' }),
    at,
    '.kiro',
  );
  assert.deepEqual(definition.hooks, [
    { event: 'SubagentStart', command: 'git status', timeoutSec: 5, written: 'agentSpawn' },
    { event: 'SubagentStop', command: 'npm test', timeoutSec: null, written: 'stop' },
  ]);
  assert.match(messages.join('\n'), /hook event "preToolUse" is not fired here/);
  assert.deepEqual(definition.mcp?.map((m) => m.name), ['git']);
  assert.equal(definition.model, 'claude-sonnet-4-5');
  assert.equal(load(json({ model: 'claude-opus-4.6' }), at, '.kiro').definition.model, 'claude-opus-4-6');
  const old = load(json({ model: 'claude-sonnet-4' }), at, '.kiro');
  assert.equal(old.definition.model, 'sonnet');
  assert.match(old.messages.join('\n'), /model "claude-sonnet-4" is not a model this runtime knows/);
});

test('Kiro JSON: what Kiro refuses is skipped with the reason (invalid JSON, an unknown key, a wrong type)', () => {
  assert.match(skipped('{"name": "x",', at, '.kiro')[0]!, /not valid JSON/);
  assert.match(skipped(json({ name: 'x', instructions: 'y' }), at, '.kiro')[0]!, /a key Kiro does not know \("instructions"\)/);
  assert.match(skipped(json({ prompt: 3 }), at, '.kiro')[0]!, /"prompt" must be text/);
  assert.match(skipped('[1, 2]', at, '.kiro')[0]!, /not a JSON object/);
});

test('Kiro Markdown: the body is the prompt, nested names, tool categories and permission rules', () => {
  const { definition, messages } = load(
    '---\ndescription: Backend work.\ntools: [read, write, shell, web]\npermissions:\n  - capability: shell\n    effect: allow\n    match: ["npm *"]\n  - capability: fs_read\n    effect: deny\n    match: [".env"]\n---\nYou write Node.\n',
    '/repo/.kiro/agents/team/backend.md',
    '.kiro',
  );
  assert.equal(definition.systemPrompt, 'You write Node.');
  assert.equal(definition.name, 'team/backend');
  assert.deepEqual(definition.tools, ['Read', 'Grep', 'Glob', 'LS', 'Write', 'Edit', 'MultiEdit', 'Bash', 'WebFetch', 'WebSearch']);
  assert.deepEqual(definition.permissions?.map((r) => [r.tools.join('+'), r.pattern, r.action]), [['Bash', 'npm *', 'allow'], ['Read', '.env', 'deny']]);
  assert.deepEqual(messages, []);
});
