import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { Reply, ScriptedRequest } from '../../../support/scriptedServer';

const results = (req: ScriptedRequest) => [...req.toolResults.values()].map((r) => ({ ...r, json: safeJson(r.content) }));
function safeJson(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

test('three background children and one foreground child in one turn; TaskOutput polls, TaskStop stops; a failing child disturbs nobody', async () => {
  const ids: Record<string, string> = {};
  const seen: Record<string, unknown> = {};
  const script = (req: ScriptedRequest): Reply => {
    if (isAgent(req.system, 'quick')) return { delayMs: 30, text: 'quick result' };
    if (isAgent(req.system, 'broken')) return { error: { status: 400, type: 'invalid_request_error', message: 'broken on purpose' } };
    if (isAgent(req.system, 'sleeper')) return { hang: true };
    if (isAgent(req.system, 'fg')) return { delayMs: 60, text: 'foreground result' };
    // The parent.
    if (req.turn === 0) {
      return {
        toolUses: [
          { name: 'Task', input: { subagent_type: 'quick', description: 'quick job', prompt: 'q', run_in_background: true } },
          { name: 'Task', input: { subagent_type: 'broken', description: 'broken job', prompt: 'b', run_in_background: true } },
          { name: 'Task', input: { subagent_type: 'sleeper', description: 'long job', prompt: 's', run_in_background: true } },
          { name: 'Task', input: { subagent_type: 'fg', description: 'foreground job', prompt: 'f' } },
        ],
      };
    }
    if (req.turn === 1) {
      seen.launch = results(req).map((r) => r.json);
      const [quick, broken, sleeper] = results(req).map((r) => r.json!.agentId as string);
      Object.assign(ids, { quick, broken, sleeper });
      return {
        toolUses: [
          { name: 'TaskOutput', input: { agent_id: quick, block: true, timeout_ms: 5000 } },
          { name: 'TaskOutput', input: { agent_id: broken, block: true, timeout_ms: 5000 } },
          { name: 'TaskOutput', input: { agent_id: sleeper, block: false } },
          { name: 'TaskStop', input: { agent_id: sleeper } },
          { name: 'TaskOutput', input: { agent_id: 'not-mine' } },
        ],
      };
    }
    seen.poll = results(req).map((r) => r.json ?? r.content);
    seen.turn2Text = req.lastUserText;
    return { text: 'all accounted for' };
  };
  const h = await harness({ agents: ['parent', 'quick', 'broken', 'sleeper', 'fg'].map((n) => agent(n)), script });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.output, 'all accounted for');

    const launch = seen.launch as Array<Record<string, unknown>>;
    assert.deepEqual(launch.map((r) => r.status), ['async_launched', 'async_launched', 'async_launched', 'completed'], 'results come back in call order');
    for (const r of launch.slice(0, 3)) assert.equal(typeof r.agentId, 'string');
    assert.equal(launch[3]!.output, 'foreground result');

    const [quick, broken, sleeperStatus, stopped, notMine] = seen.poll as Array<Record<string, unknown> | string>;
    assert.deepEqual([(quick as Record<string, unknown>).retrieval, (quick as Record<string, unknown>).status, (quick as Record<string, unknown>).output], ['completed', 'completed', 'quick result']);
    assert.equal((broken as Record<string, unknown>).status, 'failed');
    assert.match(String((broken as Record<string, unknown>).error), /broken on purpose/);
    assert.equal((sleeperStatus as Record<string, unknown>).status, 'running');
    assert.equal((stopped as Record<string, unknown>).status, 'cancelled');
    assert.match(String(notMine), /No agent with id "not-mine" was started by you/);

    const finished = Object.fromEntries(h.events.filter((e) => e.type === 'agent_finished').map((e) => [e.agentId, e.type === 'agent_finished' ? e.status : '']));
    assert.equal(finished[ids.quick!], 'completed');
    assert.equal(finished[ids.broken!], 'failed');
    assert.equal(finished[ids.sleeper!], 'cancelled');
  } finally {
    await h.close();
  }
});

