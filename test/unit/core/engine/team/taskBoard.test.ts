import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskBoard, TaskRefusal, type TaskActor } from '../../../../../src/core/engine/team/taskBoard';
import type { TeamTask } from '../../../../../src/protocol/team';

const alice: TaskActor = { agentId: 'a1', name: 'alice', lead: false };
const bob: TaskActor = { agentId: 'b1', name: 'bob', lead: false };
const lead: TaskActor = { agentId: 'l1', name: 'lead', lead: true };

function board(changes: Array<[string, TeamTask]> = []) {
  let now = 1000;
  return new TaskBoard({ onChange: (change, task) => changes.push([change, structuredClone(task)]), knows: (n) => ['alice', 'bob', 'lead'].includes(n.toLowerCase()), names: () => ['alice', 'bob'], now: () => ++now });
}

test('tasks are numbered in order, pending and unowned; blockers must exist', () => {
  const b = board();
  assert.equal(b.create({ subject: 'one', description: 'first' }, lead).id, '1');
  const two = b.create({ subject: ' two ', description: '', blockedBy: ['#1'] }, lead);
  assert.deepEqual([two.id, two.subject, two.status, two.owner, two.blockedBy, two.createdBy], ['2', 'two', 'pending', null, ['1'], { agentId: 'l1', name: 'lead' }]);
  assert.throws(() => b.create({ subject: 'x', description: '', blockedBy: ['9'] }, lead), /No task #9 in this run's task list\. Its tasks: #1, #2\./);
  assert.throws(() => b.create({ subject: '  ', description: '' }, lead), TaskRefusal);
});

test('a claim of a blocked task is refused, naming the blocker and who has it; once it is completed the claim goes through', () => {
  const b = board();
  b.create({ subject: 'Write alpha', description: '' }, lead);
  b.create({ subject: 'Write beta', description: '', blockedBy: ['1'] }, lead);
  b.update('1', { status: 'in_progress' }, alice);
  assert.throws(() => b.update('2', { status: 'in_progress' }, bob), {
    name: 'TaskRefusal',
    message: '#2 "Write beta" is blocked by #1 "Write alpha" (in progress, owner alice): it can be claimed once that task is completed. Wait for a message, or pick an unblocked task with TaskList.',
  });
  assert.throws(() => b.update('2', { owner: 'bob' }, bob), /is blocked by #1/, 'taking it by owner is a claim too');
  assert.equal(b.get('2')!.owner, null, 'a refused claim changes nothing');
  b.update('1', { status: 'completed' }, alice);
  const { task } = b.update('2', { status: 'in_progress' }, bob);
  assert.deepEqual([task.status, task.owner], ['in_progress', 'bob']);
});

test('a task someone owns cannot be taken or completed by another teammate; the lead may reassign', () => {
  const b = board();
  b.create({ subject: 'one', description: '' }, lead);
  b.update('1', { status: 'in_progress' }, alice);
  assert.throws(() => b.update('1', { status: 'in_progress' }, bob), /#1 "one" is owned by alice \(in progress, owner alice\); you cannot take it/);
  assert.throws(() => b.update('1', { owner: 'bob' }, bob), /is owned by alice/);
  assert.throws(() => b.update('1', { status: 'completed' }, bob), /you cannot complete it/);
  assert.throws(() => b.update('1', { owner: 'carol' }, lead), /No teammate is called "carol"\. The team: alice, bob\./);
  assert.equal(b.update('1', { owner: 'bob' }, lead).task.owner, 'bob');
});

test('two claims in the same instant: exactly one wins', async () => {
  const b = board();
  b.create({ subject: 'one', description: '' }, lead);
  const outcomes = await Promise.allSettled([alice, bob].map(async (who) => b.update('1', { status: 'in_progress' }, who)));
  assert.deepEqual(outcomes.map((o) => o.status).sort(), ['fulfilled', 'rejected']);
});

test('dependencies: no cycles, no self; addBlocks is the other direction; deleting a task unblocks what waited for it', () => {
  const changes: Array<[string, TeamTask]> = [];
  const b = board(changes);
  b.create({ subject: 'one', description: '' }, lead);
  b.create({ subject: 'two', description: '', blockedBy: ['1'] }, lead);
  b.create({ subject: 'three', description: '' }, lead);
  assert.throws(() => b.update('1', { addBlockedBy: ['2'] }, lead), /#1 "one" cannot wait for #2 "two": #2 "two" already waits for it/);
  assert.throws(() => b.update('3', { addBlockedBy: ['3'] }, lead), /cannot block itself/);
  b.update('2', { addBlocks: ['3'] }, lead);
  assert.deepEqual(b.get('3')!.blockedBy, ['2']);
  b.update('1', { status: 'deleted' }, lead);
  assert.deepEqual(b.get('2')!.blockedBy, []);
  assert.equal(b.get('1'), undefined);
  assert.deepEqual(changes.slice(-2).map(([c, t]) => [c, t.id]), [['updated', '2'], ['deleted', '1']]);
  // Restored from the run's record, numbering goes on after the highest id.
  const again = new TaskBoard({ tasks: b.list() });
  assert.equal(again.create({ subject: 'four', description: '' }, lead).id, '4');
});

test('completing sets completedAt; reopening clears it; metadata merges and a null removes a key', () => {
  const b = board();
  b.create({ subject: 'one', description: '', metadata: { a: 1, b: 2 } }, lead);
  const done = b.update('1', { status: 'completed', metadata: { a: null, c: 3 } }, alice).task;
  assert.deepEqual([done.owner, typeof done.completedAt, done.metadata], ['alice', 'number', { b: 2, c: 3 }]);
  assert.equal(b.update('1', { status: 'pending' }, alice).task.completedAt, null);
});
