import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { Reply, ScriptedRequest } from '../../../support/scriptedServer';

function parentSpawning(input: Record<string, unknown>, child: (req: ScriptedRequest) => Reply = () => ({ text: 'ok' })) {
  return (req: ScriptedRequest): Reply => {
    if (!isAgent(req.system, 'parent')) return child(req);
    if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'child', description: 'd', prompt: 'p', ...input } }] };
    return { text: [...req.toolResults.values()][0]!.content };
  };
}

async function childModel(opts: { spawnModel?: string; childModel?: string | null; parentModel?: string | null; runModel?: string; defaultModel?: string }) {
  const h = await harness({
    agents: [agent('parent', { model: opts.parentModel ?? null }), agent('child', { model: opts.childModel ?? null })],
    settings: { defaultModel: opts.defaultModel ?? 'sonnet', modelAliases: { sonnet: 'claude-sonnet-5-5', opus: 'claude-opus-5-5', haiku: 'claude-haiku-5-5', fast: 'my-fast-model' } },
    script: parentSpawning(opts.spawnModel ? { model: opts.spawnModel } : {}),
  });
  try {
    await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir, model: opts.runModel });
    return {
      parent: h.server.requests.find((r) => isAgent(r.system, 'parent'))!.model,
      child: h.server.requests.find((r) => isAgent(r.system, 'child'))!.model,
    };
  } finally {
    await h.close();
  }
}

test('model resolution: spawn call > definition > parent (inherit) > default setting; aliases are configurable', async () => {
  assert.deepEqual(await childModel({ spawnModel: 'opus', childModel: 'haiku' }), { parent: 'claude-sonnet-5-5', child: 'claude-opus-5-5' });
  assert.deepEqual(await childModel({ childModel: 'haiku', parentModel: 'opus' }), { parent: 'claude-opus-5-5', child: 'claude-haiku-5-5' });
  assert.deepEqual(await childModel({ childModel: 'inherit', parentModel: 'opus' }), { parent: 'claude-opus-5-5', child: 'claude-opus-5-5' });
  assert.deepEqual(await childModel({ parentModel: 'claude-custom-1' }), { parent: 'claude-custom-1', child: 'claude-custom-1' });
  assert.deepEqual(await childModel({ defaultModel: 'haiku' }), { parent: 'claude-haiku-5-5', child: 'claude-haiku-5-5' });
  assert.deepEqual(await childModel({ childModel: 'fast', runModel: 'opus' }), { parent: 'claude-opus-5-5', child: 'my-fast-model' });
});

const schemaA = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
const schemaB = { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] };
const schemaC = { type: 'object', properties: { c: { type: 'boolean' } }, required: ['c'] };

async function childSchema(opts: { spawnSchema?: object; childOutput?: object; rootSchema?: object }) {
  const h = await harness({
    agents: [agent('parent'), agent('child', { output: opts.childOutput ?? null })],
    script: (req) => {
      if (isAgent(req.system, 'parent')) {
        if (req.toolNames.includes('StructuredOutput') && req.turn === 1) return { toolUses: [{ name: 'StructuredOutput', input: { c: true } }] };
        return parentSpawning(opts.spawnSchema ? { schema: opts.spawnSchema } : {})(req);
      }
      const tool = req.tools.find((t) => t.name === 'StructuredOutput');
      if (!tool) return { text: 'plain' };
      const required = (tool.input_schema as { required: string[] }).required[0]!;
      return { toolUses: [{ name: 'StructuredOutput', input: { [required]: required === 'a' ? 'x' : required === 'b' ? 1 : true } }] };
    },
  });
  try {
    await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir, schema: opts.rootSchema });
    const child = h.server.requests.find((r) => isAgent(r.system, 'child'))!;
    return (child.tools.find((t) => t.name === 'StructuredOutput')?.input_schema as { required: string[] } | undefined)?.required[0] ?? null;
  } finally {
    await h.close();
  }
}

test('output schema precedence: spawn call schema > definition output > parent session schema', async () => {
  assert.equal(await childSchema({ spawnSchema: schemaA, childOutput: schemaB, rootSchema: schemaC }), 'a');
  assert.equal(await childSchema({ childOutput: schemaB, rootSchema: schemaC }), 'b');
  assert.equal(await childSchema({ rootSchema: schemaC }), 'c');
  assert.equal(await childSchema({}), null);
});

