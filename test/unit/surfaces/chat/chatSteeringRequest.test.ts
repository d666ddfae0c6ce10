import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseChatRequest, type ThreadRun } from '../../../../src/surfaces/chat/chatRequest';

const names = ['lead', 'worker', 'test-runner', 'explore'];
const agents = [
  { agentId: 'aaa111', agentName: 'lead', active: true },
  { agentId: 'bbb222', agentName: 'worker', active: false },
  { agentId: 'ccc333', agentName: 'worker', active: true },
];
const going: ThreadRun = { runId: 'aaa111', agentId: 'aaa111', agentName: 'lead', agents };
const ended: ThreadRun = { ...going, agents: agents.map((a) => ({ ...a, active: false })) };

test('while the thread’s run is going, a message steers it: to the thread’s agent, or to the agent of the run it names', () => {
  assert.deepEqual(parseChatRequest('also check the docs', undefined, names, going), { kind: 'message', agentId: 'aaa111', agentName: 'lead', text: 'also check the docs' });
  // Of two workers, the one at work.
  assert.deepEqual(parseChatRequest('worker: only the tests', undefined, names, going), { kind: 'message', agentId: 'ccc333', agentName: 'worker', text: 'only the tests' });
  assert.deepEqual(parseChatRequest('@worker only the tests', undefined, names, going), { kind: 'message', agentId: 'ccc333', agentName: 'worker', text: 'only the tests' });
  assert.deepEqual(parseChatRequest('bbb222: wake up', undefined, names, going), { kind: 'message', agentId: 'bbb222', agentName: 'worker', text: 'wake up' });
  // An ordinary word that is also a name, unmarked, is part of the message.
  assert.deepEqual(parseChatRequest('worker harder, please', undefined, names, going), { kind: 'message', agentId: 'aaa111', agentName: 'lead', text: 'worker harder, please' });
  // A catalog agent not in the run, written as a name, still starts a run of its own.
  assert.deepEqual(parseChatRequest('@explore the auth code', undefined, names, going), { kind: 'run', agent: 'explore', task: 'the auth code', named: true });
  assert.deepEqual(parseChatRequest('test-runner run them', undefined, names, going), { kind: 'run', agent: 'test-runner', task: 'run them', named: true });
  // /new starts afresh; once the run has ended a message is a follow-up, as before.
  assert.equal(parseChatRequest('also check the docs', 'new', names, going).kind, 'run');
  assert.deepEqual(parseChatRequest('also check the docs', undefined, names, ended), { kind: 'followUp', agentId: 'aaa111', agentName: 'lead', task: 'also check the docs' });
});

test('/stop names an agent of the thread’s run, or stops all of it; without a run it says where to stop agents', () => {
  assert.deepEqual(parseChatRequest('', 'stop', names, going), { kind: 'stop', runId: 'aaa111', agent: null });
  assert.deepEqual(parseChatRequest('worker', 'stop', names, going), { kind: 'stop', runId: 'aaa111', agent: agents[2] });
  assert.deepEqual(parseChatRequest('@lead', 'stop', names, going), { kind: 'stop', runId: 'aaa111', agent: agents[0] });
  const unknown = parseChatRequest('nobody', 'stop', names, going);
  assert.equal(unknown.kind, 'help');
  assert.match((unknown as { message: string }).message, /No agent "nobody" in this thread's run\. Its agents: `lead` \(aaa111\), `worker` \(bbb222, ended\), `worker` \(ccc333\)/);
  assert.match((parseChatRequest('worker', 'stop', names, null) as { message: string }).message, /this thread has none/);
});
