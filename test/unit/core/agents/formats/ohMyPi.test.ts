import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { jtdToJsonSchema, MAX_SCHEMA_DEPTH, SchemaTooDeepError } from '../../../../../src/core/agents/parsing/jtd';
import { normaliseToolList } from '../../../../../src/core/agents/interpretation/toolNames';
import { load } from './helpers';

// oh-my-pi task agents (.omp/agents/*.md), examples written after omp's
// agent field parser, built-in tool names, model roles and JTD output.

const FILE = '/repo/.omp/agents/reviewer.md';

test('a documented omp agent: role alias, kebab-case thinking level, spawns, todo', () => {
  const { definition, messages } = load(
    ['---', 'name: reviewer', 'description: Reviews changes and files findings.', 'tools: read, grep, find, bash, todo', 'spawns: explore', 'model: pi/slow', 'thinking-level: medium', 'blocking: true', '---', 'Review.'].join('\n'),
    FILE,
    '.omp',
  );
  assert.equal(definition.format, 'oh-my-pi');
  // omp gives the spawn tool to every agent whose `spawns` names someone.
  assert.deepEqual(definition.tools, ['Read', 'Grep', 'Glob', 'Bash', 'TodoWrite', 'Task']);
  assert.deepEqual(definition.spawns, ['explore']);
  assert.equal(definition.model, 'opus');
  assert.equal(definition.thinkingLevel, 'medium');
  assert.equal(definition.blocking, true);
  assert.deepEqual(messages, []);
});

test('model fallback lists take the first entry this runtime can run; roles and default resolve', () => {
  const model = (value: string) => load(`---\nname: a\ndescription: d\nmodel: ${value}\n---\nx`, FILE, '.omp').definition;
  assert.equal(model('pi/smol, haiku, flash, mini').model, 'haiku');
  assert.equal(model('gpt-5.2, flash, opus').model, 'opus');
  assert.equal(model('[gemini-3-pro, claude-sonnet-4-5]').model, 'claude-sonnet-4-5');
  assert.equal(model('pi/task').model, 'inherit');
  assert.equal(model('omp/slow').model, 'opus');
  assert.equal(model('"@smol"').model, 'haiku');
  assert.equal(model('default').model, 'inherit');
  assert.equal(model('anthropic/claude-opus-4-5').model, 'claude-opus-4-5');
  // Every provider segment goes, however many: the model is the last part.
  assert.equal(model('openrouter/anthropic/claude-sonnet-4-5').model, 'claude-sonnet-4-5');
  assert.equal(model('openrouter/anthropic/Claude Sonnet 4.5').model, 'claude-sonnet-4-5');
  // A `:level` suffix is the thinking level, unless the file sets one.
  const suffixed = model('opus:high');
  assert.equal(suffixed.model, 'opus');
  assert.equal(suffixed.thinkingLevel, 'high');
  // Nothing runnable: the first entry is kept (an alias may map it) and the warning says why.
  const { definition, messages } = load('---\nname: a\ndescription: d\nmodel: flash, mini\n---\nx', FILE, '.omp');
  assert.equal(definition.model, 'flash');
  assert.match(messages[0] ?? '', /none of the models "flash", "mini" can run here \("flash" is Google's/);
});

test("omp's tool names, the legacy search alias and its implicit tools", () => {
  const result = normaliseToolList(['read', 'search', 'find', 'ls', 'edit', 'write', 'web_search', 'fetch', 'todo_write', 'ast_grep', 'yield', 'lsp'], 'oh-my-pi');
  assert.deepEqual(result.tools, ['Read', 'Grep', 'Glob', 'LS', 'Edit', 'Write', 'WebSearch', 'WebFetch', 'TodoWrite', 'lsp']);
  assert.deepEqual(result.unknown, ['lsp']);
});

test('thinking words of every omp level: max runs as xhigh, inherit and auto leave it unset', () => {
  const level = (value: string) => load(`---\nname: a\ndescription: d\nthinking: ${value}\n---\nx`, FILE, '.omp').definition.thinkingLevel;
  assert.equal(level('max'), 'xhigh');
  assert.equal(level('inherit'), null);
  assert.equal(level('low'), 'low');
});

test('JTD output becomes JSON Schema that validates what omp would accept', () => {
  const { definition } = load(
    [
      '---',
      'name: explore',
      'description: Finds code.',
      'output:',
      '  properties:',
      '    summary: { type: string }',
      '    files:',
      '      elements:',
      '        properties:',
      '          ref: { type: string }',
      '          line: { type: uint32 }',
      '        optionalProperties:',
      '          note: { type: string, nullable: true }',
      '  optionalProperties:',
      '    confidence: { enum: [low, high] }',
      '---',
      'x',
    ].join('\n'),
    FILE,
    '.omp',
  );
  assert.deepEqual(definition.output, {
    type: 'object',
    properties: {
      summary: { type: 'string' },
      files: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            ref: { type: 'string' },
            line: { type: 'integer', minimum: 0, maximum: 4294967295 },
            note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          },
          additionalProperties: false,
          required: ['ref', 'line'],
        },
      },
      confidence: { type: 'string', enum: ['low', 'high'] },
    },
    additionalProperties: false,
    required: ['summary', 'files'],
  });
  const schema = z.fromJSONSchema(definition.output as Parameters<typeof z.fromJSONSchema>[0]);
  assert.equal(schema.safeParse({ summary: 's', files: [{ ref: 'a.ts', line: 3, note: null }], confidence: 'low' }).success, true);
  assert.equal(schema.safeParse({ summary: 's', files: [{ ref: 'a.ts', line: -1 }] }).success, false);
});

