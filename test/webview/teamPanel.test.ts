// A team run's panel in the Runs view, in a simulated DOM: the roster with
// each teammate's state in the status table's words, the task board with
// owners and blockers updated live, the messages in order, its buttons, and
// what stays readable at the default sidebar width (300 px) and at 250 px.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { TEAMMATE_DISPLAY } from '../../src/protocol/statusDisplay';
import type { TeamView } from '../../src/protocol/webview';
import { agentView, mountView, runsMessage, type MountedView } from './support/runsViewDom';

const LONG_NAME = 'integration-test-writer-for-the-payment-service';

function team(over: Partial<TeamView> = {}): TeamView {
  const member = (name: string, agentId: string | null, state: TeamView['roster'][number]['state'], extra: Partial<TeamView['roster'][number]> = {}) => ({
    agentId,
    name,
    agent: 'worker',
    role: 'member' as const,
    state,
    model: 'demo-haiku',
    tokens: 1200,
    costUsd: 0.002,
    worktree: null,
    said: null,
    ...extra,
  });
  return {
    name: 'release-crew',
    roster: [
      { ...member('team-lead', 'a-lead', 'working'), agent: 'general-purpose', role: 'lead', model: 'demo-sonnet' },
      member('alice', 'a-alice', 'ended', { worktree: { branch: 'subagents/alice', state: 'finished', filesChanged: 1, insertions: 3, deletions: 0 }, said: 'alpha.txt written' }),
      member('bob', 'a-bob', 'idle', { said: 'Task #2 is blocked by #1; waiting.' }),
      member(LONG_NAME, 'a-carol', 'waiting'),
      member('dave', null, 'not started'),
    ],
    tasks: [
      { id: '1', subject: 'Write alpha.txt', status: 'completed', owner: 'alice', blockedBy: [] },
      { id: '2', subject: 'Write beta.txt after alpha', status: 'pending', owner: null, blockedBy: ['1'] },
    ],
    messages: [
      { id: 'm1', from: 'team-lead', to: 'alice', text: 'Take task #1.', sentAt: 1_100, delivered: true },
      { id: 'm2', from: 'alice', to: 'bob', text: 'alpha.txt is done: task #2 is yours.', sentAt: 1_200, delivered: false },
    ],
    olderMessages: 0,
    ...over,
  };
}

function teamRun(view: TeamView = team()) {
  const lead = agentView({ id: 'a-lead', name: 'general-purpose', description: 'Ship the release', children: ['a-alice', 'a-bob', 'a-carol'] });
  const alice = agentView({ id: 'a-alice', parentId: 'a-lead', name: 'alice', agentName: 'worker', status: 'completed', endedAt: 5_000 });
  const bob = agentView({ id: 'a-bob', parentId: 'a-lead', name: 'bob', agentName: 'worker', status: 'idle' });
  const carol = agentView({ id: 'a-carol', parentId: 'a-lead', name: LONG_NAME, agentName: 'worker', status: 'waiting' });
  return runsMessage([{ runId: 'r1', agents: [lead, alice, bob, carol], header: { team: view } }]);
}

