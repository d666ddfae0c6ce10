import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFINITION_DEFAULTS } from '../../../../../src/core/agents/definition';
import { parseAgentText, type AgentFileContext } from '../../../../../src/core/agents/parsing/parse';

const context: AgentFileContext = { filePath: '/p/.claude/agents/a.md', source: 'project', family: '.claude' };

function parse(text: string, ctx: AgentFileContext = context) {
  return parseAgentText(text, ctx);
}

function agent(frontmatter: string, body = 'You help.') {
  const result = parse(`---\n${frontmatter}\n---\n${body}\n`);
  assert.ok(result.definition, `expected a definition, got warnings ${JSON.stringify(result.warnings)}`);
  return { definition: result.definition, messages: result.warnings.map((w) => w.message) };
}

test('a minimal agent gets the documented defaults', () => {
  const { definition, messages } = agent('name: a\ndescription: Does a.', '\n\nYou are A.\r\nBe brief.\n\n');
  assert.deepEqual(messages, []);
  // Exactly the parser's defaults, which the listing store also relies on, plus the file's own fields.
  assert.deepEqual(definition, {
    ...DEFINITION_DEFAULTS,
    name: 'a',
    description: 'Does a.',
    systemPrompt: 'You are A.\nBe brief.',
    family: '.claude',
    filePath: '/p/.claude/agents/a.md',
  });
  // What those defaults mean, as documented: every tool, may spawn anyone, the user's permission mode, a Claude Code file anyone may start.
  assert.deepEqual(
    [definition.tools, definition.spawns, definition.permissionMode, definition.format, definition.userInvocable, definition.modelInvocable],
    [null, '*', null, 'claude-code', true, true],
  );
});

test('every frontmatter field is read', () => {
  const { definition, messages } = agent(
    [
      'name: full',
      'description: All fields.',
      'tools: [read, grep, Task]',
      'disallowedTools: Bash, write',
      'spawns: explore, plan',
      'model: opus',
      'thinkingLevel: high',
      'maxTurns: 12',
      'output:',
      '  type: object',
      '  properties: { answer: { type: string } }',
      'permissionMode: acceptEdits',
      'isolation: worktree',
      'background: true',
      'blocking: true',
      'color: purple',
      'temperature: 0.2',
    ].join('\n'),
  );
  assert.deepEqual(messages, []);
  assert.deepEqual(definition.tools, ['Read', 'Grep', 'Task']);
  assert.deepEqual(definition.disallowedTools, ['Bash', 'Write']);
  assert.deepEqual(definition.spawns, ['explore', 'plan']);
  assert.equal(definition.model, 'opus');
  assert.equal(definition.thinkingLevel, 'high');
  assert.equal(definition.maxTurns, 12);
  assert.deepEqual(definition.output, { type: 'object', properties: { answer: { type: 'string' } } });
  assert.equal(definition.permissionMode, 'acceptEdits');
  assert.equal(definition.isolation, 'worktree');
  assert.equal(definition.background, true);
  assert.equal(definition.blocking, true);
  assert.equal(definition.color, 'purple');
  assert.deepEqual(definition.extra, { temperature: 0.2 });
});

test('effort is accepted for thinkingLevel', () => {
  assert.equal(agent('name: a\ndescription: d\neffort: low').definition.thinkingLevel, 'low');
});

test('tools: absent is all, [] is none, "*" is all, CSV and lists both work', () => {
  assert.equal(agent('name: a\ndescription: d').definition.tools, null);
  assert.deepEqual(agent('name: a\ndescription: d\ntools: []').definition.tools, []);
  assert.equal(agent('name: a\ndescription: d\ntools: "*"').definition.tools, null);
  assert.deepEqual(agent('name: a\ndescription: d\ntools: Read, Bash(git:*), Task(explore, plan)').definition.tools, ['Read', 'Bash', 'Task']);
  // A YAML flow list splits inside the pattern; the pieces are put back together.
  const flow = agent('name: a\ndescription: d\ntools: [Read, Task(explore, plan)]').definition;
  assert.deepEqual(flow.tools, ['Read', 'Task']);
  assert.deepEqual(flow.spawns, ['explore', 'plan']);
});

test('spawns: explicit forms, and the defaults derived from tools', () => {
  const spawns = (fm: string) => agent(`name: a\ndescription: d\n${fm}`).definition.spawns;
  assert.equal(spawns('spawns: "*"'), '*');
  assert.deepEqual(spawns('spawns: a, b'), ['a', 'b']);
  assert.deepEqual(spawns('spawns: [a, b]'), ['a', 'b']);
  assert.deepEqual(spawns('spawns: ""'), []);
  assert.equal(spawns('tools: Read, Task'), '*');
  assert.equal(spawns('tools: Read, agent'), '*');
  assert.deepEqual(spawns('tools: Read, Grep'), []);
  assert.deepEqual(spawns('tools: Read, Task(explore)'), ['explore']);
  assert.deepEqual(spawns('tools: Read, Task(explore)\nspawns: plan'), ['plan']);
  assert.equal(spawns(''), '*');
});

test('unknown tools are kept and reported once per file; the agent loads', () => {
  const { definition, messages } = agent('name: a\ndescription: d\ntools: Read, mcp__server__tool, chrome-mcp, chrome-mcp, ExitPlanMode');
  // MCP tool names are kept for the servers to match when the agent starts.
  assert.deepEqual(definition.tools, ['Read', 'mcp__server__tool', 'chrome-mcp', 'ExitPlanMode']);
  // One warning per reason, each naming the file's tools it applies to.
  assert.deepEqual(messages, [
    'tool "chrome-mcp" is not available in this runtime (not a tool name this runtime knows); it will be ignored',
    'tool "ExitPlanMode" is not available in this runtime (plan mode is a permission mode here (permissionMode: plan), not a tool); it will be ignored',
  ]);
  const two = agent('name: a\ndescription: d\ntools: chrome-mcp, pied-piper').messages;
  assert.deepEqual(two, ['tools "chrome-mcp", "pied-piper" are not available in this runtime (not a tool name this runtime knows); they will be ignored']);
});

