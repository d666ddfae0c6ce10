import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isAgent } from '../../support/agents';
import { runCliProcess, startCliProcess, type CliEvent } from '../../support/cliProcess';
import { startScriptedServer, type ScriptedRequest, type ScriptedServer } from '../../support/scriptedServer';
import { until } from '../../support/until';

/**
 * Talking to agents from another terminal: `subagents send` and
 * `subagents stop` reach a run that another `subagents run` process owns,
 * through the mailbox beside the shared history; a message to an agent that
 * ended continues it; unknown ids are exit code 2 with the known agents.
 */

let server: ScriptedServer;
let project: string;
let home: string;
const children = new Set<ChildProcess>();

before(async () => {
  server = await startScriptedServer();
  project = await mkdtemp(path.join(os.tmpdir(), 'subagents-msg-'));
  home = await mkdtemp(path.join(os.tmpdir(), 'subagents-msg-home-'));
  await mkdir(path.join(project, '.claude/agents'), { recursive: true });
  await writeFile(path.join(project, '.claude/agents/worker.md'), '---\nname: worker\ndescription: Works\ntools: Read, LS\n---\nYou work. [agent:worker]\n');
  await writeFile(path.join(project, '.claude/agents/steady.md'), '---\nname: steady\ndescription: Works steadily\ntools: Read\n---\nYou work steadily. [agent:steady]\n');
  await writeFile(path.join(project, '.claude/agents/lead.md'), '---\nname: lead\ndescription: Leads\n---\nYou lead. [agent:lead]\n');
});

