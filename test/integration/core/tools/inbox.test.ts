// The permission inbox with the real engine, SDK and shell tool against the
// scripted model server: a pending approval is a store event and a `waiting`
// node; nothing is denied while it waits; one surface answers and the others
// see it settled.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunStore } from '../../../../src/core/runs/runStore';
import { ApprovalInbox } from '../../../../src/core/tools/approvalInbox';
import { PermissionGate } from '../../../../src/core/tools/permissions';
import type { RunEventOf } from '../../../../src/protocol/runEvents';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { Reply, ScriptedRequest } from '../../../support/scriptedServer';
import { until } from '../../../support/until';

function setUp(script: (req: ScriptedRequest) => Reply) {
  const inbox = new ApprovalInbox();
  const store = new RunStore({ coalesceMs: 0 });
  return {
    inbox,
    store,
    open: async () => {
      const h = await harness({
        agents: [agent('lead'), agent('worker')],
        script,
        settings: { permissionMode: 'default' },
        engine: { gate: new PermissionGate(inbox.handler) },
      });
      h.engine.onEvent((e) => store.apply(e));
      return h;
    },
  };
}

test('a background agent’s shell command waits as a `waiting` node; answered from one surface, settled for all', async (t) => {
  const { inbox, store, open } = setUp((req) => {
    if (isAgent(req.system, 'worker')) {
      if (req.turn === 0) return { toolUses: [{ name: 'Bash', input: { command: 'echo approved-output' } }] };
      return { text: `worker saw: ${[...req.toolResults.values()][0]?.content ?? ''}` };
    }
    if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'echo', prompt: 'echo', run_in_background: true } }] };
    return { text: req.lastUserText.includes('worker saw: approved-output') ? 'lead done' : 'lead waiting' };
  });
  const h = await open();
  t.after(() => h.close());
  const started = h.engine.start({ agent: 'lead', prompt: 'go', cwd: h.dir });

  const waiting = await until('the worker to wait for approval', () => store.waiting()[0]);
  assert.equal(waiting.agentName, 'worker');
  assert.equal(waiting.status, 'waiting');
  assert.equal(waiting.background, true);
  assert.equal(waiting.approval?.toolName, 'Bash');
  assert.equal(waiting.approval?.kind, 'bash');
  assert.match(waiting.approval?.summary ?? '', /echo approved-output/);
  assert.equal(store.get(waiting.runId)?.status, 'waiting');
  // Nothing is denied while someone could answer.
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(store.agent(waiting.agentId)?.status, 'waiting');
  const [pending] = inbox.pending;
  assert.equal(pending?.request.id, waiting.approval?.approvalId);
  assert.equal(pending?.request.background, true);

  assert.equal(inbox.answer(pending!.request.id, { allow: true, by: 'sidebar' }), true);
  assert.equal(inbox.answer(pending!.request.id, { allow: false, by: 'notification' }), false, 'the second surface is told it is settled');

  const result = await (await started).done;
  assert.equal(result.status, 'completed', result.error ?? '');
  assert.equal(result.output, 'lead done');
  const node = store.agent(waiting.agentId)!;
  assert.equal(node.status, 'completed');
  assert.equal(node.approval, null);
  const settled = h.events.filter((e): e is RunEventOf<'approval_settled'> => e.type === 'approval_settled');
  assert.deepEqual(settled.map((e) => [e.allowed, e.by, e.scope]), [[true, 'sidebar', 'once']]);
  assert.deepEqual(store.waiting(), []);
});

test('a denial reaches the model with its reason, and the tool does not run', async (t) => {
  let toolResult: { content: string; isError: boolean } | undefined;
  const { inbox, open } = setUp((req) => {
    if (req.turn === 0) return { toolUses: [{ name: 'Bash', input: { command: 'touch should-not-exist' } }] };
    toolResult = [...req.toolResults.values()][0];
    return { text: 'understood' };
  });
  const h = await open();
  t.after(() => h.close());
  const run = await h.engine.start({ agent: 'worker', prompt: 'go', cwd: h.dir });
  const pending = await until('the approval', () => inbox.pending[0]);
  inbox.answer(pending.request.id, { allow: false, reason: 'not on my machine', by: 'chat' });
  assert.equal((await run.done).status, 'completed');
  assert.equal(toolResult?.isError, true);
  assert.match(toolResult?.content ?? '', /denied Bash: not on my machine/);
  const { existsSync } = await import('node:fs');
  assert.equal(existsSync(`${h.dir}/should-not-exist`), false, 'the denied command never ran');
});

test('allow once asks again next time; allow for this agent does not ask that agent again, but asks another', async (t) => {
  const { inbox, open } = setUp((req) => {
    if (isAgent(req.system, 'lead')) {
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'w', prompt: 'w' } }] };
      if (req.turn === 1) return { toolUses: [{ name: 'Bash', input: { command: 'echo lead' } }] };
      return { text: 'lead done' };
    }
    if (req.turn < 3) return { toolUses: [{ name: 'Bash', input: { command: `echo call-${req.turn}` } }] };
    return { text: 'worker done' };
  });
  const h = await open();
  t.after(() => h.close());
  const run = await h.engine.start({ agent: 'lead', prompt: 'go', cwd: h.dir });
  const asked: string[] = [];
  const answerNext = async (answer: Parameters<ApprovalInbox['answer']>[1]) => {
    const pending = await until('an approval', () => inbox.pending[0]);
    asked.push(`${pending.request.agentName}: ${pending.request.summary}`);
    inbox.answer(pending.request.id, answer);
  };
  await answerNext({ allow: true, by: 'test' }); // worker call-0, once
  await answerNext({ allow: true, scope: 'agent', by: 'test' }); // worker call-1, for the agent: call-2 runs unasked
  await answerNext({ allow: true, by: 'test' }); // the lead's own call is asked
  assert.equal((await run.done).status, 'completed');
  assert.deepEqual(asked, ['worker: echo call-0', 'worker: echo call-1', 'lead: echo lead']);
  const settled = h.events.filter((e) => e.type === 'approval_settled');
  assert.equal(settled.length, 3, 'call-2 never became a question');
});
