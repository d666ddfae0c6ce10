import { test } from 'node:test';
import assert from 'node:assert/strict';
import { finalResult, type AgentRun } from '../../../../src/core/engine/tree/agentRun';
import { MemoryMailbox } from '../../../../src/core/engine/messaging/mail';
import type { RunEvent } from '../../../../src/protocol/runEvents';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { ScriptedRequest } from '../../../support/scriptedServer';

/** Every text block of every user message of a request, in order. */
function userTexts(req: ScriptedRequest): string[] {
  return req.messages
    .filter((m) => m.role === 'user' && Array.isArray(m.content))
    .flatMap((m) => (m.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text ?? ''));
}

function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const look = () => {
      if (check()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(look, 5);
    };
    look();
  });
}

function ofType<T extends RunEvent['type']>(events: RunEvent[], type: T): Extract<RunEvent, { type: T }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

test('a message sent while the agent streams is delivered at its next turn boundary, after the tool results, never mid-answer', async () => {
  const requests: ScriptedRequest[] = [];
  const h = await harness({
    agents: [agent('worker')],
    script: (req) => {
      requests.push(req);
      if (req.turn === 0) return { text: 'Looking around first.', chunkDelayMs: 40, toolUses: [{ name: 'LS', input: {} }] };
      return { text: `ok: ${userTexts(req).at(-1)}` };
    },
  });
  try {
    const run = await h.engine.start({ agent: 'worker', prompt: 'survey the repo', cwd: h.dir });
    await until(() => h.events.some((e) => e.type === 'text' && e.agentId === run.id), 'the first streamed text');
    const outcome = await h.engine.send(run.id, { text: 'Also count the files.', via: 'runsView' });
    assert.equal(outcome.delivery, 'queued');
    const result = await run.done;
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(requests.length, 2, 'no extra request: the message rode on the next one');
    assert.equal(JSON.stringify(requests[0]!.messages).includes('Also count the files'), false);
    const last = requests[1]!.messages.at(-1)!.content as Array<{ type: string; text?: string }>;
    assert.deepEqual(last.map((b) => b.type), ['tool_result', 'text'], 'the message follows the tool result in the same user turn');
    assert.match(last[1]!.text!, /^<message from="user" id="m[0-9a-f]+">\nAlso count the files\.\n<\/message>$/);
    // The first answer streamed whole, before the message went in.
    assert.equal(ofType(h.events, 'text').filter((e) => e.agentId === run.id).map((e) => e.text).join('').startsWith('Looking around first.'), true);
    const queued = ofType(h.events, 'message_queued');
    const delivered = ofType(h.events, 'message_delivered');
    assert.equal(queued.length, 1);
    assert.deepEqual([queued[0]!.agentId, queued[0]!.from, queued[0]!.via, queued[0]!.text], [run.id, null, 'runsView', 'Also count the files.']);
    assert.equal(delivered[0]!.messageId, queued[0]!.messageId);
  } finally {
    await h.close();
  }
});

test('a message that arrives as the agent ends its turn starts another turn instead of being dropped', async () => {
  const h = await harness({
    agents: [agent('worker')],
    script: (req) => (req.turn === 0 ? { text: 'All done, nothing else to do.', chunkDelayMs: 40 } : { text: `second thoughts: ${userTexts(req).at(-1)}` }),
  });
  try {
    const run = await h.engine.start({ agent: 'worker', prompt: 'finish up', cwd: h.dir });
    await until(() => h.events.some((e) => e.type === 'text' && e.agentId === run.id), 'the streamed answer');
    await h.engine.send(run.id, { text: 'Wait, check the README too.', via: 'cli' });
    const result = await run.done;
    assert.equal(result.status, 'completed');
    assert.match(result.output ?? '', /^second thoughts: <message from="user" id="m\w+">\nWait, check the README too\.\n<\/message>$/);
    assert.equal(await run.next, null, 'the same run took it: nothing had to continue it');
  } finally {
    await h.close();
  }
});

