import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSpawn, computeToolPool } from '../../../../src/core/engine/toolPool';
import { costOf, requestedModel, resolveModel } from '../../../../src/core/engine/models';
import { withCacheBreakpoints } from '../../../../src/core/engine/requestBuilder';
import { partition } from '../../../../src/core/engine/toolExecutor';
import { retryDecision, retryWait, requestedWait } from '../../../../src/core/engine/retryPolicy';
import { formatWait, IdleTimeoutError, type NetworkPolicy } from '../../../../src/core/engine/network';
import { Semaphore } from '../../../../src/core/engine/limiter';
import { applyEdits } from '../../../../src/core/tools/fileTools';
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { RuntimeTool } from '../../../../src/core/tools/runtimeTool';
import { builtinTool } from '../../../../src/protocol/tools';

const runtime = (['Task', 'TaskOutput', 'TaskStop', 'Bash', 'Read', 'Write', 'Glob'] as const).map((name) => builtinTool(name));

test('tool pool: all tools when no list; spawn tool gone at max depth; plan mode keeps reads', () => {
  const def = { tools: null, disallowedTools: [], spawns: '*' as const };
  assert.deepEqual(computeToolPool({ definition: def, runtime, depth: 0, maxDepth: 3, mode: 'default' }).tools, runtime.map((t) => t.name));
  const deep = computeToolPool({ definition: def, runtime, depth: 3, maxDepth: 3, mode: 'default' });
  assert.deepEqual(deep.tools, ['Bash', 'Read', 'Write', 'Glob']);
  assert.deepEqual(deep.spawns, []);
  assert.deepEqual(computeToolPool({ definition: def, runtime, depth: 1, maxDepth: 3, mode: 'plan' }).tools, ['Read', 'Glob']);
  assert.deepEqual(computeToolPool({ definition: { tools: [], disallowedTools: [], spawns: [] }, runtime, depth: 0, maxDepth: 3, mode: 'default' }).tools, []);
});

test('spawn checks come in their documented order', () => {
  const base = { available: ['a', 'b'], disabled: ['b'], parentName: 'a', parentSpawns: ['b'] as string[] | '*' };
  assert.match(checkSpawn({ ...base, target: 'zz' })!, /^Unknown agent/);
  assert.match(checkSpawn({ ...base, target: 'b' })!, /is disabled/);
  assert.match(checkSpawn({ ...base, disabled: [], target: 'a' })!, /Cannot spawn "a". Allowed: b/);
  assert.match(checkSpawn({ ...base, disabled: [], parentSpawns: '*', target: 'a' })!, /cannot spawn itself/);
  assert.equal(checkSpawn({ ...base, disabled: [], parentSpawns: ['a'], target: 'a' }), null);
});