test('unknown model aliases warn but load with the value kept', () => {
  const { definition, messages } = agent('name: a\ndescription: d\nmodel: my-custom-model');
  assert.equal(definition.model, 'my-custom-model');
  assert.equal(messages.length, 1);
  assert.match(messages[0] ?? '', /model "my-custom-model" is not a Claude model or alias this runtime knows; the agent runs on its parent's model .* unless subagents.modelAliases maps "my-custom-model"/);
  const foreign = agent('name: a\ndescription: d\nmodel: gpt-4o');
  assert.equal(foreign.definition.model, 'gpt-4o', 'kept as written: an alias may map it');
  assert.match(foreign.messages[0] ?? '', /model "gpt-4o" is OpenAI's, which an Anthropic endpoint does not serve; the agent runs on its parent's model/);
  assert.deepEqual(agent('name: a\ndescription: d\nmodel: claude-opus-5-5').messages, []);
  assert.deepEqual(agent('name: a\ndescription: d\nmodel: inherit').messages, []);
});

test('invalid enum and typed values warn and are ignored; the agent still loads', () => {
  const { definition, messages } = agent(
    'name: a\ndescription: d\npermissionMode: foo\nthinkingLevel: extreme\nisolation: container\nmaxTurns: -3\nbackground: maybe\ncolor: [1]',
  );
  assert.equal(definition.permissionMode, null);
  assert.equal(definition.thinkingLevel, null);
  assert.equal(definition.isolation, null);
  assert.equal(definition.maxTurns, null);
  assert.equal(definition.background, false);
  assert.equal(definition.color, null);
  assert.equal(messages.length, 6);
  assert.match(messages[0] ?? '', /"thinkingLevel" must be one of off, minimal, low, medium, high, xhigh/);
  assert.ok(messages.some((m) => /"permissionMode" must be one of default, plan, acceptEdits, bypassPermissions, not "foo"/.test(m)));
});

test('invalid YAML warns and falls back to the line reader, with coercion', () => {
  const result = parse('---\nname: a\ndescription: Use it. Triggers on: x, y\ntools: Read, Grep\nmaxTurns: 7\nbackground: true\n---\nBody');
  assert.ok(result.definition);
  assert.equal(result.definition.description, 'Use it. Triggers on: x, y');
  assert.deepEqual(result.definition.tools, ['Read', 'Grep']);
  assert.equal(result.definition.maxTurns, 7);
  assert.equal(result.definition.background, true);
  assert.equal(result.warnings.length, 1);
  assert.match(result.warnings[0]?.message ?? '', /^invalid YAML frontmatter: .*line 3.*reading it as simple "key: value" lines instead$/);
});

test('missing name or description skips the file with a warning naming file and reason', () => {
  for (const [text, reason] of [
    ['---\ndescription: d\n---\n', /skipped a\.md: it has no "name"/],
    ['---\nname: a\n---\n', /skipped a\.md: it has no "description"/],
    ['---\nname: a\ndescription: ""\n---\n', /skipped a\.md: it has no "description"/],
    ['# Just a README\n', /skipped a\.md: it does not start with a "---" frontmatter block/],
    ['---\nname: a\ndescription: d\n', /skipped a\.md: its frontmatter has no closing "---" line/],
    ['---\n: [\n---\n', /skipped a\.md: it has no "name"/],
  ] as const) {
    const result = parse(text);
    assert.equal(result.definition, null, text);
    assert.ok(result.warnings.some((w) => reason.test(w.message) && w.filePath === context.filePath), `${text}: ${JSON.stringify(result.warnings)}`);
  }
});

test('names are case-sensitive and trimmed, never lower-cased', () => {
  assert.equal(agent('name: " Task "\ndescription: d').definition.name, 'Task');
});

test('Copilot agent files: name from the file name, description optional', () => {
  const ctx = (file: string): AgentFileContext => ({ filePath: `/p/.github/agents/${file}`, source: 'project', family: '.github' });
  const helper = parse("---\ntools: ['codebase', 'editFiles', 'githubRepo']\n---\nHelp.", ctx('helper.agent.md'));
  assert.equal(helper.definition?.name, 'helper');
  assert.equal(helper.definition?.description, '');
  assert.deepEqual(helper.definition?.tools, ['Read', 'Grep', 'Glob', 'Edit', 'Write', 'githubRepo']);
  assert.equal(parse('Just instructions.', ctx('mode.chatmode.md')).definition?.name, 'mode');
  assert.equal(parse('---\nname: custom\ndescription: d\n---\n', ctx('x.agent.md')).definition?.name, 'custom');
  // A plain .md in .github/agents with frontmatter is named after the file, as GitHub does; without frontmatter it is not an agent.
  assert.equal(parse('---\ntools: Read\n---\n', ctx('plain.md')).definition?.name, 'plain');
  assert.equal(parse('Just text.', ctx('README.md')).definition, null);
  // Elsewhere a plain .md still needs its name.
  assert.equal(parse('---\ntools: Read\n---\n', { filePath: '/p/.claude/agents/plain.md', source: 'project', family: '.claude' }).definition, null);
});
