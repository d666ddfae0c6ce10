import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunEvent } from '../../../../src/protocol/runEvents';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { ScriptedRequest } from '../../../support/scriptedServer';
import { group, hookWorld } from './hookFixture';

/**
 * The team events, as Claude Code defines them: TaskCreated and
 * TaskCompleted hooks refuse a task change with exit code 2 (their stderr
 * is the reason the model reads), TeammateIdle hooks keep a teammate
 * working with exit code 2 (their stderr is its next instruction), and
 * `"continue": false` ends the teammate. The hooks get Claude Code's input.
 */

function lastUserText(req: ScriptedRequest): string {
  const last = req.messages.at(-1);
  if (!last || !Array.isArray(last.content)) return '';
  return (last.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text).join('\n');
}

const results = (req: ScriptedRequest) => [...req.toolResults.values()];

test('TaskCreated exit 2 refuses the task with the hook\'s words; TaskCompleted exit 2 refuses the completion until the hook lets it through', async () => {
  const w = await hookWorld();
  const created = await w.script('created.sh', `cat > "${w.out}/created.json"; case "$(cat "${w.out}/created.json")" in *TICKET*) exit 0;; esac; echo 'Subjects need a ticket number.' >&2; exit 2`);
  const completed = await w.script('completed.sh', `cat >> "${w.out}/completed.json"; echo >> "${w.out}/completed.json"; if [ -f "${w.out}/tested" ]; then exit 0; fi; touch "${w.out}/tested"; echo 'The tests have not run yet.' >&2; exit 2`);
  await w.userSettings({ TaskCreated: [group([created])], TaskCompleted: [{ matcher: 'no-such-agent', hooks: [{ type: 'command', command: completed }] }] });
  const h = await harness({
    agents: [agent('solo', { tools: ['Read', 'TaskCreate', 'TaskUpdate'] })],
    script: (req) => {
      switch (req.turn) {
        case 0:
          return { toolUses: [{ name: 'TaskCreate', input: { subject: 'Fix the bug', description: 'the one in parse' } }] };
        case 1:
          return { toolUses: [{ name: 'TaskCreate', input: { subject: 'TICKET-7 Fix the bug', description: 'the one in parse' } }] };
        case 2:
          return { toolUses: [{ name: 'TaskUpdate', input: { taskId: '2', status: 'completed' } }] };
        case 3:
          return { toolUses: [{ name: 'TaskUpdate', input: { taskId: 2, status: 'completed' } }] };
        default:
          return { text: 'done' };
      }
    },
    engine: { trust: w.trust, hooks: w.hooks, log: w.log },
  });
  try {
    const events: RunEvent[] = h.events;
    const result = await h.engine.run({ agent: 'solo', prompt: 'go', cwd: w.project });
    assert.equal(result.status, 'completed', result.error ?? '');
    const [, second, third, fourth, fifth] = h.server.requests;
    assert.deepEqual(results(second!).map((r) => [r.isError, r.content]), [[true, 'Task #1 "Fix the bug" was refused by a hook: Subjects need a ticket number.']]);
    assert.deepEqual(results(third!).map((r) => [r.isError, r.content]), [[false, 'Task #2 created: TICKET-7 Fix the bug.']]);
    assert.deepEqual(results(fourth!).map((r) => [r.isError, r.content]), [[true, 'Completing #2 "TICKET-7 Fix the bug" was refused by a hook: The tests have not run yet.']]);
    assert.equal(results(fifth!)[0]!.isError, false, 'the second try passed the hook');
    // The refused task never reached the list; the matcher of a team event is ignored, as in Claude Code.
    const changes = events.filter((e): e is Extract<RunEvent, { type: 'task_changed' }> => e.type === 'task_changed');
    assert.deepEqual(changes.map((e) => [e.change, e.task.id, e.task.status]), [['created', '2', 'pending'], ['updated', '2', 'completed']]);
    const input = JSON.parse(await w.read('created.json')) as Record<string, unknown>;
    assert.deepEqual(
      { ...input, session_id: typeof input.session_id, transcript_path: typeof input.transcript_path },
      { session_id: 'string', transcript_path: 'string', cwd: w.project, permission_mode: 'bypassPermissions', hook_event_name: 'TaskCreated', task_id: '2', task_subject: 'TICKET-7 Fix the bug', task_description: 'the one in parse', teammate_name: 'solo', team_name: 'solo' },
    );
    const completions = (await w.read('completed.json')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(completions.map((c) => [c.hook_event_name, c.task_id]), [['TaskCompleted', '2'], ['TaskCompleted', '2']]);
  } finally {
    await h.close();
    await w.close();
  }
});

test('TeammateIdle exit 2 keeps the teammate working with the hook\'s words; "continue": false ends it, and its lead hears so', async () => {
  const w = await hookWorld();
  const idle = await w.script('idle.sh', [
    `input=$(cat); echo "$input" >> "${w.out}/idle.json"`,
    `case "$input" in *'"teammate_name":"stopper"'*) echo '{"continue": false, "stopReason": "Enough for today."}'; exit 0;; esac`,
    `if [ -f "${w.out}/nagged" ]; then exit 0; fi; touch "${w.out}/nagged"; echo 'Run the tests before you stop.' >&2; exit 2`,
  ].join('\n'));
  await w.userSettings({ TeammateIdle: [group([idle])] });
  const mateRequests: ScriptedRequest[] = [];
  const h = await harness({
    agents: [agent('boss'), agent('mate', { tools: ['Read'] })],
    script: (req) => {
      if (isAgent(req.system, 'mate')) {
        mateRequests.push(req);
        return { text: req.turn === 0 ? 'first pass done' : 'tests ran, done' };
      }
      if (req.turn === 0) {
        return {
          toolUses: [
            { name: 'Task', input: { name: 'worker', subagent_type: 'mate', description: 'works', prompt: 'work' } },
            { name: 'Task', input: { name: 'stopper', subagent_type: 'mate', description: 'stops', prompt: 'stop' } },
          ],
        };
      }
      if (req.turn === 1) return { text: 'waiting' };
      const seen = JSON.stringify(req.messages);
      return { text: `heard: ${seen.includes('agent=\\"stopper\\" status=\\"completed\\"') && seen.includes('A TeammateIdle hook ended it: Enough for today.')}` };
    },
    engine: { trust: w.trust, hooks: w.hooks, log: w.log },
  });
  try {
    const lead = await h.engine.start({ agent: 'boss', prompt: 'go', cwd: w.project });
    const result = await lead.done;
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.output, 'heard: true', 'the lead was told the hook ended stopper, with its reason');
    const worker = mateRequests.filter((r) => r.messages[0] && JSON.stringify(r.messages[0]).includes('"work"'));
    assert.deepEqual(worker.map((r) => r.turn), [0, 1], 'the hook sent worker back once');
    assert.equal(lastUserText(worker[1]!), 'Run the tests before you stop.');
    const idleEvents = h.events.filter((e): e is Extract<RunEvent, { type: 'agent_idle' }> => e.type === 'agent_idle' && e.idle);
    assert.equal(idleEvents.length, 1, 'only worker went idle; stopper ended instead');
    const finished = h.events.filter((e): e is Extract<RunEvent, { type: 'agent_finished' }> => e.type === 'agent_finished' && e.agentId !== lead.id);
    assert.deepEqual(finished.map((e) => e.status), ['completed', 'completed']);
    const inputs = (await w.read('idle.json')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(inputs.map((i) => [i.hook_event_name, i.teammate_name, i.team_name]).sort(), [
      ['TeammateIdle', 'stopper', 'boss'],
      ['TeammateIdle', 'worker', 'boss'],
      ['TeammateIdle', 'worker', 'boss'],
    ]);
  } finally {
    await h.close();
    await w.close();
  }
});
