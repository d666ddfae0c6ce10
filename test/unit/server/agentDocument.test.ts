import assert from 'node:assert/strict';
import { test } from 'node:test';
import { field, parseAgentDocument } from '../../../src/server/agentDocument';
import type { Span } from '../../../src/server/documentModel';
import { cursorContext } from '../../../src/server/cursor';

/** The text a span covers. */
function at(text: string, span: Span): string {
  return text.slice(span[0], span[1]);
}

test('locates keys, values and the items of CSV, block and flow lists', () => {
  const text = '---\nname: lister\ntools: Read, "Grep", Task(a, b)\nspawns:\n  - a\n  - "b"\ndisallowedTools: [Bash, Task(c, d), Write]\n---\nBody\n';
  const doc = parseAgentDocument(text);
  assert.equal(doc.yamlError, null);
  assert.deepEqual(doc.fields.map((f) => f.key), ['name', 'tools', 'spawns', 'disallowedTools']);
  const name = field(doc, 'name')!;
  assert.equal(at(text, name.keySpan), 'name');
  assert.equal(at(text, name.valueSpan), 'lister');
  assert.deepEqual(field(doc, 'tools')!.items.map((i) => [i.text, at(text, i.span)]), [['Read', 'Read'], ['"Grep"', '"Grep"'], ['Task(a, b)', 'Task(a, b)']]);
  // A quoted list item's span is its text inside the quotes.
  assert.deepEqual(field(doc, 'spawns')!.items.map((i) => [i.text, at(text, i.span)]), [['a', 'a'], ['b', 'b']]);
  // YAML reads `Task(c` and `d)` as two items; they are put back together.
  assert.deepEqual(field(doc, 'disallowedTools')!.items.map((i) => at(text, i.span)), ['Bash', 'Task(c, d)', 'Write']);
  // An entry runs to the end of its value's last line, not into the next line.
  assert.equal(at(text, field(doc, 'spawns')!.entrySpan), 'spawns:\n  - a\n  - "b"');
});

test('quoted list items are read unquoted, as the runtime reads them: flow, block, and line by line for invalid YAML', () => {
  const tools = ['tools: ["Bash(git diff:*)", Read, \'Task(helpr, b)\']', 'tools:\n  - "Bash(npm run test:*)"\n  - Read, Grep\n  - \'Task(helpr, b)\''];
  const expected = {
    flow: [['Bash(git diff:*)', 'Bash(git diff:*)'], ['Read', 'Read'], ['Task(helpr, b)', 'Task(helpr, b)']],
    block: [['Bash(npm run test:*)', 'Bash(npm run test:*)'], ['Read', 'Read'], ['Grep', 'Grep'], ['Task(helpr, b)', 'Task(helpr, b)']],
  };
  for (const description of ['d', 'Use it when: things break']) {
    for (const [i, list] of tools.entries()) {
      const text = `---\nname: q\ndescription: ${description}\n${list}\n---\n`;
      const doc = parseAgentDocument(text);
      assert.equal(doc.yamlError === null, description === 'd');
      const items = field(doc, 'tools')!.items.map((item) => [item.text, at(text, item.span)]);
      assert.deepEqual(items, i === 0 ? expected.flow : expected.block, `${description} / ${list}`);
    }
  }
  // A quoted key too: a rename puts the new name inside the quotes.
  const text = '---\nname: q\n"colour": red\n---\n';
  assert.equal(at(text, field(parseAgentDocument(text), 'colour')!.keySpan), 'colour');
});

test('offsets count a byte-order mark and CRLF line ends', () => {
  const text = '\uFEFF---\r\nname: crlf\r\ntools: Read, Grep\r\n---\r\nBody\r\n';
  const doc = parseAgentDocument(text);
  assert.equal(at(text, field(doc, 'name')!.valueSpan), 'crlf');
  assert.deepEqual(field(doc, 'tools')!.items.map((i) => at(text, i.span)), ['Read', 'Grep']);
  assert.equal(doc.frontmatter.kind === 'ok' && at(text, doc.frontmatter.closeSpan), '---');
});

test('invalid YAML: the error where the core\'s parser gives up, the fields read line by line', () => {
  const text = '---\nname: loose\ndescription: Use it when: things break\ntools: Read, Grpe\n---\n';
  const doc = parseAgentDocument(text);
  assert.ok(doc.yamlError);
  const line = text.slice(0, doc.yamlError.span[0]).split('\n').length - 1;
  assert.equal(line, 2);
  assert.deepEqual(doc.fields.map((f) => f.key), ['name', 'description', 'tools']);
  assert.deepEqual(field(doc, 'tools')!.items.map((i) => at(text, i.span)), ['Read', 'Grpe']);
});

test('a file without frontmatter, and one whose frontmatter never closes', () => {
  assert.deepEqual(parseAgentDocument('# Just Markdown\n').frontmatter, { kind: 'none' });
  const open = parseAgentDocument('---\nname: x\n');
  assert.equal(open.frontmatter.kind, 'unterminated');
  assert.deepEqual(open.fields, []);
});

