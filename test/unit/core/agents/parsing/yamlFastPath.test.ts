import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { bundledAgentsDir } from '../../../../../src/core/agents/sources/bundled';
import { parseWithYamlEngine, parseYamlFrontmatter } from '../../../../../src/core/agents/parsing/frontmatter';
import { parseYamlFastPath, type NestedColonError } from '../../../../../src/core/agents/parsing/yamlFastPath';
import { checkFastPath as check, frontmatterOf } from '../../../../support/frontmatterContract';
import { generateAgents } from '../../../../support/generatedAgents';

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
  // Block lists, flow lists with quotes and YAML-breaking descriptions go to the YAML parser; plain CSV lines do not.
  assert.ok(taken >= markdown / 2, `fast path took ${taken} of ${markdown}`);
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
  // Block scalars: headers, indentation, blank, trailing-space and more-indented lines, line endings.
  const headers = ['|', '|-', '|+', '>', '>-', '>+', '|2', '>1-', '| # c', '>-  ', '>- x', '>-\t'];
  const bodies = [
    ['a'], ['a', 'b'], ['Use it: often', '# not a comment', '- not an item', 'key: not a key'], ['a ', 'b'], ['a', 'b  '],
    ['a', '', 'b'], ['a', '   ', 'b'], ['a', '  b'], ['a', ' b'], [' a', 'b'], ['a\tb'], ['\ta'], ['é', '🎉'], ['a\u2028b'], ['"q"', "'q'"],
    ['---'], ['...'], ['a', 'b', 'c', 'd'],
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
    if (check(lines.join(eol) + (random() < 0.8 ? eol : ''))) taken++;
  }
  assert.ok(taken > 500, `fast path took ${taken} of ${total}`);
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
  // In a list item `a: b` is a valid mapping: no verdict there.
  const item: { error?: NestedColonError } = {};
  assert.equal(parseYamlFastPath('tools:\n  - a: b\n', item), undefined);
  assert.equal(item.error, undefined);
});
