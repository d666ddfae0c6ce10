import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Engine } from '../../../../src/core/engine/engine';
import { RunHistory, type RunHistoryOptions } from '../../../../src/core/runs/history';
import { RunStore } from '../../../../src/core/runs/runStore';
import { emptyUsage, type RunEvent } from '../../../../src/protocol/runEvents';
import { agentOf } from '../../../../src/protocol/runSnapshot';
import { agent, catalogOf, settings } from '../../../support/agents';
import { CLI } from '../../../support/cliProcess';
import { startScriptedServer } from '../../../support/scriptedServer';
import { until } from '../../../support/until';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-persist-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

/** The event that starts a one-agent run. */
function runStarted(runId: string, ts = Date.now()): RunEvent {
  return { type: 'agent_started', ts, runId, agentId: runId, parentId: null, parentToolUseId: null, agentName: 'a', description: 'd', prompt: 'p', model: 'm', depth: 0, cwd: '/', background: false, filePath: null, resumed: false };
}

/** A history in `dir` that saves a fresh store's runs. */
async function openAttached(dir: string, options: Partial<RunHistoryOptions> = {}): Promise<{ history: RunHistory; store: RunStore }> {
  const history = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50, debounceMs: 5, ...options });
  const store = new RunStore({ coalesceMs: 0 });
  history.attach(store);
  return { history, store };
}

test('a run that was going when the process died comes back marked interrupted, with what it had done', async (t) => {
  const dir = await tempDir(t);
  const server = await startScriptedServer((req) => (req.turn === 0 ? { text: 'looking', toolUses: [{ name: 'LS', input: {} }] } : { hang: true }));
  t.after(() => server.close());
  const { history, store } = await openAttached(dir);
  const engine = new Engine({ client: new Anthropic({ apiKey: 'k', baseURL: server.url }), catalog: catalogOf(agent('solo')), settings: settings(), archive: history });
  engine.onEvent((e) => store.apply(e));
  const run = await engine.start({ agent: 'solo', prompt: 'list', cwd: dir });
  while (server.requests.length < 2) await new Promise((r) => setTimeout(r, 10));
  // The process "dies" here: it stops owning its runs. A new process opens the history.
  await history.close();
  const reopened = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50 });
  const saved = reopened.runs.find((r) => r.runId === run.id)!;
  assert.equal(saved.status, 'interrupted');
  const node = saved.agents[run.id]!;
  assert.equal(node.status, 'interrupted');
  assert.match(node.error ?? '', /stopped before it finished/);
  assert.deepEqual(node.tools.map((r) => [r.name, r.status]), [['LS', 'ok']]);
  assert.equal(node.turns, 1);
  const transcript = await reopened.transcripts.read(run.id);
  assert.deepEqual(transcript?.map((m) => m.role), ['user', 'assistant', 'user'], 'the conversation up to the last request is on disk');
  engine.cancelAll();
  await run.done;
  // The cancelled run is still being saved; let it land before the temp dir goes.
  await history.flush();
});

test('truncated or garbage store files are moved aside as *.corrupt-<epoch>; the rest loads and the product continues', async (t) => {
  const dir = await tempDir(t);
  const { history, store } = await openAttached(dir);
  store.apply(runStarted('good'));
  await history.flush();
  const good = await readFile(path.join(dir, 'runs/good.json'), 'utf8');
  await writeFile(path.join(dir, 'runs/garbage.json'), '\u0000\u0001 not json at all');
  await writeFile(path.join(dir, 'runs/truncated.json'), good.slice(0, Math.floor(good.length / 2)));
  await writeFile(path.join(dir, 'runs/wrongshape.json'), JSON.stringify({ version: 1, run: { runId: 'wrongshape', agents: 'nope' } }));
  // A writer that is gone: a pid above the largest Linux allows (2^22), which no live process can have
  // (a small one like 1234 may well belong to some process of a busy machine, and keep the file).
  await writeFile(path.join(dir, 'runs/good.json.4194305-9f3a01bc.tmp'), 'half a write');
  await writeFile(path.join(dir, 'expired.json'), '[1, 2');

  const reopened = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50 });
  assert.deepEqual(reopened.runs.map((r) => r.runId), ['good']);
  assert.equal(reopened.problems.length, 4);
  for (const p of reopened.problems) assert.match(p, /moved it to \S+\.corrupt-\d+/);
  const files = (await readdir(path.join(dir, 'runs'))).sort();
  assert.deepEqual(files.filter((f) => !/\.corrupt-\d+$/.test(f)), ['good.json'], 'temp leftovers are removed');
  assert.equal(files.filter((f) => /^(garbage|truncated|wrongshape)\.json\.corrupt-\d+$/.test(f)).length, 3);
  assert.ok((await readdir(dir)).some((f) => /^expired\.json\.corrupt-\d+$/.test(f)));

  // And the product goes on writing.
  const store2 = new RunStore({ coalesceMs: 0 });
  reopened.attach(store2);
  store2.apply(runStarted('next'));
  await reopened.flush();
  assert.ok((await readdir(path.join(dir, 'runs'))).includes('next.json'));
});