test('a message that arrives after the query loop returned, while the agent is being wrapped up, continues it at once', async () => {
  // Wrapping up an isolated agent commits its worktree: a slow one keeps the window open.
  let settled = 0;
  const worktrees = {
    create: async () => ({ path: h.dir, branch: 'subagents/worker', baseCommit: 'abc', repoRoot: h.dir, cwd: h.dir }),
    finish: async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      settled++;
      return null;
    },
    get: () => undefined,
    list: async () => [],
  };
  const h = await harness({
    agents: [agent('worker')],
    engine: { worktrees: worktrees as never },
    script: (req) => (req.turn === 0 ? { text: 'first answer' } : { text: `continued with: ${userTexts(req).at(-1)}` }),
  });
  try {
    const run = await h.engine.start({ agent: 'worker', prompt: 'go', cwd: h.dir, isolation: 'worktree' });
    await until(() => run.sealed, 'the loop to return');
    assert.equal(run.ended, false, 'caught in the window between the loop and the end');
    const outcome = await h.engine.send(run.id, { text: 'one more thing', via: 'chat' });
    assert.equal(outcome.delivery, 'queued');
    const first = await run.done;
    assert.equal(first.output, 'first answer');
    const { run: last, result } = await finalResult(run);
    assert.notEqual(last, run, 'a continuation took the message');
    assert.equal(last.id, run.id, 'the same agent');
    assert.match(result.output ?? '', /^continued with: <message from="user" id="m\w+">\none more thing\n<\/message>$/);
    assert.equal(settled, 1, 'the first run was wrapped up before the message went to a continuation');
  } finally {
    await h.close();
  }
});

test('a message to an agent that has ended continues it with its whole conversation', async () => {
  const h = await harness({
    agents: [agent('worker')],
    script: (req) => (req.turn === 0 ? { text: 'done the first part' } : { text: `and now: ${userTexts(req).at(-1)} (history: ${req.messages.length} messages)` }),
  });
  try {
    const run = await h.engine.start({ agent: 'worker', prompt: 'part one', cwd: h.dir });
    await run.done;
    const outcome = await h.engine.send(run.id, { text: 'do part two', via: 'cli' });
    assert.equal(outcome.delivery, 'continued');
    const continued = (outcome as { run: AgentRun }).run;
    const result = await continued.done;
    assert.match(result.output ?? '', /^and now: <message from="user" id="m\w+">\ndo part two\n<\/message> \(history: 3 messages\)$/);
    assert.equal(ofType(h.events, 'agent_started').at(-1)!.resumed, true);
  } finally {
    await h.close();
  }
});

test('an unknown agent is a clear error, and an empty message is refused', async () => {
  const h = await harness({ agents: [agent('worker')], script: () => ({ text: 'x' }) });
  try {
    await assert.rejects(h.engine.send('nobody', { text: 'hi', via: 'cli' }), /No agent with id "nobody"/);
    const run = await h.engine.start({ agent: 'worker', prompt: 'go', cwd: h.dir });
    await assert.rejects(h.engine.send(run.id, { text: '   ', via: 'cli' }), /The message is empty/);
    await run.done;
  } finally {
    await h.close();
  }
});

