import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { Engine } from '../../../../src/core/engine/engine';
import { agent, catalogOf, isAgent, settings } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { Reply, ScriptedRequest } from '../../../support/scriptedServer';

for (const [label, fault] of [
  ['a 429 rate limit', { error: { status: 429, type: 'rate_limit_error', message: 'slow down' } }],
  ['a 529 overload', { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }],
  ['a 500 internal error', { error: { status: 500, type: 'api_error', message: 'boom' } }],
  ['a dropped stream', { drop: { afterEvents: 4 } }],
  ['an in-stream overloaded error', { streamError: { type: 'overloaded_error', message: 'Overloaded', afterEvents: 3 } }],
  ['an in-stream api error', { streamError: { type: 'api_error', message: 'Internal server error', afterEvents: 3 } }],
] as Array<[string, Reply]>) {
  test(`retries after ${label}, then succeeds`, async () => {
    const h = await harness({
      agents: [agent('solo')],
      script: (req) => (req.attempt < 2 ? fault : { text: 'recovered answer' }),
    });
    try {
      const result = await h.engine.run({ agent: 'solo', prompt: 'hi', cwd: h.dir });
      assert.equal(result.status, 'completed', result.error ?? '');
      assert.equal(result.output, 'recovered answer');
      assert.equal(h.server.requests.length, 3, 'two failed attempts, then the good one');
      if ('drop' in fault || 'streamError' in fault) {
        assert.equal(h.events.filter((e) => e.type === 'retry').length, 2, 'mid-stream failures are retried by the engine and reported');
      }
    } finally {
      await h.close();
    }
  });
}

test('a fault that never clears fails the agent with a clear message, after a bounded number of attempts', async () => {
  const h = await harness({ agents: [agent('solo')], script: () => ({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }) });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'hi', cwd: h.dir });
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /overloaded \(529\) even after retrying/);
    assert.equal(h.server.requests.length, 5, '1 + 4 attempts (subagents.network.maxRetries)');
    assert.equal(h.events.filter((e) => e.type === 'retry').length, 4, 'each retry was shown');
  } finally {
    await h.close();
  }
});

test('a failed child is a tool error for its parent; the parent and its other children carry on', async () => {
  const h = await harness({
    agents: [agent('parent'), agent('broken'), agent('fine')],
    script: (req: ScriptedRequest): Reply => {
      if (isAgent(req.system, 'broken')) return { error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long' } };
      if (isAgent(req.system, 'fine')) return { text: 'fine result' };
      if (req.turn === 0) {
        return {
          toolUses: [
            { name: 'Task', input: { subagent_type: 'broken', description: 'will fail', prompt: 'x' } },
            { name: 'Task', input: { subagent_type: 'fine', description: 'will work', prompt: 'y' } },
          ],
        };
      }
      const results = [...req.toolResults.values()];
      return { text: results.map((r) => `${r.isError ? 'ERR' : 'OK'}[${r.content.split('\n')[0]}]`).join(' ') };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed');
    assert.match(result.output ?? '', /^ERR\[Agent "broken" \(\w+\) failed: The API rejected the request \(400\): prompt is too long/);
    assert.match(result.output ?? '', /OK\[\{"status":"completed".*"output":"fine result"/);
  } finally {
    await h.close();
  }
});

test('bad tool input from the model becomes tool errors, never an exception out of the loop', async () => {
  const calls = [
    { name: 'Read', input: { file_path: 123 } },
    { name: 'Write', input: { file_path: 'a.txt' } },
    { name: 'Read', input: { file_path: '/etc/passwd' } },
    { name: 'Read', input: { file_path: '../outside.txt' } },
    { name: 'Edit', input: { file_path: 'missing.txt', old_string: 'a', new_string: 'b' } },
    { name: 'NoSuchTool', input: {} },
    { name: 'Task', input: { prompt: 42 } },
    { name: 'Bash', input: 'not an object' },
  ];
  const h = await harness({
    agents: [agent('solo')],
    script: (req) => (req.turn === 0 ? { toolUses: calls } : { text: [...req.toolResults.values()].map((r) => `${r.isError}:${r.content}`).join('\n') }),
  });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'hi', cwd: h.dir });
    assert.equal(result.status, 'completed');
    const lines = (result.output ?? '').split('\n');
    assert.equal(lines.length, calls.length);
    for (const line of lines) assert.match(line, /^true:/, line);
    assert.match(lines[0]!, /Read: invalid input: file_path: .*string/i);
    assert.match(lines[1]!, /Write: invalid input: content/);
    assert.match(lines[2]!, /outside/);
    assert.match(lines[3]!, /outside/);
    assert.match(lines[4]!, /missing\.txt/);
    assert.match(lines[5]!, /Tool "NoSuchTool" is not available to this agent/);
    assert.match(lines[6]!, /Task: invalid input: .*prompt: .*expected string, received number/);
    assert.match(lines[7]!, /Bash: invalid input/);
  } finally {
    await h.close();
  }
});

test('maxTurns stops a looping agent with a clear error', async () => {
  const h = await harness({ agents: [agent('solo', { maxTurns: 3 })], script: () => ({ text: 'again', toolUses: [{ name: 'LS', input: {} }] }) });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'hi', cwd: h.dir });
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /Stopped after 3 turns \(maxTurns\)/);
    assert.equal(h.server.requests.length, 3);
  } finally {
    await h.close();
  }
});

test('an endpoint that cannot be reached fails promptly with a message naming it', async () => {
  const engine = new Engine({
    client: new Anthropic({ apiKey: 'k', baseURL: 'http://127.0.0.1:9', maxRetries: 1 }),
    catalog: catalogOf(agent('solo')),
    settings: settings(),
    network: { baseDelayMs: 5 },
  });
  const started = Date.now();
  const result = await engine.run({ agent: 'solo', prompt: 'hi', cwd: process.cwd() });
  assert.equal(result.status, 'failed');
  assert.match(result.error ?? '', /^Could not reach the model API at http:\/\/127\.0\.0\.1:9 \(.+\), even after retrying\. Check the network/);
  assert.ok(Date.now() - started < 5000, 'a refused connection is retried with a short backoff, a bounded number of times');
});

test('a tool call whose input is not valid JSON is a tool error the model can correct, not a dead agent', async () => {
  const h = await harness({
    agents: [agent('solo')],
    script: (req) => {
      if (req.turn === 0) return { toolUses: [{ name: 'LS', input: {}, rawInput: '{"path": ".", oops}' }] };
      if (req.turn === 1) {
        const [result] = [...req.toolResults.values()];
        return { text: `${result!.isError}:${result!.content}`, toolUses: [{ name: 'LS', input: { path: '.' } }] };
      }
      return { text: `retried: ${[...req.toolResults.values()][0]!.isError ? 'error' : 'ok'}` };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'hi', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.output, 'retried: ok');
    const secondRequest = h.server.requests[1]!;
    const [toolResult] = [...secondRequest.toolResults.values()];
    assert.equal(toolResult!.isError, true);
    assert.match(toolResult!.content, /^LS: the input was not valid JSON \(.+\); nothing ran\. Send the call again/);
    const assistant = secondRequest.messages[1] as { content: Array<{ type: string; input?: unknown }> };
    assert.deepEqual(assistant.content.find((b) => b.type === 'tool_use')!.input, {}, 'the history sent back holds a well-formed call');
    assert.ok(h.events.some((e) => e.type === 'tool_finished' && !e.ok && /not valid JSON/.test(e.resultSummary)));
  } finally {
    await h.close();
  }
});
