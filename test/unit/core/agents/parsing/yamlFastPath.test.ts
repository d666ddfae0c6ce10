import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { bundledAgentsDir } from '../../../../../src/core/agents/sources/bundled';
import { parseWithYamlEngine, parseYamlFrontmatter } from '../../../../../src/core/agents/parsing/frontmatter';
import { parseYamlFastPath, type NestedColonError } from '../../../../../src/core/agents/parsing/yamlFastPath';
import { checkFastPath as check, checkFastPathAgainstYaml12 as check12, frontmatterOf } from '../../../../support/frontmatterContract';
import { generateAgents, generatedFiles } from '../../../../support/generatedAgents';

// The fast path for simple frontmatter must give exactly what the YAML parser
// gives for every input it accepts, and decline (undefined) everything else
// (test/support/frontmatterContract.ts): on the bundled agents and generated
// tricky input here; on real-world files in the corpus phase.

test('bundled agents: the fast path agrees with YAML', () => {
  const dir = bundledAgentsDir();
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
  assert.ok(files.length > 0);
  for (const file of files) {
    const frontmatter = frontmatterOf(readFileSync(path.join(dir, file), 'utf8'));
    assert.ok(frontmatter !== null, file);
    check(frontmatter);
  }
});

test('generated agents in every shape: the fast path agrees with YAML, and takes the simple ones', () => {
  let taken = 0;
  let markdown = 0;
  for (const agent of generateAgents().agents) {
    // Codex's TOML, Kiro's JSON and a modes file have no frontmatter.
    if (!agent.text.startsWith('---')) continue;
    markdown++;
    const frontmatter = frontmatterOf(agent.text);
    assert.ok(frontmatter !== null, agent.path);
    if (check(frontmatter)) taken++;
    check(frontmatter.replace(/\n/g, '\r\n'));
  }
  // YAML-breaking descriptions go to the YAML parser (or are reported by the fast path); the rest, nested maps included, do not.
  assert.ok(taken >= (markdown * 3) / 4, `fast path took ${taken} of ${markdown}`);
});

test('generated modes files: the fast path agrees with both YAML parsers (js-yaml, and yaml as Roo Code runs it)', () => {
  const modes = [...generatedFiles(generateAgents())].filter(([file]) => file.endsWith('.roomodes'));
  assert.ok(modes.length > 0);
  for (const [file, text] of modes) {
    check(text);
    check12(text);
    // A plain `\.md$` starts with a character the fast path leaves to the parser; quoted, the nested `[edit, { fileRegex }]` groups are read by the fast path too.
    const quoted = text.replace(/fileRegex: (.*)/g, "fileRegex: '$1'");
    assert.ok(check(quoted) && check12(quoted), file);
    const simpler = text.replace(/      - - edit\n        - fileRegex: .*\n          description: .*\n/g, '      - edit\n');
    assert.ok(check(simpler) && check12(simpler), 'a modes file of plain groups');
  }
});

/** Values YAML reads as something else than the text, or not at all. */
const TRICKY_VALUES = [
  'true', 'True', 'TRUE', 'tRUE', 'false', 'False', 'FALSE', 'yes', 'Yes', 'no', 'No', 'on', 'off', 'y', 'n',
  'null', 'Null', 'NULL', 'nULL', '~', '', '0', '00', '007', '08', '0x1F', '0o17', '0b101', '1_000', '1e3', '1E3', '1.5', '.5', '5.',
  '-1', '+1', '-0', '.inf', '-.inf', '.NaN', '1:30', '190:20:30', '2024-01-01', '2024-01-01T10:00:00Z', '2024-1-1 10:00:00',
  '123456789012345', '1234567890123456', '12345678901234567890', '<<', '=', '- item', '-item', '-', '--', '---', '...',
  'a: b', 'a:b', 'a:', 'a :b', 'a #c', 'a#c', 'a # c', '#c', 'http://example.com/x?y=1#z', 'Read, Grep', 'Read,Grep',
  'Task(a, b)', 'Bash(git:*)', '[a, b]', '[]', '{a: b}', '{}', '&anchor x', '*alias', '!tag x', '!!str 1', '!!int "1"',
  '|', '|-', '|+', '>', '>-', '>2', '@x', '`x`', '%x', '?x', '? x', ',x', 'x,', 'x]', 'x}', 'x{y}', "'quoted'", "'it''s'",
  "''", '""', '"dq"', '"a: b # c"', '"esc\\n"', '"esc\\"q"', '"a" b', '"a" #c', '"a"b', '"unterminated', "'unterminated",
  '"a\'b"', "'a\"b'", '"  spaced  "', "'  spaced  '", 'é', 'éa', 'aé', '日本語', 'a日本語', 'naïve café', 'emoji 🎉', 'a🎉b',
  'a\uD800b', 'a\uDC00b', 'a\u00A0b', 'a\u2028b', 'a\u2029b', 'a\uFEFFb', 'a\u0085b', 'a\u007Fb', 'a\u0001b', 'a\u0000b',
  'a\u001Bb', 'a\uFFFEb', 'a\uFFFFb', 'a\tb', 'a\rb', 'a  b', 'a - b', 'a ? b', 'a | b', 'a > b', 'a & b', 'a * b', 'a ! b',
  "a ' b", 'a " b', 'true story', 'False positives', 'NULL pointer', 'Infinity', 'NaN', 'constructor', 'toString',
  'hasOwnProperty', '__proto__', 'inherit', 'sonnet', 'claude-sonnet-4-5', 'x'.repeat(2000),
];

