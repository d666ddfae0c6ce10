import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalToolCsv, canonicalToolNames, knownToolNames, normaliseToolList, unknownToolWarnings } from '../../../../../src/core/agents/interpretation/toolNames';
import { splitCsv } from '../../../../../src/core/agents/interpretation/fieldValues';
import { isKnownModel, KNOWN_MODEL_ALIASES, resolveModelField } from '../../../../../src/core/agents/interpretation/modelNames';
import { defaultSettings } from '../../../../../src/core/config';
import { resolveModel } from '../../../../../src/core/engine/loop/models';

test('the known tool names are exactly Claude Code\'s runtime names, each tool with its aliases, in request order', () => {
  assert.deepEqual(
    [...knownToolNames()],
    ['Task', 'Agent', 'TaskOutput', 'TaskStop', 'SendMessage', 'TaskCreate', 'TaskList', 'TaskGet', 'TaskUpdate', 'Bash', 'Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'LS', 'TodoWrite', 'WebSearch', 'WebFetch'],
  );
});

test('canonical names match case-insensitively', () => {
  for (const [written, expected] of [
    ['read', 'Read'],
    ['READ', 'Read'],
    ['ls', 'LS'],
    ['webfetch', 'WebFetch'],
    ['todowrite', 'TodoWrite'],
    ['multiedit', 'MultiEdit'],
    ['taskoutput', 'TaskOutput'],
    [' Bash ', 'Bash'],
  ] as const) {
    assert.deepEqual(canonicalToolNames(written), [expected], written);
  }
});

test('oh-my-pi names map onto the runtime tools', () => {
  const { tools, unknown } = normaliseToolList(['read', 'write', 'edit', 'bash', 'grep', 'find', 'ls', 'task', 'web_search', 'fetch', 'search'], 'oh-my-pi');
  assert.deepEqual(tools, ['Read', 'Write', 'Edit', 'Bash', 'Grep', 'Glob', 'LS', 'Task', 'WebSearch', 'WebFetch']);
  assert.deepEqual(unknown, []);
});

test('Gemini CLI names map onto the runtime tools', () => {
  const cases: [string, string][] = [
    ['read_file', 'Read'],
    ['write_file', 'Write'],
    ['replace', 'Edit'],
    ['glob', 'Glob'],
    ['search_file_content', 'Grep'],
    ['list_directory', 'LS'],
    ['run_shell_command', 'Bash'],
    ['web_fetch', 'WebFetch'],
    ['google_web_search', 'WebSearch'],
    ['read_many_files', 'Read'],
  ];
  for (const [written, expected] of cases) assert.deepEqual(canonicalToolNames(written), [expected], written);
});

test('Copilot names map onto the runtime tools, one alias to several', () => {
  assert.deepEqual(canonicalToolNames('codebase'), ['Read', 'Grep', 'Glob']);
  assert.deepEqual(canonicalToolNames('search', 'copilot'), ['Grep', 'Glob']);
  assert.deepEqual(canonicalToolNames('editFiles'), ['Edit', 'Write']);
  assert.deepEqual(canonicalToolNames('runCommands'), ['Bash']);
  assert.deepEqual(canonicalToolNames('fetch'), ['WebFetch']);
  assert.deepEqual(normaliseToolList(['codebase', 'editFiles', 'search'], 'copilot').tools, ['Read', 'Grep', 'Glob', 'Edit', 'Write']);
});

test('permission patterns reduce to the tool; spawn patterns name the spawn targets', () => {
  assert.deepEqual(normaliseToolList(['Bash(git:*)', 'Bash(npm test)', 'WebFetch(domain:example.com)']), {
    tools: ['Bash', 'WebFetch'],
    unknown: [],
    reasons: new Map(),
    spawnTargets: null,
  });
  assert.deepEqual(normaliseToolList(['Read', 'Task(explore, plan)']), { tools: ['Read', 'Task'], unknown: [], reasons: new Map(), spawnTargets: ['explore', 'plan'] });
  assert.deepEqual(normaliseToolList(['Agent(reviewer)', 'Task(explore)']).spawnTargets, ['reviewer', 'explore']);
  // A bare spawn tool next to a pattern lifts the restriction again.
  assert.equal(normaliseToolList(['Task(explore)', 'Agent']).spawnTargets, null);
  assert.equal(normaliseToolList(['Task()']).spawnTargets, null);
});

test('unknown names are kept as written, reported, and deduplicated', () => {
  const result = normaliseToolList(['Read', 'mcp__server__tool', 'chrome-mcp', 'read', 'READ', 'chrome-mcp', 'Grep', '']);
  assert.deepEqual(result.tools, ['Read', 'mcp__server__tool', 'chrome-mcp', 'Grep']);
  // MCP tool names are not unknown: they are matched against the servers' tools when the agent starts.
  assert.deepEqual(result.unknown, ['chrome-mcp']);
});

test('a name in another format\'s spelling is understood as its home format reads it (files are copied between tools)', () => {
  // Gemini's read_file in a Claude Code file is Read; omp's and Copilot's `think` needs no tool there either: no tool, no warning.
  const mixed = normaliseToolList(['read_file', 'think', 'Grep'], 'claude-code');
  assert.deepEqual(mixed.tools, ['Read', 'Grep']);
  assert.deepEqual(mixed.unknown, []);
  assert.deepEqual(unknownToolWarnings(mixed, 'claude-code'), []);
  // A tool its home format says this runtime lacks keeps that reason.
  const editorOnly = normaliseToolList(['problems'], 'claude-code');
  assert.deepEqual(editorOnly.unknown, ['problems']);
  assert.deepEqual(unknownToolWarnings(editorOnly, 'claude-code'), ['tool "problems" is not available in this runtime (a VS Code editor tool with no counterpart here); it will be ignored']);
  // A name no format knows stays unknown.
  assert.deepEqual(unknownToolWarnings(normaliseToolList(['Frobnicate'], 'claude-code'), 'claude-code'), ['tool "Frobnicate" is not available in this runtime (not a tool name this runtime knows); it will be ignored']);
});

test('model aliases: inherit, the product aliases and claude- ids are known', () => {
  for (const model of ['inherit', 'sonnet', 'opus', 'haiku', 'fable', 'mythos', 'claude-sonnet-5-5', 'claude-3-haiku-20240307']) {
    assert.equal(isKnownModel(model), true, model);
  }
  for (const model of ['gpt-4o', 'Sonnet', 'gemini-2.5-pro', 'claude']) assert.equal(isKnownModel(model), false, model);
});

test('every alias a model field may name is defined by the default modelAliases, so none reaches the API as written', () => {
  const { modelAliases, defaultModel } = defaultSettings();
  for (const alias of KNOWN_MODEL_ALIASES.filter((a) => a !== 'inherit')) {
    assert.equal(resolveModelField(alias)?.model, alias, alias);
    assert.match(resolveModel({ definition: alias, defaultModel, aliases: modelAliases }), /^claude-[a-z]+-\d/, alias);
  }
  assert.equal(resolveModel({ definition: 'fable', defaultModel, aliases: modelAliases }), 'claude-fable-5-2');
  assert.equal(resolveModel({ definition: 'mythos', defaultModel, aliases: modelAliases }), 'claude-mythos-5-2');
});

test('the canonical CSV fast path equals the general path wherever it answers', () => {
  const pieces = ['Read', 'Grep', 'Glob', 'Task', 'Agent', 'read', 'READ', 'codebase', 'Bash(git:*)', 'Task(a, b)', '*', 'mcp__s__t', '', ' ', '  ', ',', '\t', '\u00a0', 'Read ', ' Grep', 'WebFetch', 'TodoWrite', 'LS'];
  let state = 11;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let answered = 0;
  const cases = ['', 'Read', 'Read, Grep, Glob', 'Read,Grep', ' Read , Grep ', 'Read, Read', 'Read,', ',Read', 'Read,,Grep', 'Read, read', 'Task, Agent', '*', 'Read\t'];
  for (let n = 0; n < 3000; n++) cases.push(Array.from({ length: 1 + Math.floor(random() * 5) }, () => pieces[Math.floor(random() * pieces.length)]).join(random() < 0.7 ? ', ' : ','));
  for (const text of cases) {
    const fast = canonicalToolCsv(text);
    if (fast === null) continue;
    answered++;
    assert.deepEqual({ tools: fast, unknown: [], reasons: new Map(), spawnTargets: null }, normaliseToolList(splitCsv(text)), JSON.stringify(text));
  }
  assert.ok(answered > 300, `answered ${answered}`);
  assert.deepEqual(canonicalToolCsv(' Read , Grep,Read '), ['Read', 'Grep']);
  assert.equal(canonicalToolCsv('Read, read'), null);
  assert.equal(canonicalToolCsv('Read,'), null);
  assert.equal(canonicalToolCsv('Bash(git:*)'), null);
});
