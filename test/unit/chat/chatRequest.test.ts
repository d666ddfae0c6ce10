import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchAgentName, parseChatRequest } from '../../../src/vscode/chat/chatRequest';

const names = ['tech-lead', 'test-runner', 'Task', 'task', 'Explorer'];
const previous = { runId: 'r1', agentId: 'a1', agentName: 'tech-lead' };

test('the first word names the agent: exact first, then any case when that is unambiguous', () => {
  assert.equal(matchAgentName('Task', names), 'Task');
  assert.equal(matchAgentName('task', names), 'task');
  assert.equal(matchAgentName('TASK', names), null, 'two agents differ only in case: no guessing');
  assert.equal(matchAgentName('explorer', names), 'Explorer');
  assert.equal(matchAgentName('nobody', names), null);
});

test('<name> <task> runs that agent; punctuation after the name is not part of it', () => {
  assert.deepEqual(parseChatRequest('tech-lead check the tests', undefined, names, null), { kind: 'run', agent: 'tech-lead', task: 'check the tests', named: true });
  assert.deepEqual(parseChatRequest('  Test-Runner:  run them\nall ', undefined, names, null), { kind: 'run', agent: 'test-runner', task: 'run them\nall', named: true });
  assert.deepEqual(parseChatRequest('@explorer, look around', undefined, names, null), { kind: 'run', agent: 'Explorer', task: 'look around', named: true });
});

test('a task without a name goes to general-purpose, or continues the thread’s agent', () => {
  assert.deepEqual(parseChatRequest('fix the build', undefined, names, null), { kind: 'run', agent: 'general-purpose', task: 'fix the build', named: false });
  assert.deepEqual(parseChatRequest('now the docs', undefined, names, previous), { kind: 'followUp', agentId: 'a1', agentName: 'tech-lead', task: 'now the docs' });
  // A name starts a new run even in a thread; /new does without one.
  assert.equal(parseChatRequest('test-runner again', undefined, names, previous).kind, 'run');
  assert.deepEqual(parseChatRequest('fix the build', 'new', names, previous), { kind: 'run', agent: 'general-purpose', task: 'fix the build', named: false });
});

test('commands, and requests that are missing something', () => {
  assert.deepEqual(parseChatRequest('', 'list', names, previous), { kind: 'list' });
  assert.deepEqual(parseChatRequest('anything', 'status', names, null), { kind: 'status' });
  const noTask = parseChatRequest('tech-lead', undefined, names, null);
  assert.equal(noTask.kind, 'help');
  assert.match(noTask.kind === 'help' ? noTask.message : '', /What should \*\*tech-lead\*\* do/);
  assert.equal(parseChatRequest('   ', undefined, names, previous).kind, 'help');
});
