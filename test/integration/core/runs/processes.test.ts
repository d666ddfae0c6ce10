import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Engine } from '../../../../src/core/engine/engine';
import { RunHistory } from '../../../../src/core/runs/history';
import { RunStore } from '../../../../src/core/runs/runStore';
import { agent, catalogOf, settings } from '../../../support/agents';
import { CLI, runCliProcess } from '../../../support/cliProcess';
import { startScriptedServer, type Script, type ScriptedServer } from '../../../support/scriptedServer';
import { until } from '../../../support/until';

/**
 * The run history with two processes on one history (a VS Code window and the CLI, or
 * two terminals): a run is owned by the process that works on it; nobody
 * else marks it interrupted, continues it twice or writes over it.
 */

let server: ScriptedServer;
let project: string;
let home: string;
const children = new Set<ChildProcess>();

before(async () => {
  server = await startScriptedServer();
  project = await mkdtemp(path.join(os.tmpdir(), 'subagents-procs-'));
  home = await mkdtemp(path.join(os.tmpdir(), 'subagents-procs-home-'));
  await mkdir(path.join(project, '.claude/agents'), { recursive: true });
  await writeFile(path.join(project, '.claude/agents/worker.md'), '---\nname: worker\ndescription: Works\ntools: Read\n---\nYou work. [agent:worker]\n');
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

const runsDir = () => path.join(home, 'data', 'subagents', 'runs');

/** Starts `subagents run worker …` in the background; resolves with the process and its agent id once the agent started. */
async function startRun(prompt: string): Promise<{ child: ChildProcess; agentId: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI, 'run', 'worker', prompt, '--json', '--cwd', project], { env: { PATH: process.env.PATH, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let out = '';
  const agentId = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const started = /"type":"agent_started"/.test(out) ? /"agentId":"(\w+)"/.exec(out) : null;
      if (started) resolve(started[1]!);
    });
    child.on('close', () => reject(new Error(`the run ended before its agent started: ${out}`)));
  });
  return { child, agentId, exited };
}

async function savedRun(runId: string): Promise<{ owner?: { pid: number }; run: { status: string } } | null> {
  try {
    return JSON.parse(await readFile(path.join(runsDir(), `${runId}.json`), 'utf8')) as never;
  } catch {
    return null;
  }
}

function listed(stdout: string): Array<{ runId: string; status: string }> {
  return (JSON.parse(stdout) as { runs: Array<{ runId: string; status: string }> }).runs;
}

test('a run still going in another process is listed as running, never marked interrupted; once that process dies it is', async () => {
  server.setScript(() => ({ hang: true }));
  const a = await startRun('keep going');
  await until('the run on disk', () => savedRun(a.agentId));
  const b = await runCliProcess(['runs', '--json'], { env: env() });
  assert.equal(b.code, 0, b.stderr);
  assert.equal(listed(b.stdout).find((r) => r.runId === a.agentId)?.status, 'running');
  assert.equal((await savedRun(a.agentId))?.run.status, 'running', 'the second process did not save it as interrupted');
  a.child.kill('SIGKILL');
  await a.exited;
  const c = await runCliProcess(['runs', '--json'], { env: env() });
  assert.equal(listed(c.stdout).find((r) => r.runId === a.agentId)?.status, 'interrupted');
});

test('resume of an agent running in another process is refused with a clear message, and sends nothing', async () => {
  server.setScript(() => ({ hang: true }));
  const a = await startRun('long task');
  await until('the first request', async () => server.requests.some((r) => r.lastUserText === 'long task'));
  const b = await runCliProcess(['resume', a.agentId, 'and another thing', '--json'], { env: env() });
  assert.equal(b.code, 1);
  assert.match(b.stderr, new RegExp(`Agent ${a.agentId} is still running in another process \\(pid ${a.child.pid}\\)`));
  assert.equal(server.requests.filter((r) => JSON.stringify(r.messages).includes('and another thing')).length, 0, 'no second copy of the agent was started');
  a.child.kill('SIGKILL');
  await a.exited;
});