const TRICKY_KEYS = [
  'name', 'description', 'Name', 'x', 'a.b', 'a-b', 'a_b', 'a1', '1a', '_a', '__proto__', 'constructor', 'toString',
  'true', 'True', 'false', 'null', 'Null', '~', '<<', 'a b', 'k'.repeat(127), 'k'.repeat(128), 'k'.repeat(129), 'é', '"q"', "'q'",
  '? a', '-a', '- a', 'a\t',
];

function* generated(): Generator<string> {
  for (const value of TRICKY_VALUES) {
    yield `name: x\nkey: ${value}\n`;
    yield `key: ${value}`;
    yield `key:  ${value}  \n`;
    yield `key: ${value}\r\nname: x\r\n`;
    yield `key:\n  - ${value}\n  - other\n`;
    yield `key:\n- ${value}\n`;
    yield `key:\n  - other\n  - ${value}\nname: x\n`;
    yield `key:\n  -  ${value}\n`;
    yield `key: ${value}\n  continued\n`;
    yield `key: ${value}\n# comment\n`;
    yield `${value}: x\n`;
  }
  for (const key of TRICKY_KEYS) {
    yield `${key}: v\n`;
    yield `name: x\n${key}: v\n`;
    yield `${key}:\n  - a\n`;
    yield `${key} : v\n`;
  }
  const shapes = [
    '', '\n', '\n\n', ' \n', 'name: a', 'name: a\n', 'name: a\n\n\ndescription: b\n', '\uFEFFname: a\n', 'name: a\uFEFF\n',
    'name: a\ndescription: b\nname: c\n', 'name: a\ntools:\n  - a\ntools: b\n', 'tools:\n\n  - a\n\n  - b\n', 'tools:\n  - a\n    - b\n',
    'tools:\n  - a\n - b\n', 'tools:\n    - a\n  - b\n', 'tools:\n  - a\n  b\n', 'tools:\n  -\n', 'tools:\n  - \n', 'tools:\n  -a\n',
    'tools:\nname: a\n', 'tools:\n', 'tools:   \n  - a\n', 'tools:\n  - a\n  - b: c\n', 'tools:\n  - - a\n', 'tools:\n  - [a]\n',
    'tools:\n\t- a\n', 'name:\ta\n', 'name: a\t\n', '\tname: a\n', ' name: a\n', '  name: a\n  description: b\n',
    'name: a\r', 'name: a\rdescription: b\n', 'name: a\r\r\n', 'name: a \r\n', 'name: a\r \n', ' \r\nname: a\r\n',
    '- a\n- b\n', 'a\n', 'name: a\n...\n', 'name: a\n--- x\n', '%YAML 1.2\nname: a\n', 'name: a\nb\n', 'name: a\nb: c\n',
    'name:a\n', 'name:: a\n', 'name: a: b\n', 'name: - a\n', 'name: &a x\nother: *a\n', 'name: !!str 1\n', 'name: "a\n  b"\n',
    "name: 'a\n  b'\n", 'name: >\n  a\n  b\n', 'name: |\n  a\n  b\n', 'nested:\n  a: b\n', 'nested:\n  a: b\n  c: d\n',
    '<<: {a: b}\n', 'name: a # comment\n', '# comment\nname: a\n', 'name: a\n  # indented comment\n',
  ];
  yield* shapes;
  // Nested collections: maps in maps, lists of maps, lists in lists, flow lists, quoted keys, and their indentation mistakes.
  for (const value of TRICKY_VALUES) {
    yield `permission:\n  bash: ${value}\n  edit: ask\n`;
    yield `permission:\n  bash:\n    "git *": ${value}\n    '*': ask\nname: x\n`;
    yield `modes:\n  - slug: ${value}\n    name: x\n  - slug: y\n`;
    yield `modes:\n- slug: x\n  groups: [read, ${value}]\n`;
    yield `tools: [${value}]\n`;
    yield `tools: [a, ${value}, b]\n`;
    yield `groups:\n  - - ${value}\n    - fileRegex: x\n`;
    yield `permission:\n  "${value}": allow\n`;
    yield `permission:\n  '${value}': allow\n`;
  }
  for (const key of TRICKY_KEYS) {
    yield `permission:\n  ${key}: v\n`;
    yield `modes:\n  - ${key}: v\n    other: w\n`;
  }
  const nested = [
    'a:\n  b:\n    c: d\n', 'a:\n  b:\n    c: d\n  e: f\ng: h\n', 'a:\n  b: c\n   d: e\n', 'a:\n  b: c\n d: e\n', 'a:\n   b: c\n  d: e\n',
    'a:\n  b:\n  c: d\n', 'a:\n  b:\n  - c\n', 'a:\n  b:\n  - c\n  d: e\n', 'a:\n- b: c\n  d: e\n- f\n', 'a:\n  - b: c\n    d: e\n  - f: g\n',
    'a:\n  - b: c\n   d: e\n', 'a:\n  - b: c\n     d: e\n', 'a:\n  - b:\n      - c\n    d: e\n', 'a:\n  - b:\n    - c\n', 'a:\n  -  b: c\n     d: e\n',
    'a:\n  - - b\n    - c\n  - - d\n', 'a:\n  - - b\n  - c\n', 'a:\n  - - - b\n', 'a:\n  - b\n  c: d\n', 'a:\n  b: c\n  - d\n', 'a:\n  - b\nc: d\n',
    'a:\n  - b: >-\n      text\n    c: d\n', 'a:\n  - b: >-\n      text\n  - c\n', 'a:\n  - b: |\n     text\n       more\n', 'a:\n  b: >\n    x\n  c: d\n',
    'a:\n  b: >\n   x\n  c: d\n', 'a:\n  b: >\n  x\n', 'a:\n  - >-\n    x\n', 'a:\n  - |\n    x\n  - y\n', 'a:\n  b:\n\n    c: d\n\n  e: f\n',
    'a: []\n', 'a: [ ]\n', 'a: [a,b]\n', 'a: [a ,b ]\n', 'a: [a, b,]\n', 'a: [, a]\n', 'a: [a, [b]]\n', 'a: [a, {b: c}]\n', 'a: [a: b]\n', 'a: [a, b] # c\n',
    'a: [a, b]x\n', 'a: [a\n  , b]\n', 'a: ["a, b"]\n', "a: ['a', 'b']\n", 'a: ["a", "b"]\n', 'a: [a b, c d]\n', 'a: [true, 1, null]\n', 'a: [a#b]\n',
    '"a": b\n', "'a': b\n", '"a b": c\n', '"a": b\n"a": c\n', '"a":b\n', '"a" : b\n', '"a\\"b": c\n', "'a''b': c\n", '"": a\n', '"__proto__": a\n',
    'a:\n  __proto__:\n    b: c\n', 'a:\n  constructor: b\n', 'a:\n  b: c\n  b: d\n', 'a:\n  - b: c\n    b: d\n', 'a:\n  b: c: d\n', 'a:\n  - b: c: d\n',
    'a:\n  b:\n', 'a:\n  b:\nc: d\n', 'a:\n  -\n    b: c\n', 'a:\n  - b:\n  - c\n', 'a:\n\tb: c\n', 'a:\n  b: c\r\n  d: e\r\n', 'a:\n  b: c # d\n',
    'a:\n  # c\n  b: d\n', 'a:\n  b: &x c\n  d: *x\n', 'a:\n  ? b\n  : c\n', 'a:\n  b: {c: d}\n', 'a:\n  1: b\n', 'a:\n  true: b\n', 'a:\n  b.c: d\n',
  ];
  yield* nested;
  // Block scalars: headers, indentation, blank, trailing-space and more-indented lines, line endings.
  const headers = ['|', '|-', '|+', '>', '>-', '>+', '|2', '>1-', '| # c', '>-  ', '>- x', '>-\t'];
  const bodies = [
    ['a'], ['a', 'b'], ['Use it: often', '# not a comment', '- not an item', 'key: not a key'], ['a ', 'b'], ['a', 'b  '],
    ['a', '', 'b'], ['a', '   ', 'b'], ['a', '  b'], ['a', ' b'], [' a', 'b'], ['a\tb'], ['\ta'], ['é', '🎉'], ['a\u2028b'], ['"q"', "'q'"],
    ['---'], ['...'], ['a', 'b', 'c', 'd'], ['a', '', '', 'b'], ['a', '', 'b', '', 'c'], ['a', ''], ['', 'a'], ['a', '', ' b'], ['a', '', '  b'],
  ];
  for (const header of headers) {
    for (const body of bodies) {
      for (const indent of ['  ', ' ', '    ']) {
        const block = body.map((line) => (line === '' ? '' : indent + line)).join('\n');
        yield `description: ${header}\n${block}\n`;
        yield `description: ${header}\n${block}\nname: x\n`;
        yield `description: ${header}\n${block}`;
        yield `description: ${header}\n${block}\n\nname: x\n`;
        yield `description: ${header}\r\n${block.replace(/\n/g, '\r\n')}\r\nname: x\r\n`;
        yield `name: x\ndescription: ${header}\n${block}\n  less\n`;
      }
    }
    yield `description: ${header}\nname: x\n`;
    yield `description: ${header}\n`;
    yield `description: ${header}`;
    yield `description: ${header}\n    a\n  b\n`;
    yield `tools:\n  - a\ndescription: ${header}\n  text\ntools2:\n  - b\n`;
  }
}

