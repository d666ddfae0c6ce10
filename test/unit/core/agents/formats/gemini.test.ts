import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GEMINI_TOOLS } from '../../../../../src/core/agents/formats/gemini';
import { normaliseToolList } from '../../../../../src/core/agents/interpretation/toolNames';
import { load, skipped } from './helpers';

// Gemini CLI subagents (.gemini/agents/*.md), examples written after
// gemini-cli's subagent documentation, agent loader and tool registry.

const FILE = '/repo/.gemini/agents/auditor.md';

test('a documented Gemini agent: tools, max_turns, model, temperature', () => {
  const { definition, messages } = load(
    [
      '---',
      'name: security-auditor',
      'description: Looks for security holes in the code it is shown.',
      'kind: local',
      'tools:',
      '  - read_file',
      '  - grep_search',
      'model: gemini-3-flash-preview',
      'temperature: 0.2',
      'max_turns: 10',
      'timeout_mins: 5',
      'display_name: Security Auditor',
      '---',
      'You audit code. Report, do not fix.',
    ].join('\n'),
    FILE,
    '.gemini',
  );
  assert.equal(definition.format, 'gemini');
  assert.equal(definition.name, 'security-auditor');
  assert.deepEqual(definition.tools, ['Read', 'Grep']);
  assert.equal(definition.maxTurns, 10);
  assert.equal(definition.displayName, 'Security Auditor');
  assert.equal(definition.model, 'gemini-3-flash-preview');
  assert.equal(definition.extra.temperature, 0.2);
  assert.equal(definition.extra.timeout_mins, 5);
  // Gemini subagents cannot start other agents.
  assert.deepEqual(definition.spawns, []);
  assert.ok(definition.disallowedTools.includes('Task'));
  assert.deepEqual(messages, [
    `model "gemini-3-flash-preview" is Google's, which an Anthropic endpoint does not serve; the agent runs on its parent's model (or subagents.defaultModel) unless subagents.modelAliases maps "gemini-3-flash-preview" to a model that does`,
  ]);
});

test('every current and legacy Gemini CLI tool name maps, or says why not', () => {
  const cases: [string, string[]][] = [
    ['read_file', ['Read']],
    ['read_many_files', ['Read']],
    ['write_file', ['Write']],
    ['replace', ['Edit']],
    ['edit_file', ['Edit']],
    ['glob', ['Glob']],
    ['grep_search', ['Grep']],
    ['search_file_content', ['Grep']],
    ['list_directory', ['LS']],
    ['run_shell_command', ['Bash']],
    ['web_fetch', ['WebFetch']],
    ['google_web_search', ['WebSearch']],
    ['write_todos', ['TodoWrite']],
    ['tracker_create_task', ['TodoWrite']],
  ];
  for (const [name, expected] of cases) assert.deepEqual(normaliseToolList([name], 'gemini').tools, expected, name);
  for (const name of ['save_memory', 'ask_user', 'activate_skill', 'get_internal_docs', 'enter_plan_mode', 'codebase_investigator']) {
    const result = normaliseToolList([name], 'gemini');
    assert.deepEqual(result.unknown, [name], name);
    assert.ok(result.reasons.get(name), `${name} has a reason`);
  }
  // Every name in the table is covered by one of the above kinds.
  assert.ok(GEMINI_TOOLS.size >= 30);
});

test('a tools wildcard is all tools but the spawn tool; MCP wildcards are kept for the servers to match', () => {
  const all = load('---\nname: a\ndescription: d\ntools: ["*"]\n---\nx', FILE, '.gemini').definition;
  assert.equal(all.tools, null);
  assert.deepEqual(all.disallowedTools, ['Task', 'TaskOutput', 'TaskStop', 'SendMessage']);
  const { definition, messages } = load('---\nname: a\ndescription: d\ntools: [read_file, mcp_*, mcp_github_*]\n---\nx', FILE, '.gemini');
  assert.deepEqual(definition.tools, ['Read', 'mcp_*', 'mcp_github_*']);
  assert.deepEqual(messages, []);
});

test('remote agents are skipped with a true reason, alone or as a list', () => {
  const remote = skipped('---\nkind: remote\nname: helper\nagent_card_url: https://agents.example/card.json\n---\n', FILE, '.gemini');
  assert.match(remote.join(), /skipped auditor\.md: it defines a remote Gemini CLI agent \(kind: remote/);
  const list = skipped('---\n- kind: remote\n  name: a\n  agent_card_url: https://a.example/card\n- name: b\n  agent_card_url: https://b.example/card\n---\n', FILE, '.gemini');
  assert.match(list.join(), /lists remote Gemini CLI agents/);
});

test('the spawn tool named in a Gemini file is dropped: Gemini subagents cannot start agents', () => {
  const { definition } = load('---\nname: a\ndescription: d\ntools: [read_file, Task]\n---\nx', FILE, '.gemini');
  assert.deepEqual(definition.tools, ['Read']);
});