test('a lead redirects its running background worker with SendMessage and gets the redirected result', async () => {
  let workerId = '';
  const seenByWorker: string[][] = [];
  const h = await harness({
    agents: [agent('lead'), agent('worker')],
    script: (req) => {
      if (isAgent(req.system, 'worker')) {
        seenByWorker.push(userTexts(req));
        if (req.turn === 0) return { delayMs: 150, toolUses: [{ name: 'LS', input: {} }] };
        const redirected = userTexts(req).some((t) => t.includes('focus on the tests'));
        return { text: redirected ? 'worker: looked at the tests only' : 'worker: looked at everything' };
      }
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'survey', prompt: 'survey everything', run_in_background: true } }] };
      if (req.turn === 1) {
        workerId = JSON.parse([...req.toolResults.values()][0]!.content).agentId as string;
        return { toolUses: [{ name: 'SendMessage', input: { to: 'worker', message: 'Change of plan: focus on the tests.' } }] };
      }
      if (req.turn === 2) return { text: `sent: ${[...req.toolResults.values()][0]!.content}` };
      return { text: `lead got: ${userTexts(req).at(-1)}` };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'lead', prompt: 'lead the survey', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.match(result.output ?? '', /^lead got: <task-notification agentId="\w+" agent="worker" status="completed" id="m\w+">\nworker: looked at the tests only\n<\/task-notification>$/);
    const message = seenByWorker.flat().find((t) => t.includes('Change of plan'));
    assert.ok(message, 'the worker read the message');
    assert.match(message, new RegExp(`^<message from="lead" agent-id="\\w+" id="m\\w+">\\nChange of plan: focus on the tests\\.\\n</message>$`));
    const queued = ofType(h.events, 'message_queued').find((e) => e.agentId === workerId);
    assert.equal(queued?.from?.agentName, 'lead');
    assert.equal(queued?.via, 'agent');
    const row = ofType(h.events, 'tool_started').find((e) => e.name === 'SendMessage');
    assert.equal(row?.inputSummary, '→ worker: Change of plan: focus on the tests.');
  } finally {
    await h.close();
  }
});

test('SendMessage says whom it could not find, refuses the sender itself, and continues an ended worker that then reports back', async () => {
  const answers: string[] = [];
  const h = await harness({
    agents: [agent('lead'), agent('worker')],
    script: (req) => {
      if (isAgent(req.system, 'worker')) return { text: req.turn === 0 ? 'first pass done' : `second pass: ${userTexts(req).at(-1)!.includes('again') ? 'again done' : '?'}` };
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'pass', prompt: 'first pass' } }] };
      if (req.turn === 1) {
        return {
          toolUses: [
            { name: 'SendMessage', input: { to: 'nobody', message: 'hello' } },
            { name: 'SendMessage', input: { to: 'lead', message: 'note to self' } },
            { name: 'SendMessage', input: { to: 'worker', message: 'do it again' } },
          ],
        };
      }
      if (req.turn === 2) {
        answers.push(...[...req.toolResults.values()].map((r) => r.content));
        return { text: 'waiting for the second pass' };
      }
      return { text: `lead got: ${userTexts(req).at(-1)}` };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'lead', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.match(answers[0]!, /No agent "nobody" in this run\. Its agents: worker \(\w+, ended\)/);
    assert.match(answers[1]!, /You cannot send a message to yourself/);
    assert.equal(JSON.parse(answers[2]!).status, 'continued');
    assert.match(result.output ?? '', /^lead got: <task-notification agentId="\w+" agent="worker" status="completed" id="m\w+">\nsecond pass: again done\n<\/task-notification>$/);
  } finally {
    await h.close();
  }
});

test('SendMessage to a name two agents share, one ended and one at work: the one at work gets it, the ended one is not continued', async () => {
  let releaseSecond!: () => void;
  const secondWorking = new Promise<void>((resolve) => (releaseSecond = resolve));
  const workerSaw = new Map<string, string[][]>();
  const answers: string[] = [];
  const h = await harness({
    agents: [agent('lead'), agent('worker')],
    script: async (req) => {
      if (isAgent(req.system, 'worker')) {
        const which = userTexts(req)[0]!;
        workerSaw.set(which, [...(workerSaw.get(which) ?? []), userTexts(req)]);
        if (which === 'second pass' && req.turn === 0) {
          await secondWorking;
          return { toolUses: [{ name: 'LS', input: {} }] };
        }
        return { text: `${which}: done` };
      }
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'one', prompt: 'first pass' } }] };
      if (req.turn === 1) return { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'two', prompt: 'second pass', run_in_background: true } }] };
      if (req.turn === 2) return { toolUses: [{ name: 'SendMessage', input: { to: 'worker', message: 'only for the one at work' } }] };
      if (req.turn === 3) {
        answers.push([...req.toolResults.values()][0]!.content);
        releaseSecond();
        return { text: 'waiting' };
      }
      return { text: `lead got: ${userTexts(req).at(-1)}` };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'lead', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    const second = ofType(h.events, 'agent_started').find((e) => e.prompt === 'second pass')!;
    const first = ofType(h.events, 'agent_started').find((e) => e.prompt === 'first pass')!;
    const sent = JSON.parse(answers[0]!) as { status: string; to: string; agentId: string };
    assert.deepEqual([sent.status, sent.to, sent.agentId], ['queued', 'worker', second.agentId]);
    assert.ok(workerSaw.get('second pass')!.flat().some((t) => t.includes('only for the one at work')), 'the worker at work read it');
    assert.equal(workerSaw.get('first pass')!.length, 1, 'the ended worker was not continued');
    assert.equal(ofType(h.events, 'agent_started').filter((e) => e.agentId === first.agentId).length, 1);
  } finally {
    await h.close();
  }
});

