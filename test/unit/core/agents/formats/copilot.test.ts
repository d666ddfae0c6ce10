import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normaliseToolList } from '../../../../../src/core/agents/interpretation/toolNames';
import { load, skipped } from './helpers';

// GitHub Copilot custom agents, examples written after GitHub's custom
// agents configuration reference and VS Code's custom agent file reference.

const AGENTS = '/repo/.github/agents';

test("GitHub's tool aliases, case-insensitive, one alias to several tools", () => {
  const cases: [string, string[]][] = [
    ['execute', ['Bash']],
    ['shell', ['Bash']],
    ['Bash', ['Bash']],
    ['powershell', ['Bash']],
    ['read', ['Read']],
    ['NotebookRead', ['Read']],
    ['edit', ['Edit', 'Write']],
    ['MultiEdit', ['Edit', 'Write']],
    ['Write', ['Edit', 'Write']],
    ['search', ['Grep', 'Glob']],
    ['Grep', ['Grep', 'Glob']],
    ['agent', ['Task']],
    ['custom-agent', ['Task']],
    ['Task', ['Task']],
    ['web', ['WebSearch', 'WebFetch']],
    ['WebFetch', ['WebFetch']],
    ['todo', ['TodoWrite']],
    ['TODO', ['TodoWrite']],
  ];
  for (const [name, expected] of cases) assert.deepEqual(normaliseToolList([name], 'copilot').tools, expected, name);
});

test("VS Code's namespaced tools and tool sets map onto the runtime tools", () => {
  const cases: [string, string[]][] = [
    ['edit/editFiles', ['Edit', 'Write']],
    ['edit/createFile', ['Write']],
    ['edit/createDirectory', ['Write']],
    ['read/readFile', ['Read']],
    ['search/codebase', ['Read', 'Grep', 'Glob']],
    ['search/fileSearch', ['Glob']],
    ['search/listDirectory', ['LS']],
    ['search/textSearch', ['Grep']],
    ['search/usages', ['Grep']],
    ['execute/runInTerminal', ['Bash']],
    ['execute/getTerminalOutput', ['Bash']],
    ['execute/runTests', ['Bash']],
    ['web/fetch', ['WebFetch']],
    ['agent/runSubagent', ['Task']],
    ['runSubagent', ['Task']],
    ['edit/*', ['Edit', 'Write']],
    ['search/*', ['Grep', 'Glob']],
    // The flat names of earlier files.
    ['codebase', ['Read', 'Grep', 'Glob']],
    ['editFiles', ['Edit', 'Write']],
    ['runCommands', ['Bash']],
    ['runInTerminal', ['Bash']],
    ['fetch', ['WebFetch']],
    ['findTestFiles', ['Glob']],
    ['todos', ['TodoWrite']],
  ];
  for (const [name, expected] of cases) assert.deepEqual(normaliseToolList([name], 'copilot').tools, expected, name);
  // Editor-only tools are named in a warning, with the reason; MCP and extension tools are kept for the servers to match.
  const odd = normaliseToolList(['problems', 'read/problems', 'vscodeAPI', 'github/*', 'playwright/browser_click', 'think'], 'copilot');
  assert.deepEqual(odd.tools, ['problems', 'read/problems', 'vscodeAPI', 'github/*', 'playwright/browser_click']);
  assert.deepEqual(odd.unknown, ['problems', 'read/problems', 'vscodeAPI']);
  assert.match(odd.reasons.get('problems') ?? '', /VS Code editor tool/);
});

test('a documented VS Code agent: handoffs, agents, model fallback list, argument hint, invocability', () => {
  const { definition, messages } = load(
    [
      '---',
      'description: Plans a feature before anyone writes code.',
      "tools: ['search', 'read', 'agent', 'web/fetch']",
      "agents: ['researcher', 'implementer']",
      "model: ['Claude Sonnet 4.5 (copilot)', 'GPT-5 (copilot)']",
      'argument-hint: Describe the feature to plan',
      'user-invocable: true',
      'disable-model-invocation: true',
      'target: vscode',
      'handoffs:',
      '  - label: Start implementation',
      '    agent: implementer',
      '    prompt: Implement the plan above.',
      '    send: false',
      '    model: GPT-5.2 (copilot)',
      '---',
      'You plan. You never edit files.',
    ].join('\n'),
    `${AGENTS}/planner.agent.md`,
    '.github',
  );
  assert.equal(definition.format, 'copilot');
  assert.equal(definition.name, 'planner');
  assert.deepEqual(definition.tools, ['Grep', 'Glob', 'Read', 'Task', 'WebFetch']);
  assert.deepEqual(definition.spawns, ['researcher', 'implementer']);
  assert.equal(definition.model, 'claude-sonnet-4-5');
  assert.equal(definition.argumentHint, 'Describe the feature to plan');
  assert.equal(definition.userInvocable, true);
  assert.equal(definition.modelInvocable, false);
  assert.equal(definition.target, 'vscode');
  assert.deepEqual(definition.handoffs, [{ label: 'Start implementation', agent: 'implementer', prompt: 'Implement the plan above.', send: false, model: 'GPT-5.2' }]);
  assert.deepEqual(messages, []);
});

