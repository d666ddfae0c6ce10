import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAgentText } from '../../../../../src/core/agents/parsing/parse';

const roomodes = '/repo/.roomodes';
const parse = (text: string, filePath = roomodes, family: '.roo' | '.kilo' = '.roo') => {
  const parsed = parseAgentText(text, { filePath, source: 'project', family });
  return { agents: [parsed.definition, ...(parsed.siblings ?? [])].filter((d) => d !== null), messages: parsed.warnings.map((w) => w.message) };
};

const yaml = `customModes:
  - slug: docs-writer
    name: 📝 Docs Writer
    roleDefinition: You are a technical writer. You keep docs short.
    whenToUse: Use for README and docs changes.
    description: Writes docs
    customInstructions: Link to the code you describe.
    groups:
      - read
      - - edit
        - fileRegex: \\.(md|mdx)$
          description: Markdown files only
  - slug: runner
    name: Runner
    roleDefinition: You run commands.
    groups: [read, command, mcp]
`;

test('Roo Code modes: one file, many agents, named by slug; the prompt is put together as Roo Code does', () => {
  const { agents, messages } = parse(yaml);
  assert.deepEqual(messages, []);
  assert.deepEqual(agents.map((a) => a.name), ['docs-writer', 'runner']);
  const docs = agents[0]!;
  assert.equal(docs.format, 'roo');
  assert.equal(docs.displayName, '📝 Docs Writer');
  assert.equal(docs.description, 'Use for README and docs changes.');
  assert.equal(
    docs.systemPrompt,
    "You are a technical writer. You keep docs short.\n\n====\n\nUSER'S CUSTOM INSTRUCTIONS\n\nThe following additional instructions are provided by the user, and should be followed to the best of your ability.\n\nMode-specific Instructions:\nLink to the code you describe.",
  );
  // Every mode may delegate and keep a task list; groups give the rest.
  assert.deepEqual(docs.tools, ['Task', 'TodoWrite', 'Read', 'Grep', 'Glob', 'LS', 'Write', 'Edit', 'MultiEdit']);
  assert.deepEqual(agents[1]!.tools, ['Task', 'TodoWrite', 'Read', 'Grep', 'Glob', 'LS', 'Bash', 'mcp__*']);
  // Without whenToUse, the role's first sentence.
  assert.equal(agents[1]!.description, 'You run commands.');
  assert.deepEqual(agents[1]!.systemPrompt, 'You run commands.');
  // Its rules files are read when it starts.
  assert.deepEqual(docs.promptIncludes?.[0]?.paths, ['~/.roo/rules-docs-writer', '.roo/rules-docs-writer', '.roorules-docs-writer', '.clinerules-docs-writer']);
});

test('Roo Code modes: an edit group with fileRegex becomes a rule refusing edits elsewhere, naming the pattern', () => {
  const docs = parse(yaml).agents[0]!;
  assert.deepEqual(docs.permissions, [
    { tools: ['Write', 'Edit', 'MultiEdit'], pattern: '\\.(md|mdx)$', syntax: 'regex', negate: true, action: 'deny', origin: 'mode "docs-writer" may only edit files matching \\.(md|mdx)$ (Markdown files only)' },
  ]);
});

test('Roo Code modes: JSON too; one invalid mode is skipped with a warning naming it, the others load', () => {
  const json = JSON.stringify({ customModes: [
    { slug: 'ok', name: 'Ok', roleDefinition: 'Fine.', groups: ['read'] },
    { slug: 'bad slug', name: 'Bad', roleDefinition: 'x', groups: ['read'] },
    { slug: 'nogroups', name: 'No groups', roleDefinition: 'x' },
    { slug: 'badgroup', name: 'x', roleDefinition: 'x', groups: ['read', 'browserish'] },
    { slug: 'badregex', name: 'x', roleDefinition: 'x', groups: [['edit', { fileRegex: '(' }]] },
    { slug: 'twice', name: 'x', roleDefinition: 'x', groups: ['read', 'read'] },
    { slug: 'ok', name: 'Again', roleDefinition: 'x', groups: ['read'] },
    { slug: 'old', name: 'Old', roleDefinition: 'x', groups: ['read', 'browser'], extraField: 1 },
  ] }, null, 2);
  const { agents, messages } = parse(json);
  assert.deepEqual(agents.map((a) => a.name), ['ok', 'old']);
  assert.match(messages.join('\n'), /mode "bad slug": "slug" must be letters, digits and "-", not "bad slug"; this mode is not loaded \(the file's other modes are\)/);
  assert.match(messages.join('\n'), /mode "nogroups": it has no "groups" \(Roo Code requires its list of tool groups\)/);
  assert.match(messages.join('\n'), /mode "badgroup": "browserish" is not a tool group/);
  assert.match(messages.join('\n'), /mode "badregex": "fileRegex" "\(" is not a valid regular expression/);
  assert.match(messages.join('\n'), /mode "twice": the group "read" is listed twice/);
  assert.match(messages.join('\n'), /mode "ok" is defined twice in this file; the first one is used/);
  assert.match(messages.join('\n'), /field "old.extraField" has no counterpart here/);
});

test('Roo Code modes: a file that is not YAML or JSON, or holds no list, says so', () => {
  assert.match(parse('customModes: [\n  - slug: x\n').messages[0]!, /skipped \.roomodes: it is neither valid YAML nor JSON/);
  assert.match(parse('customModes: 3\n').messages[0]!, /"customModes" must be a list of modes/);
  assert.match(parse('something: else\n').messages[0]!, /no "customModes" list of modes/);
  // Roo Code's clean-up of typographic characters applies before parsing.
  assert.equal(parse('customModes:\n  - slug: q\n    name: Q\n    roleDefinition: It\u2019s \u201cfine\u201d \u2014 really.\n    groups: [read]\n').agents[0]!.systemPrompt, 'It\'s "fine" - really.');
});

test("Kilo Code's .kilocodemodes: its converter's prompt and description; the slugs Kilo runs as its own agents are not custom modes", () => {
  const text = `customModes:\n  - slug: translate\n    name: Translate\n    roleDefinition: You translate.\n    customInstructions: Keep the tone.\n    whenToUse: For translations.\n    groups: [read, edit]\n  - slug: code\n    name: Code\n    roleDefinition: x\n    groups: [read]\n`;
  const { agents, messages } = parse(text, '/repo/.kilocodemodes', '.kilo');
  assert.deepEqual(agents.map((a) => [a.name, a.description, a.systemPrompt]), [['translate', 'For translations.', 'You translate.\n\nKeep the tone.']]);
  assert.match(messages.join('\n'), /mode "code" is not loaded: Kilo Code runs "code" as its own agent/);
});

test('Roo Code modes: a file without the customModes list gives no mode and says why; an empty one says nothing', () => {
  const single = parse('slug: docs\nname: Docs\nroleDefinition: You write docs.\ngroups: [read]\n');
  assert.deepEqual(single.agents, []);
  assert.match(single.messages.join('\n'), /no "customModes" list of modes/);
  assert.deepEqual(parse('{}\n').messages, []);
  assert.deepEqual(parse('').messages, []);
});