test('SendMessage to a name two agents at work share is refused, naming both ids', async () => {
  let release!: () => void;
  const working = new Promise<void>((resolve) => (release = resolve));
  let answer = '';
  const h = await harness({
    agents: [agent('lead'), agent('worker')],
    script: async (req) => {
      if (isAgent(req.system, 'worker')) {
        if (req.turn === 0) await working;
        return { text: 'done' };
      }
      if (req.turn === 0) {
        return {
          toolUses: [
            { name: 'Task', input: { subagent_type: 'worker', description: 'a', prompt: 'a', run_in_background: true } },
            { name: 'Task', input: { subagent_type: 'worker', description: 'b', prompt: 'b', run_in_background: true } },
          ],
        };
      }
      if (req.turn === 1) return { toolUses: [{ name: 'SendMessage', input: { to: 'Worker', message: 'which one?' } }] };
      if (req.turn === 2) {
        answer = [...req.toolResults.values()][0]!.content;
        release();
      }
      return { text: 'ok' };
    },
  });
  try {
    await h.engine.run({ agent: 'lead', prompt: 'go', cwd: h.dir });
    const ids = ofType(h.events, 'agent_started').filter((e) => e.agentName === 'worker').map((e) => e.agentId);
    assert.equal(ids.length, 2);
    assert.equal(answer, `Several agents of this run are called "Worker": worker (${ids[0]}), worker (${ids[1]}). Write to one by its agent id.`);
  } finally {
    await h.close();
  }
});

test('a blocking child continued after its parent ended continues that parent with its result at once; a plain child leaves its result waiting', async () => {
  for (const blocking of [true, false]) {
    const h = await harness({
      agents: [agent('lead'), agent('worker', { blocking })],
      script: (req) => {
        if (isAgent(req.system, 'worker')) return { text: req.turn === 0 ? 'first result' : 'second result' };
        if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'w', prompt: 'work' } }] };
        return { text: `lead saw: ${userTexts(req).at(-1)}` };
      },
    });
    try {
      const first = await h.engine.run({ agent: 'lead', prompt: 'lead it', cwd: h.dir });
      assert.equal(first.status, 'completed');
      const worker = ofType(h.events, 'agent_started').find((e) => e.agentName === 'worker')!;
      // The lead has ended; a message continues the worker, which reports back.
      const sent = await h.engine.send(worker.agentId, { text: 'once more', via: 'cli' });
      assert.equal(sent.delivery, 'continued');
      const { result } = await finalResult((sent as { run: AgentRun }).run);
      assert.equal(result.output, 'second result');
      await h.engine.settled();
      const leadStarts = ofType(h.events, 'agent_started').filter((e) => e.agentId === first.agentId);
      if (blocking) {
        assert.equal(leadStarts.length, 2, 'the lead was continued with the result');
        const lead = h.engine.find(first.agentId)!;
        assert.match((await lead.done).output ?? '', new RegExp(`^lead saw: <task-notification agentId="${worker.agentId}" agent="worker" status="completed" id="m\\w+">\\nsecond result\\n</task-notification>$`));
      } else {
        assert.equal(leadStarts.length, 1, 'the lead was not continued');
        const waiting = ofType(h.events, 'message_queued').filter((e) => e.agentId === first.agentId && e.kind === 'result');
        assert.equal(waiting.length, 1, 'the result waits for the lead');
      }
    } finally {
      await h.close();
    }
  }
});

