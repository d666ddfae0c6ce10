import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseChatRequest } from '../../../../src/surfaces/chat/chatRequest';

const names = ['tech-lead', 'test-runner', 'Explorer', 'general-purpose', 'plan', 'explore', 'claude-security:explore'];
const previous = { runId: 'r1', agentId: 'a1', agentName: 'tech-lead' };

test('<name> <task> runs that agent; a mark (@name, name:, name,) is not part of the name', () => {
  assert.deepEqual(parseChatRequest('tech-lead check the tests', undefined, names, null), { kind: 'run', agent: 'tech-lead', task: 'check the tests', named: true });
  assert.deepEqual(parseChatRequest('  test-runner:  run them\nall ', undefined, names, null), { kind: 'run', agent: 'test-runner', task: 'run them\nall', named: true });
  assert.deepEqual(parseChatRequest('@Explorer, look around', undefined, names, null), { kind: 'run', agent: 'Explorer', task: 'look around', named: true });
  assert.deepEqual(parseChatRequest('claude-security:explore: the auth code', undefined, names, null), { kind: 'run', agent: 'claude-security:explore', task: 'the auth code', named: true });
  assert.deepEqual(parseChatRequest('plan the migration to ESM', undefined, names, null), { kind: 'run', agent: 'plan', task: 'the migration to ESM', named: true });
});

test('a name matches only as it is written: a capitalised verb is part of the task', () => {
  assert.deepEqual(parseChatRequest('Plan the migration to ESM', undefined, names, null), { kind: 'run', agent: 'general-purpose', task: 'Plan the migration to ESM', named: false });
  assert.deepEqual(parseChatRequest('explorer: look around', undefined, names, null), { kind: 'run', agent: 'general-purpose', task: 'explorer: look around', named: false });
});

test('in a thread, a name that is an ordinary word continues the thread unless it is marked', () => {
  const followUp = (task: string, mentioned?: string) => ({ kind: 'followUp', agentId: 'a1', agentName: 'tech-lead', task, ...(mentioned ? { mentioned } : {}) });
  assert.deepEqual(parseChatRequest('Plan the migration to ESM', undefined, names, previous), followUp('Plan the migration to ESM'));
  // The reply says how to run explore instead.
  assert.deepEqual(parseChatRequest('explore why login fails', undefined, names, previous), followUp('explore why login fails', 'explore'));
  assert.deepEqual(parseChatRequest('@explore why login fails', undefined, names, previous), { kind: 'run', agent: 'explore', task: 'why login fails', named: true });
  assert.deepEqual(parseChatRequest('plan: the migration', undefined, names, previous), { kind: 'run', agent: 'plan', task: 'the migration', named: true });
  // A name no sentence starts with needs no mark; /new starts afresh with or without one.
  assert.deepEqual(parseChatRequest('test-runner again', undefined, names, previous), { kind: 'run', agent: 'test-runner', task: 'again', named: true });
  assert.deepEqual(parseChatRequest('plan the migration', 'new', names, previous), { kind: 'run', agent: 'plan', task: 'the migration', named: true });
});

test('a task without a name goes to general-purpose, or continues the thread’s agent', () => {
  assert.deepEqual(parseChatRequest('fix the build', undefined, names, null), { kind: 'run', agent: 'general-purpose', task: 'fix the build', named: false });
  assert.deepEqual(parseChatRequest('now the docs', undefined, names, previous), { kind: 'followUp', agentId: 'a1', agentName: 'tech-lead', task: 'now the docs' });
  assert.deepEqual(parseChatRequest('fix the build', 'new', names, previous), { kind: 'run', agent: 'general-purpose', task: 'fix the build', named: false });
});

test('@ with a name no agent has is that name (the handler says it is unknown), not a task for another agent', () => {
  assert.deepEqual(parseChatRequest('@db-migrator fix the schema', undefined, names, previous), { kind: 'run', agent: 'db-migrator', task: 'fix the schema', named: true });
  assert.deepEqual(parseChatRequest('db-migrator fix the schema', undefined, names, null), { kind: 'run', agent: 'general-purpose', task: 'db-migrator fix the schema', named: false });
});

test('commands, and requests that are missing something', () => {
  assert.deepEqual(parseChatRequest('', 'list', names, previous), { kind: 'list' });
  assert.deepEqual(parseChatRequest('anything', 'status', names, null), { kind: 'status' });
  const noTask = parseChatRequest('tech-lead', undefined, names, null);
  assert.equal(noTask.kind, 'help');
  assert.match(noTask.kind === 'help' ? noTask.message : '', /What should \*\*tech-lead\*\* do/);
  assert.equal(parseChatRequest('   ', undefined, names, previous).kind, 'help');
});

test('list, status and help alone are their commands, not tasks', () => {
  assert.deepEqual(parseChatRequest('list', undefined, names, null), { kind: 'list' });
  assert.deepEqual(parseChatRequest(' Status ', undefined, names, previous), { kind: 'status' }, 'in a thread too: not a follow-up');
  const help = parseChatRequest('help', undefined, names, null);
  assert.equal(help.kind, 'help');
  assert.match(help.kind === 'help' ? help.message : '', /`list` shows the agents, `status` the runs/);
  // In a sentence they are words of a task.
  assert.deepEqual(parseChatRequest('list the open TODOs', undefined, names, null), { kind: 'run', agent: 'general-purpose', task: 'list the open TODOs', named: false });
  // An agent of that name is run when marked.
  assert.deepEqual(parseChatRequest('@list everything', undefined, [...names, 'list'], null), { kind: 'run', agent: 'list', task: 'everything', named: true });
});

test('one word that names no agent asks before a run starts; /new runs it', () => {
  assert.deepEqual(parseChatRequest('refactor', undefined, names, null), { kind: 'confirm', agent: 'general-purpose', task: 'refactor' });
  assert.deepEqual(parseChatRequest('refactor', 'new', names, null), { kind: 'run', agent: 'general-purpose', task: 'refactor', named: false });
  assert.deepEqual(parseChatRequest('refactor', undefined, names, previous), { kind: 'followUp', agentId: 'a1', agentName: 'tech-lead', task: 'refactor' }, 'in a thread it continues the agent');
});