test('a run killed right after its first request is in the history and can be continued', async () => {
  let victim: ChildProcess | null = null;
  const script: Script = (req) => {
    if (req.lastUserText === 'billed once') {
      victim?.kill('SIGKILL');
      return { hang: true };
    }
    return { text: `continued with ${req.messages.length} messages` };
  };
  server.setScript(script);
  const child = spawn(process.execPath, [CLI, 'run', 'worker', 'billed once', '--json', '--cwd', project], { env: { PATH: process.env.PATH, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
  victim = child;
  children.add(child);
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  await new Promise((resolve) => child.on('close', resolve));
  const agentId = /"agentId":"(\w+)"/.exec(out)?.[1];
  assert.ok(agentId, `the agent started: ${out}`);
  const runs = await runCliProcess(['runs', '--json'], { env: env() });
  assert.equal(listed(runs.stdout).find((r) => r.runId === agentId)?.status, 'interrupted', 'the billed run was recorded before its request went out');
  const resumed = await runCliProcess(['resume', agentId, 'go on', '--json'], { env: env() });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(JSON.parse(resumed.stdout.trim().split('\n').at(-1)!).status, 'completed');
});

test('two processes continuing the same ended agent at once: one runs, the other is refused', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-procs-mem-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const local = await startScriptedServer((req) => (req.lastUserText === 'first' ? { text: 'done' } : { text: 'follow-up', delayMs: 300 }));
  t.after(() => local.close());
  const open = async () => {
    const history = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50, debounceMs: 5 });
    const store = new RunStore({ coalesceMs: 0 });
    history.attach(store);
    const engine = new Engine({ client: new Anthropic({ apiKey: 'test-key', baseURL: local.url }), catalog: catalogOf(agent('solo')), settings: settings(), archive: history });
    engine.onEvent((e) => store.apply(e));
    return { history, engine };
  };
  const first = await open();
  const result = await first.engine.run({ agent: 'solo', prompt: 'first', cwd: dir });
  await first.history.flush();
  const [p, q] = [await open(), await open()];
  const outcomes = await Promise.allSettled([p, q].map(async (proc) => (await proc.engine.sendFollowUp(result.agentId, 'again')).done));
  const ran = outcomes.filter((o) => o.status === 'fulfilled' && o.value.status === 'completed');
  const refused = outcomes.filter((o) => (o.status === 'rejected' ? String(o.reason) : o.status === 'fulfilled' ? (o.value.error ?? '') : '').match(/still running|in use/));
  assert.equal(ran.length, 1, JSON.stringify(outcomes));
  assert.equal(refused.length, 1, JSON.stringify(outcomes));
  await Promise.all([p.history.flush(), q.history.flush()]);
  const transcript = await first.history.transcripts.read(result.agentId);
  assert.deepEqual(transcript?.map((m) => m.role), ['user', 'assistant', 'user', 'assistant'], 'one follow-up in the transcript, not two interleaved');
});

test('a message continuing an ended agent as another process takes its run: one continues it, the other queues into it, neither fails', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-procs-claim-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const local = await startScriptedServer(() => ({ text: 'ok' }));
  t.after(() => local.close());
  // The agent host (holds no run past its agents) and a terminal's `send --no-host` (holds the run it takes).
  const open = async (holdRuns: boolean) => {
    const history = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50, debounceMs: 5, holdRuns });
    const store = new RunStore({ coalesceMs: 0 });
    history.attach(store);
    const engine = new Engine({ client: new Anthropic({ apiKey: 'test-key', baseURL: local.url }), catalog: catalogOf(agent('solo')), settings: settings(), archive: history });
    engine.onEvent((e) => store.apply(e));
    return { history, engine };
  };
  const host = await open(false);
  const result = await host.engine.run({ agent: 'solo', prompt: 'first', cwd: dir });
  await host.history.flush();
  const terminal = await open(true);
  let mails = 0xc00;
  const mail = (text: string) => ({ id: `m${(mails++).toString(16)}`, agentId: result.agentId, runId: result.runId, kind: 'message' as const, text, from: null, via: 'cli', sentAt: Date.now() });

  // The terminal takes the run just after the host looked at it (and found it free), before the host began.
  const look = host.history.load.bind(host.history);
  let taken: Awaited<ReturnType<RunHistory['queueOrClaim']>> | null = null;
  host.history.load = async (agentId) => {
    const found = await look(agentId);
    taken ??= await terminal.history.queueOrClaim(mail('from the terminal'));
    return found;
  };
  const outcome = await host.engine.send(result.agentId, { text: 'from a window', via: 'runsView' });
  assert.deepEqual(taken, { claimed: true }, 'the terminal took the run');
  assert.equal(outcome.delivery, 'elsewhere', 'the host queued its message for the terminal instead of failing');
  // The terminal continues the agent and, as it lets the run go, finds the host's message waiting for it.
  const continued = await terminal.engine.send(result.agentId, { text: 'from the terminal', via: 'cli' });
  assert.equal(continued.delivery, 'continued');
  if (continued.delivery === 'continued') assert.equal((await continued.run.done).status, 'completed');
  const waiting: string[] = [];
  assert.equal(await terminal.history.release(result.runId, (entries) => (waiting.push(...entries.map((e) => e.text)), false)), true);
  assert.deepEqual(waiting, ['from a window'], 'the host\'s message reached the terminal\'s last look');
  for (const entry of await terminal.history.mailbox.pending(result.agentId)) await terminal.history.mailbox.ack(entry);
  await terminal.history.flush();

  // The other order: the host takes the run first; the terminal, arriving in between, queues for the host.
  let queued: Awaited<ReturnType<RunHistory['queueOrClaim']>> | null = null;
  const claim = host.history.queueOrClaim.bind(host.history);
  host.history.load = look;
  host.history.queueOrClaim = async (entry) => {
    const mine = await claim(entry);
    queued ??= await terminal.history.queueOrClaim(mail('again from the terminal'));
    return mine;
  };
  const second = await host.engine.send(result.agentId, { text: 'again from a window', via: 'runsView' });
  assert.ok(queued && 'queued' in queued, 'the terminal queued for the host that holds the run');
  assert.equal(second.delivery, 'continued');
  if (second.delivery === 'continued') assert.equal((await second.run.done).status, 'completed');
  await host.history.flush();
  const file = JSON.parse(await readFile(path.join(dir, 'runs', `${result.runId}.json`), 'utf8')) as { held?: boolean; owner: { pid: number } };
  assert.equal(file.held, undefined, 'the host let the run go when its agent ended');
  await terminal.history.close();
  await host.history.close();
});