test('every JTD form converts; JSON Schema (and JSON text) passes through, its property names untouched', () => {
  assert.deepEqual(jtdToJsonSchema({}), {});
  assert.deepEqual(jtdToJsonSchema({ type: 'timestamp' }), { type: 'string', format: 'date-time' });
  assert.deepEqual(jtdToJsonSchema({ type: 'float64', metadata: { description: 'score' } }), { type: 'number', description: 'score' });
  assert.deepEqual(jtdToJsonSchema({ values: { type: 'boolean' } }), { type: 'object', additionalProperties: { type: 'boolean' } });
  assert.deepEqual(jtdToJsonSchema({ properties: { a: { type: 'string' } }, additionalProperties: true }), {
    type: 'object',
    properties: { a: { type: 'string' } },
    additionalProperties: true,
    required: ['a'],
  });
  assert.deepEqual(jtdToJsonSchema({ discriminator: 'kind', mapping: { bug: { properties: { line: { type: 'int32' } } }, idea: { properties: {} } } }), {
    oneOf: [
      { type: 'object', properties: { kind: { const: 'bug' }, line: { type: 'integer', minimum: -2147483648, maximum: 2147483647 } }, additionalProperties: false, required: ['kind', 'line'] },
      { type: 'object', properties: { kind: { const: 'idea' } }, additionalProperties: false, required: ['kind'] },
    ],
  });
  assert.deepEqual(jtdToJsonSchema({ definitions: { id: { type: 'string' } }, properties: { owner: { ref: 'id' } } }), {
    type: 'object',
    properties: { owner: { $ref: '#/$defs/id' } },
    additionalProperties: false,
    required: ['owner'],
    $defs: { id: { type: 'string' } },
  });
  const jsonSchema = { type: 'object', properties: { values: { type: 'array', items: { type: 'string' } }, ref: { type: 'string' } } };
  assert.deepEqual(jtdToJsonSchema(jsonSchema), jsonSchema);
  const fromText = load(`---\nname: a\ndescription: d\noutput: '{"properties": {"ok": {"type": "boolean"}}}'\n---\nx`, FILE, '.omp').definition.output;
  assert.deepEqual(fromText, { type: 'object', properties: { ok: { type: 'boolean' } }, additionalProperties: false, required: ['ok'] });
});

test('an output schema nested thousands of levels deep is ignored with a warning, not a stack overflow', () => {
  const deep = (levels: number) => '{"elements":'.repeat(levels) + '{}' + '}'.repeat(levels);
  // 6,000 levels: 78 KB of text, enough to overflow the converter's recursion.
  const { definition, messages } = load(`---\nname: deep\ndescription: d\noutput: '${deep(6000)}'\n---\nbody`, FILE, '.omp');
  assert.equal(definition.name, 'deep');
  assert.equal(definition.output, null);
  assert.deepEqual(messages, [`"output" is ignored: it nests more than ${MAX_SCHEMA_DEPTH} levels deep`]);
  assert.throws(() => jtdToJsonSchema(JSON.parse(deep(6000))), SchemaTooDeepError);
  // Up to the cap it still converts.
  const shallow = jtdToJsonSchema(JSON.parse(deep(MAX_SCHEMA_DEPTH - 1))) as { type: string; items: unknown };
  assert.equal(shallow.type, 'array');
});