test('the cursor: a new field, a field name, a value, inside Task(…), a list item, the body', () => {
  const text = '---\nname: c\n\ntools: Read, Gr, Task(wor\nspawns:\n  - pla\n---\nBody\n';
  const doc = parseAgentDocument(text);
  const offset = (needle: string, delta = needle.length) => text.indexOf(needle) + delta;
  assert.equal(cursorContext(doc, offset('c\n\n', 2)).kind, 'newKey');
  const key = cursorContext(doc, offset('tools', 2));
  assert.deepEqual(key.kind === 'key' && [key.key, at(text, key.span)], ['tools', 'tools']);
  const value = cursorContext(doc, offset('Gr'));
  assert.ok(value.kind === 'value');
  assert.deepEqual([value.key, value.word, value.inSpawnPattern], ['tools', 'Gr', false]);
  const inTask = cursorContext(doc, offset('wor'));
  assert.ok(inTask.kind === 'value' && inTask.inSpawnPattern && inTask.word === 'wor');
  const item = cursorContext(doc, offset('pla'));
  assert.ok(item.kind === 'value' && item.key === 'spawns' && item.word === 'pla');
  assert.equal(cursorContext(doc, offset('Body')).kind, 'outside');
});

test('TOML: multi-line strings end where TOML ends them, so keys after them are found and keys inside them are not', () => {
  const file = '/p/.codex/agents/x.toml';
  const cases: [string, string][] = [
    // An escaped quote run does not close a basic string.
    ['"""\nSay \\""" quoted.\nmodel = "inside"\n"""', '\nSay \\""" quoted.\nmodel = "inside"\n'],
    // Up to two quotes before the closing fence belong to the string.
    ['"""\nends with a quote""""', '\nends with a quote"'],
    ['"""\nends with two"""""', '\nends with two""'],
    ["'''\nliteral ''''", "\nliteral '"],
    // A backslash escapes nothing in a literal string.
    ["'''\nC:\\dir\\'''", '\nC:\\dir\\'],
  ];
  for (const [value, inner] of cases) {
    const text = `name = "rev"\ndeveloper_instructions = ${value}\nmodel = "opus"\n`;
    const doc = parseAgentDocument(text, file);
    assert.equal(doc.yamlError, null, `${value} is valid TOML`);
    assert.deepEqual(doc.fields.map((f) => f.key), ['name', 'developer_instructions', 'model'], value);
    const instructions = field(doc, 'developer_instructions')!;
    assert.equal(at(text, instructions.valueSpan), value);
    assert.equal(instructions.items[0]!.text, inner);
    assert.equal(at(text, field(doc, 'model')!.valueSpan), '"opus"');
  }
  // In an array too: an escaped quote does not end an item.
  const text = 'nickname_candidates = ["a\\"]", "b"]\nmodel = "opus"\n';
  const doc = parseAgentDocument(text, file);
  assert.deepEqual(field(doc, 'nickname_candidates')!.items.map((i) => i.text), ['a\\"]', 'b']);
  assert.equal(at(text, field(doc, 'model')!.valueSpan), '"opus"');
});

test('TOML: quoted and dotted keys are located by their top-level key', () => {
  const text = 'name = "rev"\n"description" = "Reviews."\n  model.provider = "x"\n\'sandbox_mode\' = "read-only"\n[mcp_servers.a]\ncommand = "y"\n';
  const doc = parseAgentDocument(text, '/p/.codex/agents/x.toml');
  assert.deepEqual(doc.fields.map((f) => f.key), ['name', 'description', 'model', 'sandbox_mode']);
  assert.equal(at(text, field(doc, 'description')!.keySpan), 'description');
  assert.deepEqual(field(doc, 'description')!.items.map((i) => i.text), ['Reviews.']);
  const model = field(doc, 'model')!;
  assert.equal(at(text, model.keySpan), 'model');
  assert.equal(at(text, model.entrySpan), 'model.provider = "x"');
  // `model.provider = …` makes `model` a table: it has no model name to check.
  assert.deepEqual([model.isMapping, model.items], [true, []]);
  assert.equal(at(text, field(doc, 'sandbox_mode')!.valueSpan), '"read-only"');
});

test('the cursor: the closing `---` is outside the frontmatter from its first column; a list item needs "- "', () => {
  for (const eol of ['\n', '\r\n']) {
    const text = ['---', 'name: c', 'tools:', '-', '- Re', '-x', '---', 'Body', ''].join(eol);
    const doc = parseAgentDocument(text);
    const close = text.indexOf(`${eol}---${eol}Body`) + eol.length;
    assert.equal(cursorContext(doc, close).kind, 'outside');
    assert.equal(cursorContext(doc, close + 2).kind, 'outside');
    // The end of the last frontmatter line is still inside.
    const last = cursorContext(doc, close - eol.length);
    assert.ok(last.kind === 'newKey', JSON.stringify(last));
    const empty = cursorContext(doc, text.indexOf(`${eol}-${eol}`) + eol.length + 1);
    assert.ok(empty.kind === 'value' && empty.key === 'tools', JSON.stringify(empty));
    const item = cursorContext(doc, text.indexOf('- Re') + 4);
    assert.ok(item.kind === 'value' && item.key === 'tools' && item.word === 'Re', JSON.stringify(item));
    assert.equal(cursorContext(doc, text.indexOf('-x') + 2).kind, 'newKey');
  }
  // A frontmatter that does not close yet runs to the end of the file, the very end included.
  const open = '---\nname: c\nto';
  assert.equal(cursorContext(parseAgentDocument(open), open.length).kind, 'newKey');
});