test('a run file whose name and run id differ is moved aside, not loaded twice', async (t) => {
  const dir = await tempDir(t);
  const { history, store } = await openAttached(dir);
  store.apply(runStarted('good'));
  await history.flush();
  await history.close();
  // A copy under another name (a backup restored by hand, a sync tool's duplicate): writing it would overwrite good.json's run.
  await writeFile(path.join(dir, 'runs/copy.json'), await readFile(path.join(dir, 'runs/good.json'), 'utf8'));

  const reopened = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50 });
  assert.deepEqual(reopened.runs.map((r) => r.runId), ['good']);
  assert.equal(reopened.problems.length, 1);
  assert.match(reopened.problems[0]!, /copy\.json is unreadable \(file name and run id differ\); moved it to copy\.json\.corrupt-\d+/);
  assert.ok((await readdir(path.join(dir, 'runs'))).some((f) => /^copy\.json\.corrupt-\d+$/.test(f)));
});

test('retention counts from the end of a run, not its start', async (t) => {
  const dir = await tempDir(t);
  const DAY = 86_400_000;
  const now = Date.now();
  const { history, store } = await openAttached(dir, { now: () => now });
  // Both started 40 days ago; one ended 10 days ago (a long run, or one continued later), the other 31 days ago.
  for (const [runId, endedDaysAgo] of [['recent-end', 10], ['old-end', 31]] as const) {
    store.apply(runStarted(runId, now - 40 * DAY));
    store.apply({ type: 'agent_finished', ts: now - endedDaysAgo * DAY, runId, agentId: runId, status: 'completed', output: 'done', error: null, usage: emptyUsage(), turns: 1, durationMs: 1, worktree: null });
  }
  await history.flush();
  await history.close();

  const reopened = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50, now: () => now });
  assert.deepEqual(reopened.runs.map((r) => r.runId), ['recent-end']);
  assert.equal(await reopened.load('old-end'), 'expired');
});

test('the run cap deletes the oldest runs with their transcripts, and remembers their ids as expired', async (t) => {
  const dir = await tempDir(t);
  const server = await startScriptedServer(() => ({ text: 'ok' }));
  t.after(() => server.close());
  const history = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 2, debounceMs: 5 });
  const store = new RunStore({ coalesceMs: 0, maxRuns: 2 });
  history.attach(store);
  const engine = new Engine({ client: new Anthropic({ apiKey: 'k', baseURL: server.url }), catalog: catalogOf(agent('solo')), settings: settings(), archive: history });
  engine.onEvent((e) => store.apply(e));
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push((await engine.run({ agent: 'solo', prompt: `run ${i}`, cwd: dir })).agentId);
    // The next run starts at a later millisecond, so newest-first is one order.
    const last = Date.now();
    await until('the clock to move on', () => Date.now() > last);
  }
  await history.flush();
  assert.deepEqual((await readdir(path.join(dir, 'runs'))).sort(), [`${ids[1]}.json`, `${ids[2]}.json`].sort());
  assert.deepEqual((await readdir(path.join(dir, 'transcripts'))).sort(), [`${ids[1]}.ndjson`, `${ids[2]}.ndjson`].sort());
  assert.equal(await history.load(ids[0]!), 'expired');
});

