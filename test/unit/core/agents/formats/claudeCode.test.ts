import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normaliseToolList } from '../../../../../src/core/agents/interpretation/toolNames';
import { load } from './helpers';

// Claude Code agent files, examples written after its subagent and plugin
// documentation.

const FILE = '/repo/.claude/agents/runner.md';

test('initialPrompt, mcpServers, effort and the fields Claude Code keeps for itself', () => {
  const { definition, messages } = load(
    [
      '---',
      'name: runner',
      'description: Runs the tests and reports.',
      'tools: Read, Bash, BashOutput, KillShell, TaskCreate, TaskUpdate',
      'effort: max',
      'initialPrompt: Run the whole suite first.',
      'mcpServers:',
      '  - github',
      '  - browser:',
      '      type: stdio',
      '      command: npx',
      '      args: ["-y", "browser-mcp"]',
      '      env: { DEBUG: "1" }',
      '  - docs: { type: http, url: "https://docs.example/mcp", headers: { Authorization: "Bearer ${DOCS_TOKEN}" } }',
      'skills: [testing]',
      'memory: project',
      '---',
      'Run tests.',
    ].join('\n'),
    FILE,
    '.claude',
  );
  assert.equal(definition.format, 'claude-code');
  // Claude Code's task list tools are the runtime's own: the run's shared task list.
  assert.deepEqual(definition.tools, ['Read', 'Bash', 'TaskCreate', 'TaskUpdate']);
  assert.equal(definition.thinkingLevel, 'xhigh');
  assert.equal(definition.initialPrompt, 'Run the whole suite first.');
  // A name refers to a server configured elsewhere; a one-key map is the agent's own.
  assert.deepEqual(
    definition.mcp?.map((d) => ('spec' in d ? [d.name, d.spec.transport, d.spec.command ?? d.spec.url, d.spec.args, d.spec.env, d.spec.headers] : [d.name, 'ref'])),
    [
      ['github', 'ref'],
      ['browser', 'stdio', 'npx', ['-y', 'browser-mcp'], { DEBUG: '1' }, {}],
      ['docs', 'http', 'https://docs.example/mcp', [], {}, { Authorization: 'Bearer ${DOCS_TOKEN}' }],
    ],
  );
  assert.deepEqual(definition.extra, { skills: ['testing'], memory: 'project' });
  assert.deepEqual(messages, []);
});

test('BashOutput without Bash is a gap worth a warning; unsupported Claude Code tools say why', () => {
  const result = normaliseToolList(['Read', 'BashOutput', 'AskUserQuestion', 'NotebookEdit']);
  assert.deepEqual(result.tools, ['Read', 'AskUserQuestion', 'Edit', 'BashOutput']);
  assert.match(result.reasons.get('BashOutput') ?? '', /Bash is not in the list/);
  assert.match(result.reasons.get('AskUserQuestion') ?? '', /cannot stop to ask the user/);
});

test('plugin agents are plugin:agent and cannot set their permission mode, as in Claude Code', () => {
  const { definition, messages } = load(
    '---\nname: explore\ndescription: d\npermissionMode: bypassPermissions\n---\nx',
    '/plugins/sec/agents/explore.md',
    null,
    'plugin',
    'claude-security',
  );
  assert.equal(definition.name, 'claude-security:explore');
  assert.equal(definition.pluginName, 'claude-security');
  assert.equal(definition.permissionMode, null);
  assert.deepEqual(messages, ['"permissionMode: bypassPermissions" is ignored: plugin agents cannot set their permission mode (as in Claude Code)']);
});

test('model names Claude Code accepts: aliases, ids, inherit, opusplan, [1m]', () => {
  const model = (value: string) => load(`---\nname: a\ndescription: d\nmodel: ${value}\n---\nx`, FILE, '.claude');
  for (const [written, expected] of [
    ['sonnet', 'sonnet'],
    ['inherit', 'inherit'],
    ['claude-opus-4-5-20251101', 'claude-opus-4-5-20251101'],
    ['claude-3-5-sonnet-20241022', 'claude-3-5-sonnet-20241022'],
    ['opusplan', 'opus'],
    ['sonnet[1m]', 'sonnet'],
  ] as const) {
    const { definition, messages } = model(written);
    assert.equal(definition.model, expected, written);
    assert.deepEqual(messages, [], written);
  }
});
