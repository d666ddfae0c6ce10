import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import { totalTokens } from '../../../../src/protocol/runEvents';

test('prompt caching: tools, system and the moving end of the conversation carry breakpoints; later turns read the prefix from cache', async () => {
  const h = await harness({
    agents: [agent('solo', { systemPrompt: `[agent:solo] ${'You are careful. '.repeat(200)}` })],
    script: (req) => (req.turn < 3 ? { text: `turn ${req.turn}`, toolUses: [{ name: 'LS', input: {} }] } : { text: 'done' }),
  });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'list things', cwd: h.dir });
    assert.equal(result.status, 'completed');
    const body = h.server.requests[2]!.body as { tools: Array<{ cache_control?: unknown }>; system: Array<{ cache_control?: unknown }>; messages: Array<{ role: string; content: Array<{ cache_control?: unknown }> }> };
    assert.ok(body.tools.at(-1)!.cache_control, 'last tool is a breakpoint');
    assert.ok(body.tools.slice(0, -1).every((t) => !t.cache_control));
    assert.ok(body.system.at(-1)!.cache_control, 'system prompt is a breakpoint');
    const marked = body.messages.filter((m) => Array.isArray(m.content) && m.content.some((b) => b.cache_control));
    assert.equal(marked.length, 2, 'the last two user messages are breakpoints (4 in all, the API maximum)');
    assert.ok(marked.every((m) => m.role === 'user'));

    const usage = h.events.filter((e) => e.type === 'usage').map((e) => (e.type === 'usage' ? e.usage : null)!);
    const perTurn = usage.map((u, i) => (i === 0 ? u : { input: u.inputTokens - usage[i - 1]!.inputTokens, read: u.cacheReadTokens - usage[i - 1]!.cacheReadTokens, write: u.cacheWriteTokens - usage[i - 1]!.cacheWriteTokens }));
    const first = usage[0]!;
    assert.equal(first.cacheReadTokens, 0);
    assert.ok(first.cacheWriteTokens > 800, 'the first turn writes the prefix to the cache');
    for (const turn of perTurn.slice(1) as Array<{ input: number; read: number; write: number }>) {
      assert.ok(turn.read >= first.cacheWriteTokens, 'every later turn reads at least the first prefix from the cache');
      assert.ok(turn.write < first.cacheWriteTokens / 2, 'and writes only what is new');
    }
    assert.equal(result.usage.cacheReadTokens, usage.at(-1)!.cacheReadTokens);
    // Full history every turn, never the SDK's message threads: so it works on any compatible endpoint.
    for (const req of h.server.requests) assert.equal('thread' in req.body, false);
    assert.deepEqual(h.server.requests.map((r) => r.messages.length), [1, 3, 5, 7]);
    assert.ok(result.usage.costUsd > 0, 'cost is estimated from the model price');
  } finally {
    await h.close();
  }
});

test('budget: when the tree reaches its token budget every agent stops with budget_exceeded and keeps its output', async () => {
  const h = await harness({
    agents: [agent('parent'), agent('worker')],
    script: (req) => {
      if (isAgent(req.system, 'worker')) return { text: `worker step ${req.turn}`, toolUses: [{ name: 'LS', input: {} }] };
      if (req.turn === 0) return { text: 'starting', toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'loop', prompt: 'work forever' } }] };
      return { text: 'unreachable' };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir, budget: { maxTokens: 20_000 } });
    assert.equal(result.status, 'budget_exceeded');
    assert.match(result.error ?? '', /Token budget reached: \d+ of 20000 tokens used/);
    const finished = h.events.filter((e) => e.type === 'agent_finished');
    assert.deepEqual(finished.map((e) => e.type === 'agent_finished' && e.status), ['budget_exceeded', 'budget_exceeded']);
    const worker = finished[0]!;
    assert.match(worker.type === 'agent_finished' ? (worker.output ?? '') : '', /worker step \d+/);
    assert.equal(result.output, 'starting');
  } finally {
    await h.close();
  }
});

test('budget: crossed on a turn that only calls tools, the agent keeps the text of its earlier turn', async () => {
  const FINDING = 'The cause is the off-by-one in parser.ts.';
  const h = await harness({
    // `peek` is the same agent stopped after one turn, to measure what a first turn costs.
    agents: [agent('solo'), agent('peek', { maxTurns: 1 })],
    // Text and a tool call first, then turns that only call tools.
    script: (req) => (req.turn === 0 ? { text: FINDING, toolUses: [{ name: 'LS', input: {} }] } : { toolUses: [{ name: 'LS', input: {} }] }),
  });
  try {
    await h.engine.run({ agent: 'peek', prompt: 'find the cause', cwd: h.dir });
    const firstUsage = h.events.find((e) => e.type === 'usage');
    assert.ok(firstUsage?.type === 'usage');
    const firstTurn = totalTokens(firstUsage.usage);
    h.events.length = 0;

    // Every turn sends the whole conversation again, so the second costs at least as much as the first: it crosses.
    const result = await h.engine.run({ agent: 'solo', prompt: 'find the cause', cwd: h.dir, budget: { maxTokens: Math.ceil(firstTurn * 1.5) } });
    assert.equal(result.status, 'budget_exceeded');
    assert.equal(result.turns, 2, 'stopped after the tool-only turn that crossed the budget');
    assert.equal(result.output, FINDING);
    const finished = h.events.find((e) => e.type === 'agent_finished');
    assert.equal(finished?.type === 'agent_finished' && finished.output, FINDING);
  } finally {
    await h.close();
  }
});
