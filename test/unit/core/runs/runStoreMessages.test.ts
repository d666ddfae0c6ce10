import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunStore } from '../../../../src/core/runs/runStore';
import type { RunEvent } from '../../../../src/protocol/runEvents';
import { renderTree } from '../../../../src/cli/render/tree';
import { agentView } from '../../../../src/surfaces/views/viewModel';

const base = { runId: 'r1', ts: 1000 };
const started = (agentId: string, parentId: string | null): RunEvent => ({
  type: 'agent_started',
  ...base,
  agentId,
  parentId,
  parentToolUseId: null,
  agentName: agentId,
  description: `${agentId} work`,
  prompt: 'go',
  model: 'm',
  depth: parentId ? 1 : 0,
  cwd: '/w',
  background: false,
  filePath: null,
  resumed: false,
});
const queued = (agentId: string, messageId: string, from: { agentId: string; agentName: string } | null, text: string, ts = 2000): RunEvent => ({ type: 'message_queued', ...base, ts, agentId, messageId, kind: 'message', from, via: from ? 'agent' : 'runsView', text });

test('messages to an agent are kept on its node (the newest 50, text capped), marked when delivered, and shown in the tree and the Runs view', () => {
  const store = new RunStore({ coalesceMs: 0 });
  store.apply(started('lead', null));
  store.apply(started('worker', 'lead'));
  store.apply(queued('worker', 'm1', null, 'check the tests'));
  store.apply(queued('worker', 'm1', null, 'check the tests'));
  store.apply(queued('worker', 'm2', { agentId: 'lead', agentName: 'lead' }, 'focus on the docs', 3000));
  store.apply({ type: 'message_delivered', ...base, ts: 4000, agentId: 'worker', messageId: 'm1' });
  const node = store.agent('worker')!;
  assert.deepEqual(
    node.messages!.map((m) => [m.messageId, m.from?.agentName ?? null, m.deliveredAt]),
    [
      ['m1', null, 4000],
      ['m2', 'lead', null],
    ],
    'a second queued event of one message is not a second message',
  );

  const lines = renderTree(store.get('r1')!, { now: 5000 });
  assert.ok(lines.includes('   ├─ ✉ message from you: “check the tests”'), lines.join('\n'));
  assert.ok(lines.includes('   └─ ✉ message from lead (lead): “focus on the docs” · waiting for its next turn'), lines.join('\n'));

  assert.deepEqual(agentView(node, undefined).messages, [
    { id: 'm1', kind: 'message', from: null, text: 'check the tests', delivered: true },
    { id: 'm2', kind: 'message', from: 'lead', text: 'focus on the docs', delivered: false },
  ]);

  for (let i = 0; i < 60; i++) store.apply(queued('worker', `x${i}`, null, 'y'.repeat(3000)));
  assert.equal(store.agent('worker')!.messages!.length, 50);
  assert.equal(store.agent('worker')!.messages!.at(-1)!.messageId, 'x59');
  assert.equal(store.agent('worker')!.messages!.at(-1)!.text, `${'y'.repeat(2000)}… [1,000 more characters]`);
});