test('two processes deleting runs at once: both deletions are remembered as expired', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-procs-exp-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const runsPath = path.join(dir, 'runs');
  await mkdir(runsPath, { recursive: true });
  const now = Date.now();
  const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
  const node = (id: string) => ({
    agentId: id, runId: id, parentId: null, parentToolUseId: null, agentName: 'solo', description: 'd', prompt: 'p', model: 'm', depth: 0, cwd: dir,
    background: false, filePath: null, status: 'completed', startedAt: now, endedAt: now, text: '', output: 'o', error: null, usage, turns: 1, retries: 0,
    tools: [], foldedTools: 0, children: [], worktree: null, worktreePath: null,
  });
  for (const id of ['run1', 'run2']) {
    const run = { runId: id, rootAgentId: id, status: 'completed', startedAt: now, endedAt: now, usage, agents: { [id]: node(id) }, version: 1 };
    await writeFile(path.join(runsPath, `${id}.json`), JSON.stringify({ version: 1, run }));
  }
  const [h1, h2] = await Promise.all([RunHistory.open({ dir, retentionDays: 30, maxRuns: 50 }), RunHistory.open({ dir, retentionDays: 30, maxRuns: 50 })]);
  const [s1, s2] = [new RunStore({ coalesceMs: 0 }), new RunStore({ coalesceMs: 0 })];
  h1.attach(s1);
  h2.attach(s2);
  s1.remove('run1');
  s2.remove('run2');
  await Promise.all([h1.flush(), h2.flush()]);
  assert.deepEqual(await readdir(runsPath), []);
  const expired = JSON.parse(await readFile(path.join(dir, 'expired.json'), 'utf8')) as string[];
  assert.deepEqual([...expired].sort(), ['run1', 'run2'], 'neither process wrote over the other');
});