describe('the team panel in a simulated DOM', () => {
  let view: MountedView | undefined;
  afterEach(async () => {
    await view?.close();
    view = undefined;
  });

  for (const width of [300, 250]) {
    it(`at ${width} px: every teammate's name, state and buttons on one line; tasks and messages wrap rather than cut`, async () => {
      view = await mountView(width);
      await view.send(teamRun());
      const panel = view.byTestId('team-r1')!;
      assert.ok(panel, 'a team run has its panel');
      // Between the lead's row and its tree, so the roster is seen before the agents.
      const leadItem = view.byTestId('run-agent-a-lead')!;
      assert.equal(panel.parentElement, leadItem);
      const line = view.byTestId(`team-member-${LONG_NAME}`)!.querySelector('.team-line')!;
      const name = line.querySelector('.team-name')!;
      assert.equal(name.getAttribute('title'), LONG_NAME, 'a cut name is whole in its hover');
      assert.equal(view.style(name).flexShrink, '1', 'the name gives way');
      assert.equal(view.style(name).textOverflow, 'ellipsis');
      assert.equal(view.style(line.querySelector('.team-state-word')!).flexShrink, '0', 'the state never shrinks');
      assert.equal(view.style(line.querySelector('.team-actions')!).flexShrink, '0', 'nor do the buttons');
      assert.equal(view.style(panel).whiteSpace, 'normal', 'the panel wraps (rows of the tree do not)');
      for (const part of ['.task-subject', '.task-extras']) assert.notEqual(view.style(view.byTestId('team-task-2')!.querySelector(part)!).whiteSpace, 'nowrap');
      assert.equal(view.style(view.byTestId('team-message-m2')!.querySelector('.message-text')!).overflowWrap, 'anywhere');
    });
  }

  it("shows the four states in the status table's words, the lead apart, a declared member not started", async () => {
    view = await mountView(300);
    await view.send(teamRun());
    const stateOf = (name: string) => view!.byTestId(`team-member-${name}`)!.querySelector('.team-state-word')!.textContent;
    assert.equal(stateOf('team-lead'), TEAMMATE_DISPLAY.working.label);
    assert.equal(stateOf('alice'), 'ended');
    assert.equal(stateOf('bob'), 'idle');
    assert.equal(stateOf(LONG_NAME), 'needs approval', 'the same words as a waiting agent row');
    assert.equal(stateOf('dave'), 'not started');
    // An idle teammate is alive: it can be messaged and stopped; an ended one only messaged (which continues it).
    assert.ok(view.byTestId('team-message-a-bob') && view.byTestId('team-stop-a-bob'));
    assert.ok(view.byTestId('team-message-a-alice'));
    assert.equal(view.byTestId('team-stop-a-alice'), null);
    assert.equal(view.byTestId('team-member-dave')!.querySelector('button'), null, 'nothing to act on before it starts');
    // Its row in the tree says idle too, and keeps the stop and message buttons of an agent at work.
    const bobRow = view.byTestId('run-agent-a-bob')!;
    assert.equal(view.byTestId('state-a-bob')!.textContent, 'idle');
    assert.ok(view.byTestId('action-stop-a-bob') && view.byTestId('action-message-a-bob'));
    assert.equal(bobRow.querySelector('.agent-name')!.textContent, 'worker', 'a teammate goes by its team name, with the agent it runs');
    assert.match(view.byTestId('team-member-bob')!.textContent!, /Task #2 is blocked by #1; waiting\./, 'what it said when it went idle');
    assert.match(view.byTestId('team-member-alice')!.textContent!, /1 file changed \(\+3 −0\)/);
    assert.match(view.byTestId('team-toggle-r1')!.textContent!, /4 members · 1 working · 1 idle · tasks 1\/2/);
  });

  it('the task board groups by status with owners and blockers, and follows the run live', async () => {
    view = await mountView(300);
    await view.send(teamRun());
    assert.match(view.byTestId('team-tasks')!.textContent!, /1 of 2 completed/);
    assert.ok(view.byTestId('team-column-completed')!.contains(view.byTestId('team-task-1') as never));
    assert.ok(view.byTestId('team-column-pending')!.contains(view.byTestId('team-task-2') as never));
    assert.match(view.byTestId('team-task-1')!.textContent!, /alice/);
    const blocked = view.byTestId('team-task-2')!.querySelector('.task-extras')!;
    assert.equal(blocked.textContent, 'unowned · waits for #1');
    assert.ok(blocked.classList.contains('blocked'));
    // bob claims and finishes task 2: the same panel moves it, no reload.
    const finished = team({ tasks: [team().tasks[0]!, { id: '2', subject: 'Write beta.txt after alpha', status: 'completed', owner: 'bob', blockedBy: ['1'] }] });
    finished.roster[2] = { ...finished.roster[2]!, state: 'ended' };
    await view.send({ ...teamRun(finished), reset: false });
    assert.equal(view.byTestId('team-column-pending'), null);
    assert.ok(view.byTestId('team-column-completed')!.contains(view.byTestId('team-task-2') as never));
    assert.match(view.byTestId('team-task-2')!.textContent!, /bob/);
    assert.match(view.byTestId('team-tasks')!.textContent!, /2 of 2 completed/);
    assert.equal(view.byTestId('team-member-bob')!.querySelector('.team-state-word')!.textContent, 'ended');
  });

  it('messages between teammates in the order sent, an unread one said so', async () => {
    view = await mountView(300);
    await view.send(teamRun(team({ olderMessages: 3 })));
    const lines = [...view.byTestId('team-messages')!.querySelectorAll('.team-message')].map((m) => m.querySelector('.message-route')!.textContent);
    assert.deepEqual(lines, ['team-lead → alice', 'alice → bob']);
    assert.match(view.byTestId('team-message-m2')!.textContent!, /not read yet/);
    assert.doesNotMatch(view.byTestId('team-message-m1')!.textContent!, /not read yet/);
    assert.match(view.byTestId('team-messages')!.textContent!, /3 earlier messages \(in the transcripts\)/);
  });

  it("its buttons: stop and apply post the teammate's action, ✉ opens the teammate's message box in the tree, Apply All once for several", async () => {
    const two = team();
    two.roster[2] = { ...two.roster[2]!, state: 'ended', worktree: { branch: 'subagents/bob', state: 'finished', filesChanged: 1, insertions: 1, deletions: 0 } };
    view = await mountView(250);
    await view.send(teamRun(two));
    view.byTestId('team-apply-a-alice')!.click();
    view.byTestId('team-stop-a-carol')!.click();
    view.byTestId('team-apply-all-r1')!.click();
    assert.deepEqual(view.posted.slice(-3), [
      { type: 'agentAction', action: 'applyWorktree', agentId: 'a-alice' },
      { type: 'agentAction', action: 'stop', agentId: 'a-carol' },
      { type: 'teamAction', action: 'applyAll', runId: 'r1' },
    ]);
    assert.ok(view.byTestId('team-review-a-alice'));
    view.byTestId('team-message-a-carol')!.click();
    const box = view.byTestId('run-agent-a-carol')!.querySelector('.message-box');
    assert.ok(box, "the message box opens under the teammate's row");
  });

  it('folds and stays folded across updates; a run that is no team has no panel', async () => {
    view = await mountView(300);
    await view.send(teamRun());
    view.byTestId('team-toggle-r1')!.click();
    assert.equal(view.byTestId('team-roster'), null);
    assert.equal(view.byTestId('team-toggle-r1')!.getAttribute('aria-expanded'), 'false');
    await view.send({ ...teamRun(team({ olderMessages: 1 })), reset: false });
    assert.equal(view.byTestId('team-roster'), null, 'an update keeps it folded');
    view.byTestId('team-toggle-r1')!.click();
    assert.ok(view.byTestId('team-roster'));
    await view.send(runsMessage([{ runId: 'r2', agents: [agentView({ id: 'b-root', name: 'solo' })] }]));
    assert.equal(view.byTestId('team-r2'), null);
  });

  it('Delete on an idle teammate stops it, as on any agent at work', async () => {
    view = await mountView(300);
    await view.send(teamRun());
    const bob = view.byTestId('run-agent-a-bob')!;
    bob.focus();
    view.press('Delete');
    assert.deepEqual(view.posted.at(-1), { type: 'agentAction', action: 'stop', agentId: 'a-bob' });
  });
});