test('model resolution and cost', () => {
  const aliases = { sonnet: 'claude-sonnet-5-5', haiku: 'claude-haiku-5-5' };
  assert.equal(resolveModel({ requested: ' haiku ', definition: 'sonnet', defaultModel: 'sonnet', aliases }), 'claude-haiku-5-5');
  assert.equal(resolveModel({ definition: 'inherit', parent: 'x-parent', defaultModel: 'sonnet', aliases }), 'x-parent');
  assert.equal(resolveModel({ defaultModel: 'Sonnet', aliases }), 'claude-sonnet-5-5');
  const oneMillion = { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  assert.equal(costOf('claude-sonnet-5-5', oneMillion), 3);
  assert.ok(Math.abs(costOf('claude-sonnet-5-5', { ...oneMillion, inputTokens: 0, cacheReadTokens: 1_000_000 }) - 0.3) < 1e-9);
  assert.equal(costOf('unknown-model', oneMillion), 0);
});

test('cache breakpoints: the last two user messages, always in block form', () => {
  const out = withCacheBreakpoints([
    { role: 'user', content: 'first' },
    { role: 'assistant', content: [{ type: 'text', text: 'a' }] },
    { role: 'user', content: 'second' },
    { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
    { role: 'user', content: [{ type: 'text', text: 'third' }] },
  ]);
  const marks = out.map((m) => (Array.isArray(m.content) ? m.content.some((b) => 'cache_control' in b && b.cache_control) : 'string'));
  assert.deepEqual(marks, [false, false, true, false, true]);
});

test('partition: reads batch together, writes run alone in order', () => {
  const tool = (name: string, parallel: boolean) => [name, { name, parallel } as RuntimeTool] as const;
  const tools = new Map([tool('Read', true), tool('Grep', true), tool('Write', false)]);
  const call = (name: string, id: string) => ({ type: 'tool_use' as const, id, name, input: {} }) as never;
  const batches = partition([call('Read', '1'), call('Grep', '2'), call('Write', '3'), call('Read', '4'), call('Write', '5'), call('Write', '6')], tools);
  assert.deepEqual(batches.map((b) => b.map((c: { id: string }) => c.id)), [['1', '2'], ['3'], ['4'], ['5'], ['6']]);
});

const policy: NetworkPolicy = { idleTimeoutMs: 60_000, turnTimeoutMs: 600_000, maxRetries: 4, maxRetryWaitMs: 60_000, baseDelayMs: 500 };

test('retry classification: the engine retries what the SDK would, and silent or broken streams', () => {
  const reason = (error: unknown, abort?: unknown) => retryDecision(error, abort, policy)?.reason ?? null;
  assert.equal(reason(new APIUserAbortError()), null, 'a stop by the user is not retried');
  assert.equal(reason(new APIUserAbortError(), new IdleTimeoutError('idle')), 'no data for 60 s', 'the idle watchdog aborted the attempt');
  assert.equal(reason(new APIConnectionError({ message: 'Connection error.' })), 'connection failed');
  assert.equal(reason(Object.assign(new APIError(undefined, { error: { type: 'overloaded_error' } }, 'x', undefined), { type: 'overloaded_error' })), 'overloaded (mid-stream)');
  assert.equal(reason(new APIError(529, {}, 'x', new Headers())), 'overloaded (529)');
  assert.equal(reason(new APIError(503, {}, 'x', new Headers())), 'server error (503)');
  assert.equal(reason(new APIError(400, {}, 'x', new Headers())), null);
  assert.equal(reason(new APIError(401, {}, 'x', new Headers())), null);
  assert.equal(reason(new APIError(400, {}, 'x', new Headers({ 'x-should-retry': 'true' }))), 'HTTP 400', 'the server may ask for a retry');
  assert.equal(reason(new APIError(500, {}, 'x', new Headers({ 'x-should-retry': 'false' }))), null, 'or forbid one');
  assert.equal(reason(new TypeError('terminated')), 'connection lost');
  assert.equal(reason(new Error('some bug')), null);
});

test('retry waits: the server\'s wait up to the cap, else exponential backoff with jitter', () => {
  assert.equal(requestedWait(new Headers({ 'retry-after-ms': '250' })), 250);
  assert.equal(requestedWait(new Headers({ 'retry-after': '3' })), 3000);
  assert.equal(requestedWait(new Headers({ 'retry-after': new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString() }), Date.UTC(2030, 0, 1)), 30_000);
  assert.equal(requestedWait(new Headers({ 'retry-after': 'soon' })), undefined);
  assert.equal(requestedWait(new Headers()), undefined);
  assert.deepEqual(retryWait({ reason: 'rate limited (429)', serverDelayMs: 3000 }, 1, policy), { delayMs: 3000, reason: 'rate limited (429)' });
  assert.deepEqual(retryWait({ reason: 'rate limited (429)', serverDelayMs: 3_600_000 }, 1, policy), {
    delayMs: 60_000,
    reason: 'rate limited (429); the API asked to wait 1 h, waiting 60 s (subagents.network.maxRetryWaitSeconds)',
  });
  assert.equal(retryWait({ reason: 'x' }, 1, policy, () => 0).delayMs, 500);
  assert.equal(retryWait({ reason: 'x' }, 3, policy, () => 0).delayMs, 2000);
  assert.equal(retryWait({ reason: 'x' }, 10, policy, () => 0).delayMs, 8000, 'backoff is capped');
  assert.equal(retryWait({ reason: 'x' }, 1, policy, () => 1).delayMs, 375, 'jitter takes up to a quarter off');
  assert.deepEqual([300, 1500, 60_000, 300_000, 3_600_000 * 24].map(formatWait), ['0.3 s', '1.5 s', '60 s', '5 min', '24 h']);
});

test('semaphore: FIFO, bounded, abortable', async () => {
  const s = new Semaphore(1);
  await s.acquire();
  const order: number[] = [];
  const controller = new AbortController();
  const a = s.acquire().then(() => order.push(1));
  const b = s.acquire(controller.signal).then(() => order.push(2), () => order.push(-2));
  const c = s.acquire().then(() => order.push(3));
  controller.abort();
  s.release();
  await a;
  s.release();
  await Promise.all([b, c]);
  assert.deepEqual(order, [-2, 1, 3]);
});

test('MultiEdit applies all edits or none', () => {
  assert.equal(applyEdits('a b c', [{ old_string: 'a', new_string: 'A' }, { old_string: 'c', new_string: 'C' }], 'f'), 'A b C');
  assert.throws(() => applyEdits('a b c', [{ old_string: 'a', new_string: 'A' }, { old_string: 'zz', new_string: '' }], 'f'), /edit 2: old_string not found/);
  assert.throws(() => applyEdits('x x', [{ old_string: 'x', new_string: 'y' }], 'f'), /appears 2 times/);
  assert.equal(applyEdits('x x', [{ old_string: 'x', new_string: 'y', replace_all: true }], 'f'), 'y y');
});

test('a model asked for by name is read as a model field is: dotted ids and display names become API ids', () => {
  const aliases = { sonnet: 'claude-sonnet-5-5', fast: 'claude-haiku-5-5' };
  assert.equal(requestedModel('claude-sonnet-4.5', aliases), 'claude-sonnet-4-5');
  assert.equal(requestedModel('Claude Opus 4.5 (copilot)', aliases), 'claude-opus-4-5');
  assert.equal(requestedModel('sonnet', aliases), 'sonnet');
  assert.equal(requestedModel('fast', aliases), 'fast');
  assert.equal(requestedModel('my-endpoint-model', aliases), 'my-endpoint-model', 'an unknown name is sent as a full id');
  assert.equal(requestedModel('  ', aliases), null);
  assert.equal(resolveModel({ requested: 'claude-haiku-4.5', definition: 'sonnet', defaultModel: 'sonnet', aliases }), 'claude-haiku-4-5');
});

test("another provider's model in an agent file counts as inherit, unless an alias maps it", () => {
  const aliases = { sonnet: 'claude-sonnet-5-5', haiku: 'claude-haiku-5-5' };
  assert.equal(resolveModel({ definition: 'gemini-2.5-flash', parent: 'claude-opus-5-5', defaultModel: 'sonnet', aliases }), 'claude-opus-5-5');
  assert.equal(resolveModel({ definition: 'gpt-5', defaultModel: 'sonnet', aliases }), 'claude-sonnet-5-5');
  assert.equal(resolveModel({ requested: 'o3', definition: 'haiku', defaultModel: 'sonnet', aliases }), 'claude-haiku-5-5');
  assert.equal(resolveModel({ definition: 'gemini-2.5-flash', defaultModel: 'sonnet', aliases: { ...aliases, 'gemini-2.5-flash': 'claude-haiku-5-5' } }), 'claude-haiku-5-5');
  assert.equal(resolveModel({ definition: 'claude-opus-4-8', defaultModel: 'sonnet', aliases }), 'claude-opus-4-8');
});