test('letting a held run go and queueing a message are one step: the message reaches the last look, or finds the run free', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-hold-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // Two holders of one history, as two processes have it: `owner` ran the run, `sender` sends to it.
  const owner = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50, debounceMs: 5, holdRuns: true });
  const store = new RunStore({ coalesceMs: 0 });
  owner.attach(store);
  const ts = Date.now();
  store.apply({ type: 'agent_started', ts, runId: 'r1', agentId: 'r1', parentId: null, parentToolUseId: null, agentName: 'w', description: 'd', prompt: 'p', model: 'm', depth: 0, cwd: '/', background: false, filePath: null, resumed: false });
  await owner.begin('r1');
  store.apply({ type: 'agent_finished', ts, runId: 'r1', agentId: 'r1', status: 'completed', output: 'done', error: null, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 }, turns: 1, durationMs: 1, worktree: null });
  await owner.flush();
  const sender = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50, holdRuns: true });
  const message = (id: string) => ({ id, agentId: 'r1', runId: 'r1', kind: 'message' as const, text: id, from: null, via: 'cli', sentAt: Date.now() });

  // Its agent has ended, but the owner still holds the run: the message is queued for it, and its last look finds it.
  const m1 = message('m1');
  const first = await sender.queueOrClaim(m1);
  assert.ok('queued' in first, 'queued for the process that holds the run');
  const offered: string[][] = [];
  assert.equal(await owner.release('r1', (entries) => (offered.push(entries.map((e) => e.id)), true)), false, 'it delivers (starts work), so it keeps the run');
  assert.deepEqual(offered, [['m1']]);
  await owner.mailbox.ack(m1);
  // A window's engine queues only while the run is still held (queueIfBusy), in the same way.
  const held = message('m1a');
  assert.equal(await sender.queueIfBusy(held), `another process (pid ${process.pid})`);
  await owner.mailbox.ack(held);
  assert.equal(await owner.release('r1', () => false), true, 'nothing waits: let go');
  assert.equal(await sender.queueIfBusy(message('m1b')), null, 'free now: not queued, the sender continues it');
  assert.deepEqual(await sender.mailbox.pending('r1'), []);

  // Let go: the next sender takes the run itself, and a third one queues to it.
  const second = await sender.queueOrClaim(message('m2'));
  assert.deepEqual(second, { claimed: true });
  assert.deepEqual(await sender.mailbox.pending('r1'), [], 'taken, not queued');
  const m3 = message('m3');
  const third = await owner.queueOrClaim(m3);
  assert.ok('queued' in third, 'queued for the process that took it');

  // Both at once, many times: a message is never both let go of and queued unseen.
  await owner.mailbox.ack(m3);
  await sender.release('r1', () => false);
  for (let i = 0; i < 20; i++) {
    await owner.queueOrClaim(message(`m${(0xa00 + i).toString(16)}`)).then((o) => assert.deepEqual(o, { claimed: true }));
    const seen: string[] = [];
    const race = message(`m${(0xb00 + i).toString(16)}`);
    const [sent, letGo] = await Promise.all([sender.queueOrClaim(race), owner.release('r1', (entries) => (seen.push(...entries.map((e) => e.id)), false))]);
    if ('queued' in sent) assert.deepEqual(seen, [race.id], `round ${i}: queued before the last look, so the look saw it`);
    else assert.deepEqual(seen, [], `round ${i}: the run was let go first, so the sender took it`);
    assert.equal(letGo, true);
    for (const entry of await owner.mailbox.pending('r1')) await owner.mailbox.ack(entry);
    await sender.release('r1', () => false);
  }
  await sender.close();
  await owner.close();
});

test('messages another process sends in a burst reach the agent oldest first, in the order they were sent', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-order-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  let release!: () => void;
  const working = new Promise<void>((resolve) => (release = resolve));
  const local = await startScriptedServer(async (req) => {
    if (req.turn === 0) {
      await working;
      return { text: 'looked', toolUses: [{ name: 'Read', input: { file_path: 'nothing.txt' } }] };
    }
    return { text: 'done' };
  });
  t.after(() => local.close());
  const history = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50, debounceMs: 5 });
  const store = new RunStore({ coalesceMs: 0 });
  history.attach(store);
  const engine = new Engine({ client: new Anthropic({ apiKey: 'k', baseURL: local.url }), catalog: catalogOf(agent('solo')), settings: settings(), archive: history, mailbox: history.mailbox });
  const queued: string[] = [];
  engine.onEvent((e) => {
    store.apply(e);
    if (e.type === 'message_queued') queued.push(e.text);
  });
  const unwatch = history.mailbox.watch((entry) => engine.receive(entry));
  t.after(unwatch);
  const run = await engine.start({ agent: 'solo', prompt: 'work', cwd: dir });
  await until('the first request', () => local.requests.length === 1);
  // Another process sends six messages as fast as it can: several land within one millisecond.
  const mail = path.resolve(import.meta.dirname, '../../../../src/core/engine/messaging/mail.ts');
  const mailbox = path.resolve(import.meta.dirname, '../../../../src/core/runs/mailbox.ts');
  const script = `
    import { mailTime, newMailId } from ${JSON.stringify(mail)};
    import { Mailbox } from ${JSON.stringify(mailbox)};
    const box = new Mailbox(${JSON.stringify(path.join(dir, 'mailbox'))});
    const entries = [1, 2, 3, 4, 5, 6].map((n) => ({ id: newMailId(), agentId: ${JSON.stringify(run.id)}, runId: ${JSON.stringify(run.tree.runId)}, kind: 'message', text: 'message ' + n, from: null, via: 'cli', sentAt: mailTime() }));
    // Written newest first: the order of the files on disk is not the order they were sent in.
    for (const entry of entries.reverse()) await box.post(entry);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: 'inherit' });
  assert.equal(await new Promise((resolve) => child.once('exit', resolve)), 0);
  await until('all six taken by the owner', () => queued.length === 6);
  release();
  assert.equal((await run.done).status, 'completed');
  const delivered = JSON.stringify(local.requests[1]!.messages.at(-1)!.content).match(/message \d/g);
  assert.deepEqual(delivered, ['message 1', 'message 2', 'message 3', 'message 4', 'message 5', 'message 6']);
  await history.close();
});
