import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunStore } from '../../../../src/core/runs/runStore';
import { emptyUsage, type RunEvent } from '../../../../src/protocol/runEvents';
import type { TeamTask } from '../../../../src/protocol/team';
import { TeamChatLog, teamSummary } from '../../../../src/surfaces/chat/teamLog';
import { escapeMarkdown } from '../../../../src/surfaces/chat/chatLog';
import { isTeamRun, taskLines, teamModel } from '../../../../src/surfaces/team/teamModel';
import { teamView } from '../../../../src/surfaces/views/viewModel';

/** A team run as the store folds it: a lead, two teammates, two tasks, a message between them. */
function teamRun(): { store: RunStore; apply: (e: Record<string, unknown>) => void } {
  const store = new RunStore({ coalesceMs: 0 });
  let ts = 1000;
  const apply = (e: Record<string, unknown>) => store.apply({ ts: ts++, runId: 'r', ...e } as RunEvent);
  const started = (agentId: string, parentId: string | null, agentName: string, member?: string) =>
    apply({ type: 'agent_started', agentId, parentId, parentToolUseId: null, agentName, description: 'd', prompt: 'p', model: 'claude-sonnet-5-5', depth: parentId ? 1 : 0, cwd: '/p', background: Boolean(parentId), filePath: null, resumed: false, ...(member ? { member } : {}), ...(parentId ? {} : { team: { name: 'duo', description: '', filePath: '/p/.subagents/teams/duo.md', lead: 'lead', isolation: 'worktree', members: [{ name: 'alice', agent: 'worker' }, { name: 'bob', agent: 'worker' }, { name: 'carol', agent: 'worker' }] } }) });
  started('r', null, 'lead');
  started('a', 'r', 'worker', 'alice');
  started('b', 'r', 'worker', 'bob');
  const task = (id: string, status: TeamTask['status'], owner: string | null, blockedBy: string[] = []): TeamTask => ({ id, subject: `Task ${id}`, description: '', status, owner, blockedBy, createdBy: null, createdAt: 1, updatedAt: 1, completedAt: status === 'completed' ? 2 : null });
  apply({ type: 'task_changed', agentId: 'r', change: 'created', task: task('1', 'pending', null) });
  apply({ type: 'task_changed', agentId: 'r', change: 'created', task: task('2', 'pending', null, ['1']) });
  apply({ type: 'task_changed', agentId: 'a', change: 'updated', task: task('1', 'completed', 'alice') });
  apply({ type: 'agent_idle', agentId: 'b', idle: true, output: 'blocked, waiting' });
  apply({ type: 'message_queued', agentId: 'b', messageId: 'm1', kind: 'message', from: { agentId: 'a', agentName: 'alice' }, via: 'agent', text: '#1 is done' });
  apply({ type: 'usage', agentId: 'a', usage: { ...emptyUsage(), inputTokens: 100, costUsd: 0.5 }, turns: 1 });
  return { store, apply };
}

test('the team model: roster in its four states plus declared members not started, tasks by status with open blockers, messages in order', () => {
  const { store, apply } = teamRun();
  const run = store.get('r')!;
  assert.equal(isTeamRun(run), true);
  const model = teamModel(run)!;
  assert.deepEqual(model.roster.map((r) => [r.name, r.role, r.state]), [
    ['lead', 'lead', 'working'],
    ['alice', 'member', 'working'],
    ['bob', 'member', 'idle'],
    ['carol', 'member', 'not started'],
  ]);
  assert.equal(model.roster.find((r) => r.name === 'bob')!.said, 'blocked, waiting');
  assert.deepEqual(model.tasks.map((t) => [t.id, t.status, t.owner, t.blockedBy]), [['1', 'completed', 'alice', []], ['2', 'pending', null, []]], 'a completed blocker blocks nothing');
  assert.deepEqual(model.columns.map((c) => [c.status, c.tasks.length]), [['pending', 1], ['in_progress', 0], ['completed', 1]]);
  assert.deepEqual(model.messages.map((m) => [m.from, m.to, m.text, m.deliveredAt]), [['alice', 'bob', '#1 is done', null]]);
  assert.deepEqual(taskLines(model), ['Tasks (2, 1 completed):', '  #1 ✓ Task 1 · alice', '  #2 ○ Task 2']);

  // The Runs view's projection of it: what the team panel shows.
  const view = teamView(run)!;
  assert.deepEqual(view.roster.find((r) => r.name === 'alice'), { agentId: 'a', name: 'alice', agent: 'worker', role: 'member', state: 'working', model: 'claude-sonnet-5-5', tokens: 100, costUsd: 0.5, worktree: null, said: null });
  assert.deepEqual(view.messages.map((m) => [m.from, m.to, m.delivered]), [['alice', 'bob', false]]);

  apply({ type: 'agent_finished', agentId: 'b', status: 'completed', output: 'done', error: null, usage: emptyUsage(), turns: 1, durationMs: 1, worktree: null });
  assert.equal(teamModel(store.get('r')!)!.roster.find((r) => r.name === 'bob')!.state, 'ended');
});

test('a run without a team has no team model', () => {
  const store = new RunStore({ coalesceMs: 0 });
  store.apply({ type: 'agent_started', ts: 1, runId: 's', agentId: 's', parentId: null, parentToolUseId: null, agentName: 'solo', description: '', prompt: '', model: 'm', depth: 0, cwd: '/', background: false, filePath: null, resumed: false } as RunEvent);
  assert.equal(teamModel(store.get('s')!), null);
  assert.equal(teamView(store.get('s')!), null);
});

test('the chat tells each task once per change and each teammate once per rest; the summary ends with the task list', () => {
  const { store, apply } = teamRun();
  const log = new TeamChatLog(escapeMarkdown);
  assert.deepEqual(log.update(store.get('r')!), ['▪ new task #1 _Task 1_ (completed · alice)', '▪ new task #2 _Task 2_ (pending)', '◌ **bob** is idle: “blocked, waiting”']);
  assert.deepEqual(log.update(store.get('r')!), [], 'nothing new, nothing told');
  apply({ type: 'agent_idle', agentId: 'b', idle: false });
  apply({ type: 'task_changed', agentId: 'b', change: 'updated', task: { id: '2', subject: 'Task 2', description: '', status: 'in_progress', owner: 'bob', blockedBy: ['1'], createdBy: null, createdAt: 1, updatedAt: 2, completedAt: null } });
  apply({ type: 'agent_idle', agentId: 'b', idle: true, output: 'done' });
  assert.deepEqual(log.update(store.get('r')!), ['▪ task #2 in progress · bob', '◌ **bob** is idle: “done”']);
  // A rest that began and ended between two looks is told all the same, in the tense true by then.
  apply({ type: 'agent_idle', agentId: 'b', idle: false });
  apply({ type: 'agent_idle', agentId: 'b', idle: true, output: 'short rest' });
  apply({ type: 'agent_idle', agentId: 'b', idle: false });
  assert.deepEqual(log.update(store.get('r')!), ['◌ **bob** went idle, and was woken: “short rest”']);
  assert.deepEqual(log.update(store.get('r')!), []);
  assert.equal(teamSummary(store.get('r')!, escapeMarkdown), '**Tasks** (2, 1 completed) — team duo\n\n- #1 ✓ Task 1 · alice\n- #2 ● Task 2 · bob');
});
