import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApprovalInbox, type InboxChange } from '../../../../src/core/tools/approvalInbox';
import type { ApprovalRequest } from '../../../../src/core/tools/permissions';

function request(id: string, overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return { id, runId: 'run1', agentId: 'a1', agentName: 'worker', toolUseId: `tu_${id}`, toolName: 'Bash', kind: 'bash', summary: 'npm test', background: false, ...overrides };
}

const tick = () => new Promise((r) => setImmediate(r));

test('a request waits for an answer; the first answer settles it, later ones are refused', async () => {
  const inbox = new ApprovalInbox();
  const changes: InboxChange[] = [];
  inbox.onDidChange((c) => changes.push(c));
  let settledDecision: unknown = 'pending';
  void inbox.handler(request('x'), new AbortController().signal).then((d) => (settledDecision = d));
  await tick();
  assert.equal(settledDecision, 'pending', 'nothing answers on its own');
  assert.deepEqual(inbox.pending.map((p) => p.request.id), ['x']);

  assert.equal(inbox.answer('x', { allow: true, by: 'chat' }), true);
  assert.equal(inbox.answer('x', { allow: false, by: 'notification' }), false, 'the second surface sees it settled');
  await tick();
  assert.deepEqual(settledDecision, { allow: true, by: 'chat' });
  assert.deepEqual(inbox.pending, []);
  assert.deepEqual(changes.map((c) => c.type), ['requested', 'settled']);
  assert.equal(inbox.answer('never-asked', { allow: true }), false);
});

test('every asker is shown the question, and learns when another surface answered it', async () => {
  const inbox = new ApprovalInbox();
  const shown: Array<{ id: string; settled: AbortSignal }> = [];
  inbox.addAsker((approval, settled) => shown.push({ id: approval.request.id, settled }));
  const remove = inbox.addAsker(() => {
    throw new Error('a broken surface');
  });
  const decision = inbox.handler(request('q'), new AbortController().signal);
  assert.equal(shown.length, 1, 'a throwing asker does not keep the others from asking');
  assert.equal(shown[0]!.settled.aborted, false);
  inbox.answer('q', { allow: false, reason: 'no', by: 'sidebar' });
  assert.equal(shown[0]!.settled.aborted, true);
  assert.deepEqual(await decision, { allow: false, reason: 'no', by: 'sidebar' });
  remove();
});

test('an agent that stops withdraws its question', async () => {
  const inbox = new ApprovalInbox();
  const stop = new AbortController();
  const decision = inbox.handler(request('s'), stop.signal);
  stop.abort();
  assert.deepEqual(await decision, { allow: false, reason: 'the agent was stopped', by: 'stopped' });
  assert.deepEqual(inbox.pending, []);
  assert.equal(inbox.answer('s', { allow: true }), false);
  // Already stopped when asked: denied at once, never pending.
  assert.equal((await inbox.handler(request('t'), stop.signal)).allow, false);
  assert.deepEqual(inbox.pending, []);
});

test('"allow for this agent" also settles that agent’s other waiting requests of the same kind, and nothing else', async () => {
  const inbox = new ApprovalInbox();
  const signal = new AbortController().signal;
  const a = inbox.handler(request('a', { agentId: 'a1' }), signal);
  const b = inbox.handler(request('b', { agentId: 'a1' }), signal);
  const edit = inbox.handler(request('c', { agentId: 'a1', kind: 'edit', toolName: 'Write' }), signal);
  const other = inbox.handler(request('d', { agentId: 'a2' }), signal);
  inbox.answer('a', { allow: true, scope: 'agent', by: 'chat' });
  assert.equal((await a).allow, true);
  assert.equal((await b).scope, 'agent');
  assert.deepEqual(inbox.pending.map((p) => p.request.id), ['c', 'd']);

  inbox.answer('d', { allow: true, scope: 'run', by: 'sidebar' });
  assert.equal((await other).allow, true);
  assert.deepEqual(inbox.pending.map((p) => p.request.id), ['c'], 'a run-wide allow of shell commands leaves file changes asking');
  inbox.answer('c', { allow: false, by: 'sidebar' });
  assert.equal((await edit).allow, false);
});
