import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { TeamStart } from '../../../../src/core/engine/team/leadBrief';
import type { RunEvent } from '../../../../src/protocol/runEvents';
import { RunStore } from '../../../../src/core/runs/runStore';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import { LEAD, memberMark, teamScript, WORKER } from '../../../support/teamScenario';
import { until } from '../../../support/until';
import { makeSandbox } from '../isolation/helpers';

/**
 * Teams in the engine: named spawns make teammates that go idle rather
 * than end, wake by message, share the run's task list (claims atomic,
 * blocked-by honoured), each work in a worktree of its own in a git
 * repository, and end with their lead.
 */

const team = (): TeamStart => ({
  info: {
    name: 'duo',
    description: 'Two workers',
    filePath: '/p/.subagents/teams/duo.md',
    lead: LEAD,
    isolation: 'worktree',
    members: [
      { name: 'alice', agent: WORKER, prompt: `${memberMark('alice')} You write the first part.` },
      { name: 'bob', agent: WORKER, prompt: `${memberMark('bob')} You write the second part.` },
    ],
  },
  brief: 'Split the goal into two tasks.',
  tasks: [],
});

const agents = () => [agent(LEAD), agent(WORKER, { tools: ['Read', 'Write', 'Edit', 'TaskList', 'TaskGet', 'TaskUpdate', 'SendMessage'] })];

function ofType<T extends RunEvent['type']>(events: RunEvent[], type: T): Extract<RunEvent, { type: T }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

