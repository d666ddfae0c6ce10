import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { RunHistory } from '../../../../src/core/runs/history';
import { runFileText } from '../../../../src/core/runs/runFiles';
import { RunStore } from '../../../../src/core/runs/runStore';
import type { RunSnapshot } from '../../../../src/protocol/runSnapshot';
import { EventScript } from '../../../support/runEvents';

// The run history's index: a history opens from it, reading whole only the
// newest runs; every run stays listed and readable, an agent of an old run
// can still be continued, and the files stay the truth.

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-index-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

/** A finished (or, with `working`, still running) run of a lead and a helper, started `minutesAgo`. */
function sampleRun(n: number, minutesAgo: number, working = false): RunSnapshot {
  const runId = `run${String(n).padStart(3, '0')}`;
  const script = new EventScript(runId);
  script.ts = Date.now() - minutesAgo * 60_000;
  script.started(`${runId}-lead`, 'lead', { description: `task number ${n}` });
  script.started(`${runId}-helper`, 'helper', { parentId: `${runId}-lead`, depth: 1 });
  script.tool(`${runId}-helper`, `${runId}-t`, 'Read', 'a.txt');
  script.finished(`${runId}-helper`, { output: 'found it' });
  if (!working) script.finished(`${runId}-lead`, { output: `done ${n}` });
  const store = new RunStore({ coalesceMs: 0 });
  for (const event of script.events) store.apply(event);
  return store.get(runId)!;
}

/** `count` runs on disk as processes that ended wrote them, newest last. */
async function writeRuns(dir: string, count: number, owner = { pid: 2 ** 22 + 17, host: os.hostname(), instance: 'gone' }): Promise<RunSnapshot[]> {
  await mkdir(path.join(dir, 'runs'), { recursive: true });
  const runs = Array.from({ length: count }, (_, i) => sampleRun(i, count - i));
  for (const run of runs) await writeFile(path.join(dir, 'runs', `${run.runId}.json`), runFileText(run, owner));
  return runs;
}

/** Opened, and the index read (with loadRuns 0 open answers before it is). */
async function open(dir: string, loadRuns?: number, maxRuns = 100): Promise<RunHistory> {
  const history = await RunHistory.open({ dir, retentionDays: 30, maxRuns, ...(loadRuns === undefined ? {} : { loadRuns }) });
  await history.ready();
  return history;
}

test('a history opens from its index: only the newest runs are read whole, every run is listed and readable, an old agent can be continued', async (t) => {
  const dir = await tempDir(t);
  const runs = await writeRuns(dir, 30);
  // The first open finds no index: it reads every file once and writes the index.
  const first = await open(dir, 5);
  assert.equal(first.summaries().length, 30);
  assert.ok(existsSync(path.join(dir, 'index.ndjson')));

  // Garbage in an old run's file: an open that read it would move it aside and say so.
  const old = runs[2]!;
  await writeFile(path.join(dir, 'runs', `${old.runId}.json`), 'not json');
  const history = await open(dir, 5);
  assert.deepEqual(history.problems, [], 'the old run was not read');
  assert.deepEqual(history.runs.map((r) => r.runId), runs.slice(-5).reverse().map((r) => r.runId), 'the newest five, read whole');
  assert.deepEqual(history.summaries().map((s) => s.runId), runs.map((r) => r.runId).reverse(), 'every run listed, newest first');
  const listed = history.summaries().at(-1)!;
  assert.deepEqual([listed.agentName, listed.description, listed.status, Object.keys(listed.agents)], ['lead', 'task number 0', 'completed', ['run000-lead', 'run000-helper']]);

  const readable = runs[10]!;
  assert.equal((await history.read(readable.runId))?.agents[`${readable.runId}-helper`]?.output, 'found it');
  assert.equal((await history.read(`${readable.runId}-helper`))?.runId, readable.runId, 'found by any of its agents');
  const archived = await history.load(`${readable.runId}-lead`);
  assert.ok(archived && archived !== 'expired');
  assert.equal(archived.node.output, 'done 10', 'an agent of a run not read at open can be continued');
});

test('files the index does not know are read and added; entries whose file is gone are dropped', async (t) => {
  const dir = await tempDir(t);
  const runs = await writeRuns(dir, 6);
  await open(dir, 0);
  await rm(path.join(dir, 'runs', `${runs[0]!.runId}.json`));
  const late = sampleRun(99, 0);
  await writeFile(path.join(dir, 'runs', `${late.runId}.json`), runFileText(late, { pid: 2 ** 22 + 17, host: os.hostname(), instance: 'gone' }));
  const history = await open(dir, 0);
  const ids = history.summaries().map((s) => s.runId);
  assert.equal(ids[0], late.runId, 'the file written without the index is listed');
  assert.equal(ids.includes(runs[0]!.runId), false, 'the deleted file is not');
  assert.equal(ids.length, 6);
  // And the index says so for the next open.
  assert.deepEqual((await open(dir, 0)).summaries().map((s) => s.runId), ids);
});

test('retention works from the index: runs past the cap are deleted, with their transcripts, without being read', async (t) => {
  const dir = await tempDir(t);
  const runs = await writeRuns(dir, 12);
  await open(dir, 0, 100);
  await mkdir(path.join(dir, 'transcripts'), { recursive: true });
  await writeFile(path.join(dir, 'transcripts', `${runs[0]!.runId}-lead.ndjson`), '{"role":"user","content":"x"}\n');
  const history = await open(dir, 2, 5);
  assert.deepEqual(history.summaries().map((s) => s.runId), runs.slice(-5).reverse().map((r) => r.runId));
  assert.deepEqual((await readdir(path.join(dir, 'runs'))).sort(), runs.slice(-5).map((r) => `${r.runId}.json`).sort());
  assert.equal(existsSync(path.join(dir, 'transcripts', `${runs[0]!.runId}-lead.ndjson`)), false);
  assert.equal(await history.load(`${runs[0]!.runId}-lead`), 'expired');
});

test('a run whose process died while it worked is found through the index and marked interrupted, however old', async (t) => {
  const dir = await tempDir(t);
  await writeRuns(dir, 8);
  // A process writes a run that is still at work, then dies (it stops owning its runs).
  const writer = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 100, loadRuns: 0, debounceMs: 5 });
  await writer.ready();
  const store = new RunStore({ coalesceMs: 0 });
  writer.attach(store);
  const script = new EventScript('working');
  script.ts = Date.now() - 600 * 60_000;
  script.started('working-lead', 'lead');
  for (const event of script.events) store.apply(event);
  await writer.close();

  const history = await open(dir, 1);
  const found = history.runs.find((r) => r.runId === 'working');
  assert.equal(found?.status, 'interrupted', 'read whole although it is not among the newest');
  assert.equal(history.summaries().find((s) => s.runId === 'working')?.active, false);
  assert.equal(history.runs.length, 2, 'the newest, and the one that was at work');
  assert.equal((await open(dir, 0)).summaries().find((s) => s.runId === 'working')?.status, 'interrupted', 'the index says so from then on');
});