test('stopping one child leaves its sibling and its parent running; the parent is told the user stopped it, with its output so far', async () => {
  const ids: Record<string, string> = {};
  const h = await harness({
    agents: [agent('lead'), agent('slow'), agent('steady')],
    script: (req) => {
      if (isAgent(req.system, 'slow')) return req.turn === 0 ? { text: 'partial findings', toolUses: [{ name: 'LS', input: {} }] } : { hang: true };
      if (isAgent(req.system, 'steady')) return { delayMs: 300, text: 'steady result' };
      if (req.turn === 0) {
        return {
          toolUses: [
            { name: 'Task', input: { subagent_type: 'slow', description: 'slow', prompt: 's', run_in_background: true } },
            { name: 'Task', input: { subagent_type: 'steady', description: 'steady', prompt: 't', run_in_background: true } },
          ],
        };
      }
      if (req.turn === 1) return { text: 'waiting' };
      return { text: `heard: ${userTexts(req).slice(-2).join(' | ')}` };
    },
  });
  try {
    const lead = await h.engine.start({ agent: 'lead', prompt: 'go', cwd: h.dir });
    await until(() => ofType(h.events, 'agent_started').length === 3 && ofType(h.events, 'tool_finished').some((e) => e.name === 'LS'), 'both children at work');
    for (const e of ofType(h.events, 'agent_started')) ids[e.agentName] = e.agentId;
    assert.equal(h.engine.cancel(ids.slow!, 'Stopped by the user.'), true);
    const result = await lead.done;
    assert.equal(result.status, 'completed', result.error ?? '');
    const finished = Object.fromEntries(ofType(h.events, 'agent_finished').map((e) => [e.agentId, e.status]));
    assert.deepEqual([finished[ids.slow!], finished[ids.steady!], finished[ids.lead!]], ['cancelled', 'completed', 'completed']);
    assert.match(result.output ?? '', /status="cancelled"[^>]*>\nStopped by the user\.\nOutput so far:\npartial findings\n/);
    assert.match(result.output ?? '', /steady result/);
  } finally {
    await h.close();
  }
});

test('a background result for a parent that was stopped waits in the mailbox and reaches the parent with its next follow-up', async () => {
  const mailbox = new MemoryMailbox();
  const h = await harness({
    agents: [agent('lead'), agent('bg')],
    engine: { mailbox },
    script: (req) => {
      if (isAgent(req.system, 'bg')) return { delayMs: 100, text: 'bg says hi' };
      if (userTexts(req).some((t) => t.includes('what happened?'))) return { text: `follow-up sees: ${userTexts(req).join(' | ')}` };
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'bg', description: 'bg', prompt: 'b', run_in_background: true } }] };
      return { hang: true };
    },
  });
  try {
    const lead = await h.engine.start({ agent: 'lead', prompt: 'go', cwd: h.dir });
    await until(() => ofType(h.events, 'agent_started').length === 2, 'the child');
    const bgId = ofType(h.events, 'agent_started')[1]!.agentId;
    h.engine.cancel(lead.id, 'Stopped by the user.');
    await lead.done;
    await until(() => h.engine.find(bgId)?.ended === true, 'the child to end');
    await until(() => ofType(h.events, 'message_queued').some((e) => e.agentId === lead.id && e.kind === 'result'), 'the result to be kept for the lead');
    const pending = await mailbox.pending(lead.id);
    assert.equal(pending.length, 1);
    assert.equal(pending[0]!.from?.agentId, bgId);
    assert.equal(await lead.next, null, 'a stopped parent is not woken by a result');

    const follow = await h.engine.sendFollowUp(lead.id, 'what happened?');
    const result = await follow.done;
    assert.match(result.output ?? '', new RegExp(`<task-notification agentId="${bgId}" agent="bg" status="cancelled"`));
    assert.match(result.output ?? '', /what happened\?$/);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(await mailbox.pending(lead.id), [], 'delivered, so gone from the mailbox');
  } finally {
    await h.close();
  }
});