test('a team plays out: a blocked claim is refused, the teammate idles, a message wakes it, each change lands on its own branch', async (t) => {
  const sb = makeSandbox({ 'README.md': '# project\n' });
  t.after(() => sb.cleanup());
  const aliceMayStart = gate();
  const worktrees = sb.manager();
  const h = await harness({ agents: agents(), script: teamScript({ aliceMayStart: aliceMayStart.wait }), engine: { worktrees } });
  t.after(() => h.close());
  const store = new RunStore({ coalesceMs: 0 });
  h.engine.onEvent((e) => store.apply(e));

  const lead = await h.engine.start({ agent: LEAD, prompt: 'Write alpha and beta.', cwd: sb.repo, team: team() });
  // bob goes idle after his refused claim; only then does alice start (her message must be what wakes him).
  const bobIdle = await until('bob to go idle', () => ofType(h.events, 'agent_idle').find((e) => e.idle && store.agent(e.agentId)?.member === 'bob'));
  aliceMayStart.open();
  const result = await lead.done;
  assert.equal(result.status, 'completed', result.error ?? '');
  assert.equal(result.output, 'All tasks are completed: alpha.txt and beta.txt are written.');

  const run = store.get(lead.id)!;
  const members = Object.values(run.agents).filter((a) => a.member);
  assert.deepEqual(members.map((m) => [m.member, m.agentName, m.status]).sort(), [['alice', WORKER, 'completed'], ['bob', WORKER, 'completed']]);
  const bob = members.find((m) => m.member === 'bob')!;
  const alice = members.find((m) => m.member === 'alice')!;

  // The refused claim said by what it was blocked.
  const refusal = run.agents[bob.agentId]!.tools.find((r) => r.name === 'TaskUpdate' && r.status === 'error');
  assert.ok(refusal, 'bob\'s first claim was refused');
  assert.equal(bobIdle.agentId, bob.agentId);
  assert.match(bobIdle.output ?? '', /#2 "Write beta\.txt" is blocked by #1 "Write alpha\.txt" \(pending\)/);
  // alice's message woke him: it was delivered while he was idle, and he went on.
  const wake = ofType(h.events, 'agent_idle').find((e) => !e.idle && e.agentId === bob.agentId);
  assert.ok(wake, 'bob woke');
  const message = run.agents[bob.agentId]!.messages?.find((m) => m.from?.agentName === 'alice');
  assert.ok(message && message.deliveredAt !== null && message.sentAt > bobIdle.ts && message.deliveredAt <= wake.ts + 1000);

  // The task list is complete, each task with its owner.
  assert.deepEqual(run.tasks?.map((task) => [task.id, task.subject, task.status, task.owner, task.blockedBy]), [
    ['1', 'Write alpha.txt', 'completed', 'alice', []],
    ['2', 'Write beta.txt', 'completed', 'bob', ['1']],
  ]);

  // Each change on its own branch; nothing in the user's tree.
  assert.equal(existsSync(path.join(sb.repo, 'alpha.txt')), false);
  assert.equal(existsSync(path.join(sb.repo, 'beta.txt')), false);
  assert.equal(sb.git(['status', '--porcelain']).trim(), '');
  const aliceTree = run.agents[alice.agentId]!.worktree!;
  const bobTree = run.agents[bob.agentId]!.worktree!;
  assert.notEqual(aliceTree.branch, bobTree.branch);
  assert.deepEqual(sb.git(['diff', '--name-only', aliceTree.baseCommit, aliceTree.branch]).trim().split('\n'), ['alpha.txt']);
  assert.deepEqual(sb.git(['diff', '--name-only', bobTree.baseCommit, bobTree.branch]).trim().split('\n'), ['beta.txt']);
  assert.equal(sb.git(['show', `${aliceTree.branch}:alpha.txt`]), 'alpha.txt by the team\n');

  // The lead was told each teammate went idle, and took the reports in one turn once none was at work.
  const leadRequests = h.server.requests.filter((r) => isAgent(r.system, LEAD));
  const reports = leadRequests.map((r) => JSON.stringify(r.messages).match(/<teammate-idle name=\\"(\w+)\\"/g)?.length ?? 0);
  assert.ok(reports.at(-2)! >= 3, `the reports came together: ${reports.join(',')}`);
  assert.equal(leadRequests.length, 5, 'create, spawn, wait, list, done: no turn per idle report');
});

test('an ad-hoc team: any agent that spawns with a name leads it; names are unique; the lead ends an idle teammate with TaskStop', async (t) => {
  const h = await harness({
    agents: [agent('boss'), agent('helper', { tools: ['Read'] })],
    script: (req) => {
      if (isAgent(req.system, 'helper')) return { text: 'helped' };
      const results = [...req.toolResults.values()];
      switch (req.turn) {
        case 0:
          return { toolUses: [{ name: 'Task', input: { name: 'h1', subagent_type: 'helper', description: 'help', prompt: 'help once' } }] };
        case 1:
          assert.match(results[0]!.content, /^\{"status":"teammate_spawned","agentId":"\w+","name":"h1","note":/);
          return { toolUses: [{ name: 'Task', input: { name: 'H1', subagent_type: 'helper', description: 'again', prompt: 'again' } }] };
        case 2:
          assert.match(results[0]!.content, /A teammate called "h1" .* is already on this team/);
          return { text: 'waiting' };
        case 3:
          return { toolUses: [{ name: 'TaskStop', input: { agent_id: 'h1' } }] };
        default:
          return { text: `stopped: ${results[0]?.content}` };
      }
    },
  });
  t.after(() => h.close());
  const lead = await h.engine.start({ agent: 'boss', prompt: 'go', cwd: h.dir });
  const result = await lead.done;
  assert.equal(result.status, 'completed', result.error ?? '');
  assert.match(result.output ?? '', /"status":"completed"/, 'ended as completed: it was idle');
  const started = ofType(h.events, 'agent_started').filter((e) => e.member);
  assert.deepEqual(started.map((e) => [e.member, e.background]), [['h1', true]]);
  // Not a git repository: the teammate shared the lead's folder.
  assert.equal(started[0]!.cwd, h.dir);
  // The lead got the team's tools once it led a team.
  const leadTools = h.server.requests.filter((r) => isAgent(r.system, 'boss')).map((r) => r.toolNames.includes('TaskCreate'));
  assert.deepEqual(leadTools.slice(0, 2), [false, true]);
});

test('the run\'s concurrency covers its team: with maxConcurrency 1, an idle teammate gives its place to the next; its budget stops them all', async (t) => {
  const order: string[] = [];
  const h = await harness({
    agents: [agent('boss'), agent('helper', { tools: ['Read'] })],
    settings: { maxConcurrency: 1 },
    script: (req) => {
      if (isAgent(req.system, 'helper')) {
        const who = JSON.stringify(req.messages[0]).includes('[one]') ? 'one' : 'two';
        order.push(`${who}:${req.turn}`);
        return { text: `${who} rests` };
      }
      if (req.turn === 0) return { toolUses: ['one', 'two'].map((name) => ({ name: 'Task', input: { name, subagent_type: 'helper', description: name, prompt: `[${name}] go` } })) };
      return { text: 'both rested' };
    },
  });
  t.after(() => h.close());
  const lead = await h.engine.start({ agent: 'boss', prompt: 'go', cwd: h.dir });
  const result = await lead.done;
  assert.equal(result.status, 'completed', result.error ?? '');
  // One at a time: the second teammate's first request came after the first went idle (it holds no place idle).
  const idleAt = ofType(h.events, 'agent_idle').filter((e) => e.idle).map((e) => e.ts);
  const startedTwo = h.server.requests.findIndex((r) => JSON.stringify(r.messages[0]).includes('[two]'));
  assert.deepEqual(order, ['one:0', 'two:0']);
  assert.ok(startedTwo > 0 && idleAt.length === 2);
  assert.ok(h.server.maxInFlight <= 2, 'the lead and at most one teammate at a time');

  // A budget the team spends stops every agent of it, teammates at work included.
  const spend = await harness({
    agents: [agent('boss'), agent('helper', { tools: ['Read'] })],
    script: (req) => {
      if (isAgent(req.system, 'helper')) return { text: 'busy', toolUses: [{ name: 'Read', input: { file_path: 'nope' } }] };
      if (req.turn === 0) return { toolUses: ['one', 'two'].map((name) => ({ name: 'Task', input: { name, subagent_type: 'helper', description: name, prompt: `[${name}] go` } })) };
      return { text: 'waiting' };
    },
  });
  t.after(() => spend.close());
  const capped = await spend.engine.start({ agent: 'boss', prompt: 'go', cwd: spend.dir, budget: { maxTokens: 20_000 } });
  const capResult = await capped.done;
  assert.equal(capResult.status, 'budget_exceeded');
  const ends = ofType(spend.events, 'agent_finished').filter((e) => e.agentId !== capped.id);
  assert.deepEqual(ends.map((e) => e.status), ['budget_exceeded', 'budget_exceeded']);
});

test('stopping the run stops every teammate, idle or at work', async (t) => {
  const h = await harness({
    agents: [agent('boss'), agent('helper', { tools: ['Read'] })],
    script: (req) => {
      if (isAgent(req.system, 'helper')) return JSON.stringify(req.messages[0]).includes('[sleepy]') ? { text: 'resting' } : { hang: true };
      if (req.turn === 0) return { toolUses: ['sleepy', 'busy'].map((name) => ({ name: 'Task', input: { name, subagent_type: 'helper', description: name, prompt: `[${name}] go` } })) };
      return { text: 'waiting' };
    },
  });
  t.after(() => h.close());
  const lead = await h.engine.start({ agent: 'boss', prompt: 'go', cwd: h.dir });
  await until('sleepy to rest', () => ofType(h.events, 'agent_idle').some((e) => e.idle));
  assert.equal(h.engine.cancelRun(lead.id, 'Stopped by the user.'), 1);
  const result = await lead.done;
  assert.equal(result.status, 'cancelled');
  const ends = ofType(h.events, 'agent_finished').filter((e) => e.agentId !== lead.id);
  assert.deepEqual(ends.map((e) => e.status).sort(), ['cancelled', 'cancelled']);
  assert.equal(h.engine.running.length, 0);
});