test('generated tricky input: the fast path agrees with YAML or declines', () => {
  let taken = 0;
  let total = 0;
  for (const frontmatter of generated()) {
    total++;
    if (check(frontmatter)) taken++;
    // Modes files take the fast path too, so it must agree with the yaml package as well.
    check12(frontmatter);
  }
  // Both outcomes must really occur, or the test checks nothing.
  assert.ok(taken > 50 && taken < total - 300, `fast path took ${taken} of ${total}`);
});

/** Deterministic pseudo-random numbers, so a failure reproduces. */
function prng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 2 ** 32;
    return state / 2 ** 32;
  };
}

test('random frontmatter built from YAML-significant pieces: agrees with YAML or declines', () => {
  const random = prng(7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const pieces = [
    'a', 'b', 'Read', 'true', 'null', '0', '1', '12', 'x y', ' ', '  ', ':', ': ', '#', ' #', '-', '- ', '"', "'", '\\', ',',
    '[', ']', '{', '}', '&', '*', '!', '|', '>', '%', '@', '`', '?', '.', '~', '\t', '\r', 'é', '🎉', '\u2028', '\uFEFF', '\u0085', '\u0007',
  ];
  // Half the values from pieces that keep a value plain, so that the fast path takes enough of them to test.
  const plainPieces = ['a', 'b', 'Read', 'x y', ' ', '12', 'é', '🎉', ',', '.', '-', ':', '#'];
  const keys = ['name', 'description', 'tools', 'model', 'x', 'a-b', 'true', 'null'];
  let taken = 0;
  const total = 20000;
  for (let n = 0; n < total; n++) {
    const lines: string[] = [];
    const count = 1 + Math.floor(random() * 4);
    for (let l = 0; l < count; l++) {
      const from = random() < 0.5 ? plainPieces : pieces;
      const value = Array.from({ length: Math.floor(random() * 4) }, () => pick(from)).join('');
      const shape = random();
      if (shape < 0.5) lines.push(`${pick(keys)}: ${value}`);
      else if (shape < 0.65) lines.push(`${pick(keys)}:`);
      else if (shape < 0.75) lines.push(`${pick(['', ' ', '  '])}- ${value}`);
      else if (shape < 0.8) lines.push(`${pick(keys)}: ${pick(['|', '>', '|-', '>-', '|+'])}`);
      else if (shape < 0.85) lines.push(`${pick(['', ' ', '  ', '   '])}${value}`);
      else if (shape < 0.9) lines.push('');
      else lines.push(value);
    }
    const eol = random() < 0.2 ? '\r\n' : '\n';
    const text = lines.join(eol) + (random() < 0.8 ? eol : '');
    if (check(text)) taken++;
    check12(text);
  }
  assert.ok(taken > 500, `fast path took ${taken} of ${total}`);
});

test('random nested frontmatter (maps, lists of maps, lists in lists, flow lists): agrees with both YAML parsers or declines', () => {
  const random = prng(11);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const keys = ['a', 'bash', 'edit', '"git *"', "'*'", 'x-y', 'true', 'slug', 'a b'];
  const scalars = ['v', 'allow', 'ask', 'false', '12', '"q v"', "'s'", 'a: b', '', '[a, b]', '[]', '>-', '|', 'x #y', 'null', '"a, b"'];
  const indents = [0, 1, 2, 2, 2, 3, 4, 4, 6];
  let taken = 0;
  let taken12 = 0;
  const total = 8000;
  for (let n = 0; n < total; n++) {
    const lines: string[] = [];
    const count = 1 + Math.floor(random() * 7);
    for (let l = 0; l < count; l++) {
      const pad = ' '.repeat(l === 0 ? 0 : pick(indents));
      const shape = random();
      if (shape < 0.35) lines.push(`${pad}${pick(keys)}: ${pick(scalars)}`);
      else if (shape < 0.55) lines.push(`${pad}${pick(keys)}:`);
      else if (shape < 0.7) lines.push(`${pad}- ${pick(scalars)}`);
      else if (shape < 0.82) lines.push(`${pad}- ${pick(keys)}: ${pick(scalars)}`);
      else if (shape < 0.88) lines.push(`${pad}- - ${pick(scalars)}`);
      else if (shape < 0.93) lines.push(`${pad}${pick(['text', 'more text', 'a: b'])}`);
      else lines.push('');
    }
    const text = `${lines.join('\n')}\n`;
    if (check(text)) taken++;
    if (check12(text)) taken12++;
  }
  assert.ok(taken > 400, `fast path took ${taken} of ${total}`);
  assert.equal(taken12, taken);
});

test('nested shapes of the later formats are read by the fast path itself', () => {
  assert.deepEqual(parseYamlFastPath('description: x\nmode: subagent\ntools:\n  write: false\npermission:\n  edit: ask\n  bash:\n    "git *": allow\n    "*": ask\n'), {
    description: 'x',
    mode: 'subagent',
    tools: { write: false },
    permission: { edit: 'ask', bash: { 'git *': 'allow', '*': 'ask' } },
  });
  assert.deepEqual(parseYamlFastPath("tools: ['codebase', 'editFiles']\n"), { tools: ['codebase', 'editFiles'] });
  assert.deepEqual(parseYamlFastPath('customModes:\n  - slug: a\n    roleDefinition: >-\n      You review.\n    groups: [read, edit]\n  - slug: b\n    groups:\n      - read\n      - - edit\n        - fileRegex: x\n'), {
    customModes: [
      { slug: 'a', roleDefinition: 'You review.', groups: ['read', 'edit'] },
      { slug: 'b', groups: ['read', ['edit', { fileRegex: 'x' }]] },
    ],
  });
});

test('a plain value holding ": " is reported as the YAML error it is, without the YAML parser', () => {
  const frontmatter = 'name: triage\ndescription: Use when: the build is red\ntools: Read\n';
  const problem: { error?: NestedColonError } = {};
  assert.equal(parseYamlFastPath(frontmatter, problem), undefined);
  assert.deepEqual(problem.error, { key: 'description', line: 1, column: 21 });
  assert.equal(parseWithYamlEngine(frontmatter).ok, false);
  assert.deepEqual(parseYamlFrontmatter(frontmatter), {
    ok: false,
    message: 'the value of "description" holds ": ", which YAML reads as a nested mapping; quote the value (line 3, column 22)',
    position: { line: 3, column: 22 },
  });
  // In a list item `a: b` is a valid mapping, read as one; `a b: c` is one too, with a key left to the parser: no verdict there.
  const item: { error?: NestedColonError } = {};
  assert.deepEqual(parseYamlFastPath('tools:\n  - a: b\n', item), { tools: [{ a: 'b' }] });
  assert.equal(parseYamlFastPath('tools:\n  - a b: c\n', item), undefined);
  assert.equal(item.error, undefined);
});
