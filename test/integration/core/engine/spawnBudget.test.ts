import { test } from 'node:test';
import assert from 'node:assert/strict';
import { totalTokens, type RunEvent } from '../../../../src/protocol/runEvents';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { ScriptedRequest } from '../../../support/scriptedServer';

/** A worker that never finishes on its own: only a budget (or its parent's) stops it. */
function endlessWorker(req: ScriptedRequest) {
  return { text: `worker step ${req.turn}`, toolUses: [{ name: 'LS', input: {} }] };
}

function finished(events: RunEvent[], agentName: string) {
  const started = events.filter((e) => e.type === 'agent_started' && e.agentName === agentName).map((e) => e.agentId);
  return events.filter((e): e is Extract<RunEvent, { type: 'agent_finished' }> => e.type === 'agent_finished' && started.includes(e.agentId));
}

test('spawn budget: a child stops at its own token or cost budget, the parent gets a tool error naming it and goes on', async () => {
  const h = await harness({
    agents: [agent('parent'), agent('worker'), agent('spender')],
    script: (req) => {
      if (isAgent(req.system, 'worker') || isAgent(req.system, 'spender')) return endlessWorker(req);
      if (req.turn === 0) {
        return {
          toolUses: [
            { name: 'Task', input: { subagent_type: 'worker', description: 'tokens', prompt: 'work', budget: { max_tokens: 5000 } } },
            { name: 'Task', input: { subagent_type: 'spender', description: 'dollars', prompt: 'work', budget: { max_cost_usd: 0.012 } } },
          ],
        };
      }
      const errors = [...req.toolResults.values()].map((r) => `${r.isError}: ${r.content}`);
      return { text: `carried on after: ${errors.join(' | ')}` };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed');
    assert.match(result.output ?? '', /true: Agent "worker" \(\S+\) stopped at its budget: Token budget reached: \d+ of 5000 tokens used\.\nOutput so far:\nworker step \d+/);
    assert.match(result.output ?? '', /true: Agent "spender" \(\S+\) stopped at its budget: Cost budget reached: \$0\.0\d+ of \$0\.012 spent\./);

    const [worker] = finished(h.events, 'worker');
    assert.equal(worker?.status, 'budget_exceeded');
    const workerUsage = h.events.flatMap((e) => (e.type === 'usage' && e.agentId === worker.agentId ? [totalTokens(e.usage)] : []));
    assert.ok(workerUsage.at(-1)! >= 5000 && workerUsage.at(-2)! < 5000, `the worker stops at the first turn that reaches its budget: ${workerUsage.join(', ')}`);
    const [spender] = finished(h.events, 'spender');
    assert.equal(spender?.status, 'budget_exceeded');
    const spenderCost = h.events.flatMap((e) => (e.type === 'usage' && e.agentId === spender.agentId ? [e.usage.costUsd] : []));
    assert.ok(spenderCost.at(-1)! >= 0.012 && spenderCost.at(-2)! < 0.012, `the spender stops at the first turn that reaches its budget: ${spenderCost.join(', ')}`);

    // The model is told about the input, so it can use it.
    const task = (h.server.requests[0]!.tools.find((t) => t.name === 'Task') as { input_schema: { properties: Record<string, { description?: string }> }; description: string } | undefined)!;
    assert.match(task.input_schema.properties.budget?.description ?? '', /counts against your own budget/);
    assert.match(task.description, /budget caps what one agent/);
  } finally {
    await h.close();
  }
});

test("spawn budget: a child's spending counts against its parent's budget; children's usage exhausts it and stops the parent, not the root", async () => {
  const h = await harness({
    agents: [agent('root'), agent('lead'), agent('helper')],
    script: (req) => {
      if (isAgent(req.system, 'helper')) return { text: 'helped' };
      // The lead starts one more helper every turn and never finishes by itself.
      if (isAgent(req.system, 'lead')) return { toolUses: [{ name: 'Task', input: { subagent_type: 'helper', description: `help ${req.turn}`, prompt: 'help' } }] };
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'lead', description: 'lead', prompt: 'lead', budget: { max_tokens: 12_000 } } }] };
      return { text: `root done; lead said: ${[...req.toolResults.values()][0]!.content.split('\n')[0]}` };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'root', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed', 'the root, outside the budget, goes on');
    assert.match(result.output ?? '', /lead said: Agent "lead" \(\S+\) stopped at its budget: Token budget reached: \d+ of 12000 tokens used\./);

    const [lead] = finished(h.events, 'lead');
    assert.equal(lead?.status, 'budget_exceeded');
    const helpers = finished(h.events, 'helper');
    assert.ok(helpers.length >= 2);
    const spentByHelpers = helpers.reduce((sum, e) => sum + totalTokens(e.usage), 0);
    assert.ok(totalTokens(lead.usage) < 12_000, `the lead alone (${totalTokens(lead.usage)} tokens) is under its budget`);
    assert.ok(totalTokens(lead.usage) + spentByHelpers >= 12_000, 'with its helpers it reached it');
  } finally {
    await h.close();
  }
});

test('spawn budget: a child asking for more than its parent has left is clamped to what is left', async () => {
  const h = await harness({
    agents: [agent('parent'), agent('worker')],
    script: (req) => {
      if (isAgent(req.system, 'worker')) return endlessWorker(req);
      if (req.turn === 0) return { text: 'delegating', toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'big ask', prompt: 'work', budget: { max_tokens: 1_000_000 } } }] };
      return { text: 'unreachable' };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir, budget: { maxTokens: 9000 } });
    const parentFirstTurn = h.events.find((e) => e.type === 'usage' && e.agentId === result.agentId);
    const left = 9000 - totalTokens(parentFirstTurn?.type === 'usage' ? parentFirstTurn.usage : { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 });
    assert.ok(left > 0 && left < 9000);
    const [worker] = finished(h.events, 'worker');
    assert.equal(worker?.status, 'budget_exceeded');
    assert.match(worker.error ?? '', new RegExp(`Token budget reached: \\d+ of ${left} tokens used \\(1000000 tokens asked for, clamped to what its parent had left\\)\\.`));
    // What the child spent is all the parent had: the parent's budget is spent with it.
    assert.equal(result.status, 'budget_exceeded');
    assert.match(result.error ?? '', /Token budget reached: \d+ of 9000 tokens used\./);
  } finally {
    await h.close();
  }
});

test('spawn budget: an empty budget is a tool error; no child starts', async () => {
  const h = await harness({
    agents: [agent('parent'), agent('worker')],
    script: (req) => {
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'x', prompt: 'work', budget: {} } }] };
      return { text: [...req.toolResults.values()][0]!.content };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    assert.match(result.output ?? '', /give max_tokens, max_cost_usd or both/);
    assert.equal(finished(h.events, 'worker').length, 0);
  } finally {
    await h.close();
  }
});