/** A worker with a mailbox of the test's own, recording every request it makes. */
async function workerWithMailbox(firstTurn: { text: string; chunkDelayMs?: number } | null) {
  const mailbox = new MemoryMailbox();
  const requests: ScriptedRequest[] = [];
  const h = await harness({
    agents: [agent('worker')],
    engine: { mailbox },
    script: (req) => {
      requests.push(req);
      return req.turn === 0 && firstTurn ? firstTurn : { text: `turn ${req.turn}` };
    },
  });
  return { mailbox, requests, h };
}

test('a message already in the transcript but still in the mailbox (a crash before it was removed) is not delivered twice', async () => {
  const { mailbox, requests, h } = await workerWithMailbox({ text: 'first', chunkDelayMs: 30 });
  try {
    const run = await h.engine.start({ agent: 'worker', prompt: 'go', cwd: h.dir });
    await until(() => h.events.some((e) => e.type === 'text'), 'the answer');
    await h.engine.send(run.id, { text: 'only once, please', via: 'cli' });
    await run.done;
    const delivered = ofType(h.events, 'message_queued')[0]!;
    // The mailbox entry comes back as if the process had died before removing it.
    await mailbox.post({ id: delivered.messageId, agentId: run.id, runId: run.tree.runId, kind: 'message', text: 'only once, please', from: null, via: 'cli', sentAt: delivered.ts });
    const follow = await h.engine.sendFollowUp(run.id, 'and then?');
    await follow.done;
    const last = JSON.stringify(requests.at(-1)!.messages);
    assert.equal(last.split('only once, please').length - 1, 1, 'the message is in the conversation once');
    assert.deepEqual(await mailbox.pending(run.id), [], 'the stale entry was cleared');
  } finally {
    await h.close();
  }
});

test('an ended agent reached by two messages and the mailbox at once is continued once at a time: each message is read once', async () => {
  const { mailbox, requests, h } = await workerWithMailbox(null);
  try {
    const run = await h.engine.start({ agent: 'worker', prompt: 'go', cwd: h.dir });
    await run.done;
    // Another process's message, as the watcher hands it over, while two sends here find the agent ended too.
    const other = { id: 'm-other', agentId: run.id, runId: run.tree.runId, kind: 'message' as const, text: 'from elsewhere', from: null, via: 'cli', sentAt: Date.now() };
    await mailbox.post(other);
    const sends = [h.engine.send(run.id, { text: 'first here', via: 'cli' }), h.engine.send(run.id, { text: 'second here', via: 'cli' })];
    assert.equal(h.engine.receive(other), true);
    await Promise.all(sends);
    await until(() => !h.engine.busy && ofType(h.events, 'agent_finished').filter((e) => e.agentId === run.id).length === ofType(h.events, 'agent_started').filter((e) => e.agentId === run.id).length, 'every continuation to end');
    const lifecycle = h.events.filter((e) => e.agentId === run.id && (e.type === 'agent_started' || e.type === 'agent_finished')).map((e) => e.type);
    for (let i = 0; i < lifecycle.length; i++) assert.equal(lifecycle[i], i % 2 === 0 ? 'agent_started' : 'agent_finished', `one continuation at a time: ${lifecycle.join(', ')}`);
    const last = JSON.stringify(requests.at(-1)!.messages);
    for (const text of ['from elsewhere', 'first here', 'second here']) assert.equal(last.split(text).length - 1, 1, `"${text}" is in the conversation once`);
    assert.deepEqual(await mailbox.pending(run.id), []);
  } finally {
    await h.close();
  }
});
