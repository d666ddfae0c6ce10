import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exceedsValueBudget, MAX_YAML_VALUES, parseYamlFrontmatter, splitFrontmatter } from '../../../../../src/core/agents/parsing/frontmatter';
import { quote } from '../../../../../src/core/agents/interpretation/fieldValues';
import { readForgivingFrontmatter } from '../../../../../src/core/agents/parsing/forgivingFrontmatter';

test('splits frontmatter from the body', () => {
  assert.deepEqual(splitFrontmatter('---\nname: a\n---\nBody\n'), { kind: 'ok', frontmatter: 'name: a\n', body: 'Body\n', firstLine: 2 });
});

test('accepts CRLF, a BOM, trailing spaces on delimiters and an empty block', () => {
  const crlf = splitFrontmatter('\uFEFF--- \r\nname: a\r\n---\r\nBody');
  assert.equal(crlf.kind, 'ok');
  assert.equal(crlf.kind === 'ok' && crlf.body, 'Body');
  assert.deepEqual(splitFrontmatter('---\n---\nBody'), { kind: 'ok', frontmatter: '', body: 'Body', firstLine: 2 });
});

test('a file without frontmatter, or with an unclosed one, is reported as such', () => {
  assert.deepEqual(splitFrontmatter('# Just markdown\n'), { kind: 'none', body: '# Just markdown\n' });
  assert.deepEqual(splitFrontmatter('----\nname: a\n---\n'), { kind: 'none', body: '----\nname: a\n---\n' });
  assert.deepEqual(splitFrontmatter('---\nname: a\nno end'), { kind: 'unterminated' });
  // A `---` inside a value line does not close the block; only a line of its own does.
  const split = splitFrontmatter('---\ndescription: a --- b\n---\nx');
  assert.equal(split.kind === 'ok' && split.frontmatter, 'description: a --- b\n');
});

test('YAML is parsed with gray-matter\'s engine, multi-line strings included', () => {
  const result = parseYamlFrontmatter('name: a\ndescription: >-\n  folded\n  text\ntools: [Read, Grep]\nmaxTurns: 5\n');
  assert.deepEqual(result, { ok: true, data: { name: 'a', description: 'folded text', tools: ['Read', 'Grep'], maxTurns: 5 } });
  assert.deepEqual(parseYamlFrontmatter(''), { ok: true, data: {} });
});

test('YAML errors name the file line and column', () => {
  const result = parseYamlFrontmatter('name: a\ndescription: Use it. Triggers on: x\n');
  assert.equal(result.ok, false);
  assert.match(!result.ok ? result.message : '', /\(line 3, column \d+\)$/);
  const notMapping = parseYamlFrontmatter('- a\n- b\n');
  assert.equal(notMapping.ok, false);
});

test('the fallback reader takes each key line at face value', () => {
  const fm = [
    'name: growth',
    'description: Use when asked about loops. Triggers on: \'loops\', \'virality\'.',
    'tools: Read, Grep',
    'model: sonnet',
  ].join('\n');
  assert.deepEqual(readForgivingFrontmatter(fm), {
    name: 'growth',
    description: "Use when asked about loops. Triggers on: 'loops', 'virality'.",
    tools: 'Read, Grep',
    model: 'sonnet',
  });
});

test('the fallback reader handles quotes, lists, blocks and continuation lines', () => {
  const fm = [
    'name: "quoted: name"',
    "description: 'it''s fine: really'",
    'tools:',
    '  - Read',
    '  - "Bash(git:*)"',
    'spawns: [explore, "plan"]',
    'notes: |',
    '  line one',
    '  line two',
    'summary: first part',
    '  second part',
    '# a comment: ignored',
    'empty:',
    'name: duplicate ignored',
  ].join('\n');
  assert.deepEqual(readForgivingFrontmatter(fm), {
    name: 'quoted: name',
    description: "it's fine: really",
    tools: ['Read', 'Bash(git:*)'],
    spawns: ['explore', 'plan'],
    notes: 'line one\nline two',
    summary: 'first part second part',
    empty: null,
  });
});

test('the fallback reader never throws and keeps __proto__ a plain field', () => {
  const result = readForgivingFrontmatter('__proto__: x\n');
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(result, '__proto__')?.value, 'x');
  assert.deepEqual(readForgivingFrontmatter(': nothing\n   \n\t- stray\n"unclosed'), {});
});

test('the value budget counts every use of a shared value and stops at the budget', () => {
  let shared: unknown = ['x', 'y', 'z'];
  for (let i = 0; i < 30; i++) shared = [shared, shared, shared];
  const started = performance.now();
  assert.equal(exceedsValueBudget({ tools: shared }, MAX_YAML_VALUES), true);
  // 3^30 values would never finish; the walk stops at the budget.
  assert.ok(performance.now() - started < 1000);
  assert.equal(exceedsValueBudget({ tools: ['Read', 'Grep'], handoffs: [{ label: 'a', agent: 'b' }] }, 8), false);
  assert.equal(exceedsValueBudget({ tools: ['Read', 'Grep'], handoffs: [{ label: 'a', agent: 'b' }] }, 7), true);
  const cycle: unknown[] = [];
  cycle.push(cycle);
  assert.equal(exceedsValueBudget(cycle, 100), true);
});

test('a warning quotes at most 80 characters of a value, whatever its size', () => {
  assert.equal(quote(['Read', 1, true, null, { a: 'b' }]), '["Read",1,true,null,{"a":"b"}]');
  assert.equal(quote('x'.repeat(500)), `"${'x'.repeat(79)}…`);
  let shared: unknown = ['lol'];
  for (let i = 0; i < 40; i++) shared = [shared, shared, shared, shared, shared, shared, shared, shared, shared];
  const quoted = quote(shared);
  assert.ok(quoted.length <= 81 && quoted.endsWith('…'), quoted);
  assert.equal(quote(new Date(0)), '"1970-01-01T00:00:00.000Z"');
});

test('YAML that expands past the budget is refused with a reason, not read line by line', () => {
  const levels = ['l0: &l0 [a, a, a, a, a, a, a, a, a]'];
  for (let i = 1; i < 6; i++) levels.push(`l${i}: &l${i} [${Array(9).fill(`*l${i - 1}`).join(', ')}]`);
  const result = parseYamlFrontmatter(`${levels.join('\n')}\ntools: *l5\n`);
  assert.equal(result.ok, false);
  assert.equal(!result.ok && result.alias, true);
  assert.match(!result.ok ? result.message : '', /expands to more than 10,000 values through aliases/);
});