test("GitHub's example: mcp-servers kept, a comma-separated tools string, the retired infer", () => {
  const { definition } = load(
    [
      '---',
      'name: docs-writer',
      'description: Writes and fixes documentation.',
      'tools: read, edit, search, custom-mcp/tool-1',
      'infer: false',
      'mcp-servers:',
      '  custom-mcp:',
      '    type: local',
      '    command: some-command',
      "    tools: ['*']",
      'metadata:',
      '  owner: docs-team',
      '---',
      'Write clear docs.',
    ].join('\n'),
    `${AGENTS}/docs.md`,
    '.github',
  );
  assert.equal(definition.name, 'docs-writer');
  assert.deepEqual(definition.tools, ['Read', 'Edit', 'Write', 'Grep', 'Glob', 'custom-mcp/tool-1']);
  assert.deepEqual(definition.mcpServers, { 'custom-mcp': { type: 'local', command: 'some-command', tools: ['*'] } });
  assert.deepEqual(definition.mcp?.map((d) => 'spec' in d && [d.name, d.spec.transport, d.spec.command, d.spec.include]), [['custom-mcp', 'stdio', 'some-command', null]]);
  assert.equal(definition.modelInvocable, false);
  assert.deepEqual(definition.extra.metadata, { owner: 'docs-team' });
});

test('names: from the frontmatter, else the file name (.agent.md, .chatmode.md or .md)', () => {
  assert.equal(load('---\ndescription: d\n---\nx', `${AGENTS}/triage.md`, '.github').definition.name, 'triage');
  assert.equal(load('---\ndescription: d\n---\nx', `${AGENTS}/triage.agent.md`, '.github').definition.name, 'triage');
  assert.equal(load('---\ndescription: d\n---\nx', '/repo/.github/chatmodes/review.chatmode.md', '.github').definition.name, 'review');
  assert.equal(load('---\nname: Custom Name\ndescription: d\n---\nx', `${AGENTS}/x.md`, '.github').definition.name, 'Custom Name');
  // A Markdown file without frontmatter in .github/agents is not an agent (a README), unless it has Copilot's suffix.
  assert.match(skipped('# Our agents\n', `${AGENTS}/README.md`, '.github').join(), /does not start with a "---" frontmatter block/);
});

test('agents: "*" allows all, [] none; without agents the spawn tool allows all', () => {
  const spawns = (extra: string) => load(`---\ndescription: d\ntools: [agent]\n${extra}---\nx`, `${AGENTS}/o.agent.md`, '.github').definition.spawns;
  assert.equal(spawns("agents: ['*']\n"), '*');
  assert.deepEqual(spawns('agents: []\n'), []);
  assert.equal(spawns(''), '*');
});

test('Copilot model display names and ids resolve to Claude ids or aliases; other vendors inherit', () => {
  const model = (value: string) => load(`---\ndescription: d\nmodel: ${value}\n---\nx`, `${AGENTS}/m.agent.md`, '.github').definition.model;
  assert.equal(model('Claude Sonnet 4.5'), 'claude-sonnet-4-5');
  assert.equal(model('Claude Opus 4.5 (Preview) (copilot)'), 'claude-opus-4-5');
  assert.equal(model('Claude Haiku 4.5 (copilot)'), 'claude-haiku-4-5');
  assert.equal(model('claude-sonnet-4.5'), 'claude-sonnet-4-5');
  // A retired or unknown version runs on its family's alias, with a warning.
  assert.equal(model('Claude Sonnet 3.7 (copilot)'), 'sonnet');
  assert.equal(model("['GPT-4.1 (copilot)', 'Claude Sonnet 4 (copilot)']"), 'sonnet');
  assert.equal(model('GPT-5 (copilot)'), 'GPT-5');
});