test('SIGKILL mid-run, 50 times: the history always opens clean, no file is torn, interrupted runs are marked', async (t) => {
  const dir = await tempDir(t);
  const project = path.join(dir, 'project');
  await mkdir(path.join(project, '.claude/agents'), { recursive: true });
  await writeFile(path.join(project, '.claude/agents/worker.md'), '---\nname: worker\ndescription: Works in steps\ntools: LS\n---\nWork step by step.\n');
  // Nine model turns, each a `usage` event on the CLI's --json stream: the kills land on those events (mid-run
  // whatever the machine's load), at once (before the run may exist), or after the run ended on its own.
  const server = await startScriptedServer((req) => (req.turn < 8 ? { text: `step ${req.turn} `.repeat(50), toolUses: [{ name: 'LS', input: {} }] } : { text: 'finished' }), { record: false });
  t.after(() => server.close());
  const env = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const storeDir = path.join(dir, 'data/subagents');
  const expected = new Map<string, 'interrupted' | 'completed' | 'any'>();
  let statuses: Map<string, string> = new Map();
  for (let i = 0; i < 50; i++) {
    const job = `job ${i}`;
    const kind = i % 10 === 9 ? 'ends' : i % 10 === 0 ? 'at once' : 'mid-run';
    const turn = 1 + (i % 8);
    const child = spawn(process.execPath, [CLI, 'run', 'worker', job, '--json', '--cwd', project], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    const exited = new Promise((r) => child.once('exit', r));
    let usages = 0;
    let partial = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      partial += chunk;
      const lines = partial.split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (kind === 'mid-run' && line.includes('"type":"usage"') && ++usages === turn) child.kill('SIGKILL');
    });
    if (kind === 'ends') await exited;
    if (kind !== 'mid-run') child.kill('SIGKILL');
    await exited;
    expected.set(job, kind === 'mid-run' ? 'interrupted' : kind === 'ends' ? 'completed' : 'any');
    const history = await RunHistory.open({ dir: storeDir, retentionDays: 30, maxRuns: 500 });
    assert.deepEqual(history.problems, [], `iteration ${i} (${kind === 'mid-run' ? `killed after turn ${turn}` : kind}): the store opened clean`);
    for (const run of history.runs) {
      assert.ok(['completed', 'interrupted'].includes(run.status), `run ${run.runId} is ${run.status}`);
      for (const node of Object.values(run.agents)) assert.notEqual(node.status, 'running');
      const transcript = await history.transcripts.load(run.rootAgentId);
      // A kill in the middle of an append can cut its last line short, and only that: every line before it is whole.
      for (const problem of transcript?.problems ?? []) assert.match(problem, /was cut short while it was being written/, `the transcript of ${run.runId}`);
      for (const m of transcript?.messages ?? []) assert.ok(m.role === 'user' || m.role === 'assistant');
    }
    const names = await readdir(path.join(storeDir, 'runs'));
    assert.ok(!names.some((n) => n.includes('.corrupt-') || n.endsWith('.tmp')));
    statuses = new Map(history.runs.map((r) => [agentOf(r, r.rootAgentId)!.prompt, r.status]));
  }
  for (const [job, status] of expected) {
    if (status === 'any') continue;
    assert.equal(statuses.get(job), status, `${job} ${status === 'completed' ? 'ended before its kill and stays completed' : 'was killed mid-run and is marked interrupted'}`);
  }
});

test('files of a newer version (a run, a mailbox entry) are left as they are and named, never moved aside as broken', async (t) => {
  const dir = await tempDir(t);
  await mkdir(path.join(dir, 'runs'), { recursive: true });
  await mkdir(path.join(dir, 'mailbox'), { recursive: true });
  const newer = JSON.stringify({ version: 2, owner: null, run: { runId: 'r2', something: 'new' } });
  await writeFile(path.join(dir, 'runs', 'r2.json'), newer);
  const entry = JSON.stringify({ version: 2, entry: { id: 'm1', agentId: 'a1', shape: 'new' } });
  await writeFile(path.join(dir, 'mailbox', 'a1.0000000000001-m1.json'), entry);
  const { history } = await openAttached(dir);
  assert.deepEqual(history.runs, []);
  assert.deepEqual(history.problems, ['Run history file r2.json is not shown: it is a run file of version 2, written by a newer version of subagents (this one reads up to version 1); it was left as it is.']);
  assert.deepEqual(await history.mailbox.pending('a1'), []);
  assert.match(history.problems[1] ?? '', /^Mailbox entry a1\.0000000000001-m1\.json is not delivered here: it is a mailbox entry of version 2/);
  assert.deepEqual((await readdir(path.join(dir, 'runs'))).sort(), ['r2.json']);
  assert.equal(await readFile(path.join(dir, 'runs', 'r2.json'), 'utf8'), newer);
  assert.equal(await readFile(path.join(dir, 'mailbox', 'a1.0000000000001-m1.json'), 'utf8'), entry);
});

test('a run file that cannot be written is said once and written again later, without the run changing', async (t) => {
  const dir = await tempDir(t);
  const written: string[] = [];
  let wrote: () => void = () => undefined;
  const { history, store } = await openAttached(dir, { onWrite: (runId) => (written.push(runId), wrote()) });
  const logged: string[] = [];
  (history as unknown as { problems: string[] }).problems.push = (...lines: string[]) => logged.push(...lines);
  // Where the run's file goes, something stands that a rename cannot replace.
  await mkdir(path.join(dir, 'runs', 'r1.json', 'blocker'), { recursive: true });
  store.apply(runStarted('r1'));
  store.apply({ type: 'agent_finished', ts: Date.now(), runId: 'r1', agentId: 'r1', status: 'completed', output: 'done', error: null, usage: emptyUsage(), turns: 1, durationMs: 5, worktree: null });
  store.flush();
  await history.flush();
  assert.deepEqual(written, []);
  assert.equal(logged.length, 1);
  assert.match(logged[0]!, /^Could not save run r1: Could not save the run file .*r1\.json: .*\. It is tried again until it is saved\.$/);
  assert.equal(history.unsaved.size, 1);
  // Once the way is clear, the retry writes it though nothing changed since.
  const saved = new Promise<void>((resolve) => (wrote = resolve));
  await rm(path.join(dir, 'runs', 'r1.json'), { recursive: true });
  await saved;
  await history.flush();
  assert.deepEqual(written, ['r1']);
  assert.equal(JSON.parse(await readFile(path.join(dir, 'runs', 'r1.json'), 'utf8')).run.status, 'completed');
  assert.equal(history.unsaved.size, 0);
  assert.equal(logged.length, 1, 'said once, not at every retry');
});