test('with maxConcurrency 2 and 6 spawns, never more than 2 children run at once, and all 6 finish in call order', async () => {
  const h = await harness({
    agents: [agent('parent'), agent('worker')],
    settings: { maxConcurrency: 2 },
    script: (req) => {
      if (isAgent(req.system, 'worker')) return req.turn === 0 ? { delayMs: 40, toolUses: [{ name: 'LS', input: {} }] } : { delayMs: 40, text: `done: ${req.messages[0] && JSON.stringify(req.messages[0].content).match(/part \d/)?.[0]}` };
      if (req.turn === 0) return { toolUses: Array.from({ length: 6 }, (_, i) => ({ name: 'Task', input: { subagent_type: 'worker', description: `part ${i}`, prompt: `part ${i}` } })) };
      return { text: results(req).map((r) => r.json?.output).join(', ') };
    },
  });
  try {
    h.server.resetStats();
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed');
    assert.equal(result.output, 'done: part 0, done: part 1, done: part 2, done: part 3, done: part 4, done: part 5');
    assert.equal(h.server.maxInFlight, 2, 'the server never saw more than 2 requests at once (and saw 2: they do run in parallel)');
    assert.equal(h.events.filter((e) => e.type === 'agent_finished' && e.status === 'completed').length, 7);
  } finally {
    await h.close();
  }
});

test('a background completion is announced to the parent at its next turn', async () => {
  const h = await harness({
    agents: [agent('parent'), agent('bg')],
    script: (req) => {
      if (isAgent(req.system, 'bg')) return { delayMs: 50, text: 'background finding: 7 issues' };
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'bg', description: 'scan', prompt: 'scan', run_in_background: true } }] };
      if (req.turn === 1) return { text: 'I will wait for the scan.' };
      return { text: `final: ${req.lastUserText}` };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed');
    assert.match(result.output ?? '', /^final: <task-notification agentId="\w+" agent="bg" status="completed" id="m\w+">\nbackground finding: 7 issues\n<\/task-notification>/);
  } finally {
    await h.close();
  }
});

test('blocking: true makes the parent wait even for a background spawn; the background cap gives a clear error', async () => {
  const h = await harness({
    agents: [agent('parent'), agent('blocker', { blocking: true }), agent('bg')],
    settings: { maxBackgroundAgents: 1 },
    script: (req) => {
      if (isAgent(req.system, 'blocker')) return { text: 'blocked result' };
      if (isAgent(req.system, 'bg')) return { hang: true };
      if (req.turn === 0) {
        return {
          toolUses: [
            { name: 'Task', input: { subagent_type: 'blocker', description: 'must wait', prompt: 'x', run_in_background: true } },
            { name: 'Task', input: { subagent_type: 'bg', description: 'first', prompt: 'x', run_in_background: true } },
            { name: 'Task', input: { subagent_type: 'bg', description: 'second', prompt: 'x', run_in_background: true } },
          ],
        };
      }
      if (req.turn > 1) return { text: 'stopped' };
      const [blocked, first, second] = results(req);
      const sleeper = first!.json!.agentId as string;
      if (req.turn === 1) return { text: `${blocked!.json!.status}|${first!.json!.status}|${second!.isError}:${second!.content}`, toolUses: [{ name: 'TaskStop', input: { agent_id: sleeper } }] };
      return { text: 'stopped' };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.output, 'stopped');
    const turn1 = h.server.requests.filter((r) => isAgent(r.system, 'parent'))[1]!;
    const [blocked, first, second] = results(turn1);
    assert.equal(blocked!.json!.status, 'completed');
    assert.equal(blocked!.json!.output, 'blocked result');
    assert.equal(first!.json!.status, 'async_launched');
    assert.ok(second!.isError);
    assert.match(second!.content, /Cannot start another background agent: 1 are running, the limit is 1 \(subagents\.maxBackgroundAgents\)/);
  } finally {
    await h.close();
  }
});