after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await server.close();
  await rm(project, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

function env(): NodeJS.ProcessEnv {
  return { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url, HOME: home, XDG_DATA_HOME: path.join(home, 'data') };
}

const mailboxDir = () => path.join(home, 'data', 'subagents', 'mailbox');

type Event = CliEvent;

/** `subagents run <agent> …` in the background, with its NDJSON events as they come. */
function startRun(agentName: string, prompt: string) {
  const run = startCliProcess(['run', agentName, prompt, '--json', '--cwd', project, '--permission-mode', 'bypassPermissions'], { env: env() });
  children.add(run.child);
  return run;
}

function userTexts(req: ScriptedRequest): string[] {
  return req.messages
    .filter((m) => m.role === 'user' && Array.isArray(m.content))
    .flatMap((m) => (m.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text ?? ''));
}

/** A gate the script waits at, opened by the test. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

test('a message from another terminal reaches a running agent at its next turn, and the agent goes on with it', async () => {
  const firstTurn = gate();
  const seen: string[][] = [];
  server.setScript(async (req) => {
    if (!isAgent(req.system, 'worker')) return { text: 'unexpected' };
    seen.push(userTexts(req));
    if (req.turn === 0) {
      await firstTurn.wait;
      return { text: 'Listing first.', toolUses: [{ name: 'LS', input: {} }] };
    }
    return { text: `went on with: ${userTexts(req).at(-1)}` };
  });
  const run = startRun('worker', 'survey the project');
  const started = await until('the agent to start', () => run.events.find((e) => e.type === 'agent_started'));
  const sent = await runCliProcess(['send', started.agentId, 'Also', 'check', 'the', 'tests.'], { env: env() });
  assert.equal(sent.code, 0, sent.stderr);
  assert.match(sent.stdout, new RegExp(`^Queued for worker \\(${started.agentId}\\), at work in another process \\(pid ${run.child.pid}\\): it reads the message at its next turn\\.\\n$`));
  // The owner takes it from the mailbox promptly (file events), while the agent is still in its first turn.
  const queued = await until('the owner to take the message', () => run.events.find((e) => e.type === 'message_queued'), 5000);
  assert.deepEqual([queued.agentId, queued.from, queued.via, queued.text], [started.agentId, null, 'cli', 'Also check the tests.']);
  firstTurn.open();
  assert.equal(await run.exited, 0, run.output().stderr);
  assert.equal(seen.length, 2, 'no extra turn: the message rode on the next request');
  assert.equal(seen[0]!.some((t) => t.includes('Also check the tests')), false, 'not in the turn that was streaming');
  assert.match(seen[1]!.at(-1)!, /^<message from="user" id="m\w+">\nAlso check the tests\.\n<\/message>$/);
  assert.ok(run.events.some((e) => e.type === 'message_delivered' && e.messageId === queued.messageId));
  const result = JSON.parse(run.output().stdout.trim().split('\n').at(-1)!) as { status: string; output: string };
  assert.equal(result.status, 'completed');
  assert.match(result.output, /^went on with: <message from="user"/);
  assert.deepEqual(await readdir(mailboxDir()), [], 'delivered, so the mailbox is empty');
});

test('an unknown agent id is exit code 2 with the known agents; stop of an agent that ended is exit code 1', async () => {
  server.setScript(() => ({ text: 'done' }));
  const done = await runCliProcess(['run', 'worker', 'a quick one', '--json', '--cwd', project], { env: env() });
  assert.equal(done.code, 0, done.stderr);
  const agentId = (JSON.parse(done.stdout.trim().split('\n').at(-1)!) as { agentId: string }).agentId;

  const unknown = await runCliProcess(['send', 'nosuchagent', 'hello'], { env: env() });
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stdout, '');
  assert.match(unknown.stderr, /^subagents send: no agent "nosuchagent" in the run history\.\nKnown agents/);
  assert.match(unknown.stderr, new RegExp(`\\n  ${agentId}  worker +completed +run ${agentId}`));

  const stopUnknown = await runCliProcess(['stop', 'nosuchagent'], { env: env() });
  assert.equal(stopUnknown.code, 2);
  assert.match(stopUnknown.stderr, /no agent "nosuchagent" in the run history/);

  const stopEnded = await runCliProcess(['stop', agentId], { env: env() });
  assert.equal(stopEnded.code, 1);
  assert.equal(stopEnded.stderr, `subagents stop: worker (${agentId}) is not at work: it ended as completed.\n`);

  const usage = await runCliProcess(['send', agentId], { env: env() });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /missing <message>/);
});

test('ids are data: names of Object\'s own members are unknown ids (exit 2, the known agents named), never a crash', async () => {
  server.setScript(() => ({ text: 'done' }));
  const done = await runCliProcess(['run', 'worker', 'a quick one', '--json', '--cwd', project], { env: env() });
  assert.equal(done.code, 0, done.stderr);
  const agentId = (JSON.parse(done.stdout.trim().split('\n').at(-1)!) as { agentId: string }).agentId;
  for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    for (const [command, ...rest] of [['send', id, 'hi'], ['stop', id], ['resume', id, 'go on']]) {
      const r = await runCliProcess([command!, ...rest], { env: env() });
      assert.equal(r.code, 2, `${command} ${id}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^subagents ${command}: no agent "${id}" in the run history\\.\\nKnown agents`), `${command} ${id}`);
      assert.match(r.stderr, new RegExp(`\\n  ${agentId}  worker `), `${command} ${id} names the known agents`);
    }
    const runs = await runCliProcess(['runs', id], { env: env() });
    assert.notEqual(runs.code, 0, `runs ${id} shows no run: ${runs.stdout}`);
    assert.doesNotMatch(runs.stderr, /TypeError|Cannot read|must be of type/);
  }
});

test('a message to an agent that has ended continues it here, with its whole conversation', async () => {
  server.setScript((req) => (req.turn === 0 ? { text: 'first part done' } : { text: `continued (${req.messages.length} messages): ${userTexts(req).at(-1)}` }));
  const first = await runCliProcess(['run', 'worker', 'do the first part', '--json', '--cwd', project], { env: env() });
  assert.equal(first.code, 0, first.stderr);
  const agentId = (JSON.parse(first.stdout.trim().split('\n').at(-1)!) as { agentId: string }).agentId;
  const sent = await runCliProcess(['send', agentId, 'now the second part', '--json'], { env: env() });
  assert.equal(sent.code, 0, sent.stderr);
  const lines = sent.stdout.trim().split('\n').map((l) => JSON.parse(l) as Event & { output?: string; status?: string });
  assert.equal(lines.find((e) => e.type === 'agent_started')?.resumed, true);
  const result = lines.at(-1)!;
  assert.equal(result.status, 'completed');
  assert.match(result.output!, /^continued \(3 messages\): <message from="user" id="m\w+">\nnow the second part\n<\/message>$/);
});

test('stop from another terminal stops one background child: its sibling and its parent go on, and the parent hears the user stopped it', async () => {
  server.setScript((req) => {
    if (isAgent(req.system, 'worker')) return req.turn === 0 ? { text: 'half of the survey', toolUses: [{ name: 'LS', input: {} }] } : { hang: true };
    if (isAgent(req.system, 'steady')) return { delayMs: 1500, text: 'steady result' };
    if (req.turn === 0) {
      return {
        toolUses: [
          { name: 'Task', input: { subagent_type: 'worker', description: 'survey', prompt: 'survey', run_in_background: true } },
          { name: 'Task', input: { subagent_type: 'steady', description: 'steady work', prompt: 'work', run_in_background: true } },
        ],
      };
    }
    if (req.turn === 1) return { text: 'waiting for both' };
    return { text: `lead heard: ${userTexts(req).slice(-2).join(' | ')}` };
  });
  const run = startRun('lead', 'lead the work');
  const worker = await until('the worker at work', () => run.events.some((e) => e.type === 'tool_finished' && e.name === 'LS') && run.events.find((e) => e.type === 'agent_started' && e.agentName === 'worker'));
  const stopped = await runCliProcess(['stop', worker.agentId], { env: env() });
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.equal(stopped.stdout, `Stopped worker (${worker.agentId}) in another process (pid ${run.child.pid}).\n`);
  assert.equal(await run.exited, 0, run.output().stderr);
  const finished = Object.fromEntries(run.events.filter((e) => e.type === 'agent_finished').map((e) => [e.agentId, e.status]));
  const ids = Object.fromEntries(run.events.filter((e) => e.type === 'agent_started').map((e) => [e.agentName, e.agentId]));
  assert.deepEqual([finished[ids.worker!], finished[ids.steady!], finished[ids.lead!]], ['cancelled', 'completed', 'completed']);
  const result = JSON.parse(run.output().stdout.trim().split('\n').at(-1)!) as { output: string };
  assert.match(result.output, /agent="worker" status="cancelled"[^>]*>\nStopped by the user \(subagents stop\)\.\nOutput so far:\nhalf of the survey/);
  assert.match(result.output, /steady result/);
});

test('stop --all stops the whole run in the other process', async () => {
  server.setScript((req) => (isAgent(req.system, 'worker') ? { hang: true } : req.turn === 0 ? { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'w', prompt: 'w' } }] } : { text: 'x' }));
  const run = startRun('lead', 'lead');
  const worker = await until('the worker', () => run.events.find((e) => e.type === 'agent_started' && e.agentName === 'worker'));
  const stopped = await runCliProcess(['stop', worker.agentId, '--all', '--json'], { env: env() });
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.equal((JSON.parse(stopped.stdout) as { stop: string }).stop, 'taken');
  assert.equal(await run.exited, 1);
  const statuses = run.events.filter((e) => e.type === 'agent_finished').map((e) => e.status);
  assert.deepEqual(statuses, ['cancelled', 'cancelled']);
});

test('a lead redirects its running background worker with SendMessage and gets its result (real CLI)', async () => {
  server.setScript((req) => {
    if (isAgent(req.system, 'worker')) {
      if (req.turn === 0) return { delayMs: 300, toolUses: [{ name: 'LS', input: {} }] };
      return { text: userTexts(req).some((t) => t.includes('only the docs')) ? 'worker: read only the docs' : 'worker: read everything' };
    }
    if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'read', prompt: 'read everything', run_in_background: true } }] };
    if (req.turn === 1) return { toolUses: [{ name: 'SendMessage', input: { to: 'worker', message: 'Read only the docs, please.' } }] };
    if (req.turn === 2) return { text: 'waiting for the worker' };
    return { text: `lead got: ${userTexts(req).at(-1)}` };
  });
  const result = await runCliProcess(['run', 'lead', 'organise the reading', '--json', '--cwd', project], { env: env() });
  assert.equal(result.code, 0, result.stderr);
  const events = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Event & { output?: string });
  const queued = events.find((e) => e.type === 'message_queued');
  assert.deepEqual([queued?.agentName ?? events.find((e) => e.type === 'agent_started' && e.agentId === queued?.agentId)?.agentName, (queued?.from as { agentName: string }).agentName], ['worker', 'lead']);
  assert.match(events.at(-1)!.output!, /^lead got: <task-notification agentId="\w+" agent="worker" status="completed" id="m\w+">\nworker: read only the docs\n<\/task-notification>$/);
});

test('a message the owner took but never delivered survives the owner being killed, and reaches the agent with its next follow-up', async () => {
  server.setScript((req) => {
    if (userTexts(req).some((t) => t.includes('carry on'))) return { text: `after the crash: ${userTexts(req).slice(-2).join(' | ')}` };
    return { hang: true };
  });
  const run = startRun('worker', 'a long job');
  const started = await until('the agent', () => run.events.find((e) => e.type === 'agent_started'));
  await until('the first request', () => server.requests.some((r) => userTexts(r).includes('a long job')));
  const sent = await runCliProcess(['send', started.agentId, 'remember the changelog'], { env: env() });
  assert.equal(sent.code, 0, sent.stderr);
  await until('the owner to take it', () => run.events.find((e) => e.type === 'message_queued'));
  run.child.kill('SIGKILL');
  await run.exited;
  assert.equal((await readdir(mailboxDir())).filter((n) => n.endsWith('.json')).length, 1, 'still in the mailbox: never delivered');
  const tree = await runCliProcess(['runs', started.agentId], { env: env() });
  assert.match(tree.stdout, /└─ ✉ message from you: “remember the changelog” · waiting: read when it is continued\n/, 'reported in the tree');

  const follow = await runCliProcess(['resume', started.agentId, 'carry on', '--json'], { env: env() });
  assert.equal(follow.code, 0, follow.stderr);
  const result = JSON.parse(follow.stdout.trim().split('\n').at(-1)!) as { output: string };
  // The follow-up's message: what never arrived, then the follow-up itself.
  assert.match(result.output, /^after the crash: a long job \| <message from="user" id="m\w+">\nremember the changelog\n<\/message>\n\ncarry on$/);
  await until('the mailbox to empty', async () => (await readdir(mailboxDir())).filter((n) => n.endsWith('.json')).length === 0);
});

test('sends timed around the end of a run: every one exits 0 (queued or continued here), each message is read once, and none is left in the mailbox', async () => {
  const finishing = gate();
  server.setScript(async (req) => {
    if (!isAgent(req.system, 'worker')) return { text: 'unexpected' };
    if (req.turn === 0) {
      await finishing.wait;
      return { text: 'first answer' };
    }
    return { text: `read ${userTexts(req).filter((t) => t.includes('<message')).length} message(s)` };
  });
  const run = startRun('worker', 'answer, then listen');
  const started = await until('the agent to start', () => run.events.find((e) => e.type === 'agent_started'));
  await until('its first request', () => server.requests.some((r) => userTexts(r).includes('answer, then listen')));
  const sends: Array<Promise<{ n: number; code: number | null; stdout: string; stderr: string }>> = [];
  const send = (n: number) => sends.push(runCliProcess(['send', started.agentId, `message ${n}`], { env: env() }).then((r) => ({ n, ...r })));
  // While it works, then as its last answer ends it, as its process settles, as it prints its result, and once it is gone.
  send(1);
  finishing.open();
  await until('the agent to finish', () => run.events.find((e) => e.type === 'agent_finished'));
  for (const n of [2, 3, 4]) send(n);
  await until('the run to print its result', () => run.output().stdout.includes('"type":"result"'));
  for (const n of [5, 6, 7]) send(n);
  assert.equal(await run.exited, 0, run.output().stderr);
  send(8);
  const results = await Promise.all(sends);
  for (const r of results) {
    assert.equal(r.code, 0, `send ${r.n}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /in use/, `send ${r.n}`);
  }
  // Every process is gone: nothing waits in the mailbox, and the agent read each message exactly once.
  assert.deepEqual((await readdir(mailboxDir())).filter((n) => n.endsWith('.json')), []);
  const transcript = await readFile(path.join(home, 'data', 'subagents', 'transcripts', `${started.agentId}.ndjson`), 'utf8');
  for (let n = 1; n <= 8; n++) assert.equal(transcript.split(`\\nmessage ${n}\\n</message>`).length - 1, 1, `message ${n} in the transcript once`);
});