test('structured output: an invalid result is corrected by the model; the valid one is the output', async () => {
  const h = await harness({
    agents: [agent('solo', { output: schemaB })],
    script: (req) => {
      if (req.turn === 0) return { text: 'Here it is.', toolUses: [{ name: 'StructuredOutput', input: { b: 'not a number' } }] };
      const [last] = [...req.toolResults.values()];
      assert.ok(last!.isError);
      assert.match(last!.content, /does not match the required schema: b: .*number/);
      return { toolUses: [{ name: 'StructuredOutput', input: { b: 7 } }] };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed');
    assert.deepEqual(result.structuredOutput, { b: 7 });
    assert.equal(result.output, '{"b":7}');
    assert.equal(h.server.requests.length, 2, 'the valid result ends the loop without another model turn');
  } finally {
    await h.close();
  }
});

test('structured output: an agent that never calls the result tool is reminded, then fails clearly', async () => {
  const h = await harness({ agents: [agent('solo', { output: schemaB })], script: () => ({ text: 'I just talk.' }) });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /without returning a result through StructuredOutput/);
    assert.equal(h.server.requests.length, 3, 'one answer and two reminders');
    assert.match(h.server.requests[1]!.lastUserText, /Call the StructuredOutput tool now/);
  } finally {
    await h.close();
  }
});

test('a non-object schema is wrapped as { result } for the tool and unwrapped in the output', async () => {
  const h = await harness({
    agents: [agent('solo', { output: { type: 'array', items: { type: 'string' } } })],
    script: () => ({ toolUses: [{ name: 'StructuredOutput', input: { result: ['x', 'y'] } }] }),
  });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'go', cwd: h.dir });
    assert.deepEqual(result.structuredOutput, ['x', 'y']);
  } finally {
    await h.close();
  }
});

test("a catastrophic output-schema pattern cannot freeze the engine: it is stopped at its deadline and named to the model", async () => {
  const evil = { type: 'object', properties: { id: { type: 'string', pattern: '^(a+)+$' } }, required: ['id'] };
  const h = await harness({
    agents: [agent('solo', { output: evil })],
    script: (req) => (req.turn === 0 ? { toolUses: [{ name: 'StructuredOutput', input: { id: `${'a'.repeat(42)}!` } }] } : { text: 'giving up' }),
  });
  // A timer on the main thread: it fires only if the pattern does not hold the thread.
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 50);
  try {
    const started = Date.now();
    const result = await h.engine.run({ agent: 'solo', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'failed');
    assert.ok(Date.now() - started < 20_000, 'the run ended');
    assert.ok(ticks >= 10, `the main thread kept running (${ticks} ticks)`);
    const [answer] = [...h.server.requests[1]!.toolResults.values()];
    assert.equal(answer!.isError, true);
    assert.match(answer!.content, /The result cannot be checked: in the output schema, the pattern "\^\(a\+\)\+\$" took more than 1000 ms and was stopped/);
  } finally {
    clearInterval(ticker);
    await h.close();
  }
});

test('output-schema patterns keep their meaning: unanchored search, patternProperties on keys, messages naming the pattern', async () => {
  const schema = {
    type: 'object',
    properties: { code: { type: 'string', pattern: '[0-9]{3}' }, note: { type: 'string', pattern: '^(?!secret)' } },
    patternProperties: { '^x-': { type: 'number' } },
    required: ['code'],
  };
  const attempts = [{ code: 'ab12', 'x-n': 1 }, { code: 'v100!', 'x-n': 'one' }, { code: 'v100!', 'x-n': 2, note: 'public' }];
  const answers: string[] = [];
  const h = await harness({
    agents: [agent('solo', { output: schema })],
    script: (req) => {
      if (req.turn > 0) answers.push([...req.toolResults.values()][0]!.content);
      return { toolUses: [{ name: 'StructuredOutput', input: attempts[req.turn] }] };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.deepEqual(result.structuredOutput, attempts[2]);
    assert.match(answers[0]!, /code: Invalid string: must match pattern \/\[0-9\]\{3\}\//);
    assert.match(answers[1]!, /x-n: .*number/);
  } finally {
    await h.close();
  }
});
