/**
 * Fan-out with worktree isolation, through the engine, on a committed
 * repository of 20,000 small files:
 *
 * 1. `fanout`: a lead spawns 8 isolated editors in one turn (scripted model
 *    server in its own process); each editor writes one file, so each ends
 *    with a kept worktree; then the user discards them all. Against it, in
 *    the same process and alternated round by round, what a person would do
 *    by hand: 8 × (`git worktree add -b` + write the file + `git add` +
 *    `git commit`), in a row. The first round of ours starts with an empty
 *    pool (cold), later ones reuse what the discards returned (warm); every
 *    `coldEvery`-th round starts with the pool emptied again. Per round:
 *    wall times, the ratio, where our time went (create, finish, discard)
 *    and the load average.
 * 2. `first`: one isolated spawn at a time, from a warm pool: time from the
 *    lead's Task call to the child's first model request, against the same
 *    for a spawn without isolation.
 * 3. `wide`: 32 isolated editors in one turn with `maxConcurrency` 32, twice
 *    (cold, then warm): all complete, each branch holds exactly its own
 *    file, the user's tree is untouched, and what stays on disk afterwards
 *    is within the pool's bound.
 *
 *   node_modules/node/bin/node --import tsx bench/worktreePool.ts [--files=20000] [--editors=8] [--rounds=8] [--cold-every=4] [--only=fanout,first,wide]
 *
 * Writes bench/results/worktreePool.json and prints Markdown rows.
 */
import Anthropic from '@anthropic-ai/sdk';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Engine } from '../src/core/engine/engine';
import { WorktreeManager } from '../src/core/isolation';
import { agent, catalogOf, settings } from '../test/support/agents';
import { startScriptedServer, type Reply, type ScriptedRequest } from '../test/support/scriptedServer';
import { git, makeFilesRepo, plainFanOut } from './lib/filesRepo';
import { median, writeResults } from './lib/results';
import { startServerProcess } from './lib/serverProcess';

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const FILES = Number(arg('files', '20000'));
const EDITORS = Number(arg('editors', '8'));
const ROUNDS = Number(arg('rounds', '8'));
const COLD_EVERY = Number(arg('cold-every', '4'));
const WIDE = Number(arg('wide', '32'));
const ONLY = arg('only', 'fanout,first,wide').split(',');


const load = () => Number((os.loadavg()[0] ?? 0).toFixed(2));


/** Kilobytes on disk under `dir` (du counts each hard-linked file once). */
function diskKb(dir: string): number {
  try {
    return Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]);
  } catch {
    return 0;
  }
}

/** WorktreeManager with its create/finish/discard timed, for the breakdown. */
function timedManager(root: string, poolSize: number) {
  const manager = new WorktreeManager({ stateDir: path.join(root, 'state'), worktreesRoot: path.join(root, 'worktrees'), poolSize: () => poolSize });
  const spent = { create: 0, finish: 0, discard: 0 };
  for (const name of ['create', 'finish', 'discard'] as const) {
    const original = manager[name].bind(manager) as (...a: unknown[]) => Promise<unknown>;
    (manager as unknown as Record<string, unknown>)[name] = async (...a: unknown[]) => {
      const t0 = performance.now();
      try {
        return await original(...a);
      } finally {
        spent[name] += performance.now() - t0;
      }
    };
  }
  return { manager, spent };
}

/** Empties the pool where the manager has one (the code before pooling has none). */
async function emptyPool(manager: WorktreeManager): Promise<void> {
  const m = manager as unknown as { emptyPool?: () => Promise<unknown> };
  if (typeof m.emptyPool === 'function') await m.emptyPool();
}


/** Every kept worktree's branch holds exactly its editor's file on top of its base. */
function checkBranches(repo: string, worktree: Array<{ agentId: string; branch: string; baseCommit: string }>, editors: number): void {
  if (worktree.length !== editors) throw new Error(`${worktree.length} of ${editors} editors kept a worktree`);
  for (const w of worktree) {
    const changed = git(repo, 'diff', '--name-only', w.baseCommit, w.branch).trim();
    if (!/^out\/editor-\d+\.txt$/.test(changed)) throw new Error(`${w.branch} holds ${JSON.stringify(changed)}, not exactly its own file`);
  }
}

async function editorsRound(engine: Engine, manager: WorktreeManager, repo: string, editors: number) {
  const before = git(repo, 'status', '--porcelain');
  const t0 = performance.now();
  const run = await engine.start({ agent: 'lead', prompt: 'edit', cwd: repo });
  const result = await run.done;
  const ms = performance.now() - t0;
  if (result.status !== 'completed') throw new Error(`lead ${result.status}: ${result.error}`);
  const kept = (await manager.list()).filter((r) => r.state === 'finished');
  checkBranches(repo, kept, editors);
  if (git(repo, 'status', '--porcelain') !== before) throw new Error('the user tree changed');
  const t1 = performance.now();
  await Promise.all(kept.map((r) => manager.discard(r.agentId)));
  return { ms, discardMs: performance.now() - t1 };
}

function editorsEngine(url: string, manager: WorktreeManager, concurrency: number): Engine {
  return new Engine({
    client: new Anthropic({ apiKey: 'bench', baseURL: url, maxRetries: 0 }),
    catalog: catalogOf(agent('lead', { tools: ['Task'] }), agent('editor', { tools: ['Write'], spawns: [] })),
    settings: settings({ maxConcurrency: concurrency }),
    worktrees: manager,
  });
}

async function fanout(root: string, repo: string) {
  const server = await startServerProcess('isolatedEditors', { children: EDITORS });
  const { manager, spent } = timedManager(path.join(root, 'fanout'), EDITORS);
  const engine = editorsEngine(server.url, manager, EDITORS);
  const plainDir = path.join(root, 'plain');
  const rounds: Array<Record<string, number | string>> = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const cold = round % COLD_EVERY === 0;
      if (cold) await emptyPool(manager);
      const loadBefore = load();
      Object.assign(spent, { create: 0, finish: 0, discard: 0 });
      // Alternate which series goes first: the one after a batch of deletions pays for their write-back.
      let plain = 0;
      if (round % 2 === 0) plain = plainFanOut(repo, plainDir, round, EDITORS);
      const ours = await editorsRound(engine, manager, repo, EDITORS);
      if (round % 2 === 1) plain = plainFanOut(repo, plainDir, round, EDITORS);
      const row = {
        round: round + 1,
        pool: cold ? 'cold' : 'warm',
        oursMs: Math.round(ours.ms),
        plainMs: Math.round(plain),
        ratio: Number((ours.ms / plain).toFixed(3)),
        createMsSum: Math.round(spent.create),
        finishMsSum: Math.round(spent.finish),
        discardMs: Math.round(ours.discardMs),
        worktreesDiskMB: Math.round(diskKb(path.join(root, 'fanout', 'worktrees')) / 1024),
        load: loadBefore,
      };
      rounds.push(row);
      console.error(JSON.stringify(row));
    }
  } finally {
    await server.close();
    await emptyPool(manager);
    manager.dispose();
  }
  const of = (kind: string) => rounds.filter((r) => r.pool === kind);
  const summary = (rs: typeof rounds) => ({
    rounds: rs.length,
    oursMedianMs: Math.round(median(rs.map((r) => r.oursMs as number))),
    plainMedianMs: Math.round(median(rs.map((r) => r.plainMs as number))),
    ratioMedian: Number(median(rs.map((r) => r.ratio as number)).toFixed(3)),
  });
  return { editors: EDITORS, files: FILES, rounds, cold: summary(of('cold')), warm: summary(of('warm')) };
}

async function firstRequest(root: string, repo: string) {
  const spawnStarted: number[] = [];
  const firstRequestAt = new Map<string, number>();
  let isolate = true;
  const script = (req: ScriptedRequest): Reply => {
    if (req.system.includes('[agent:lead]')) {
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'editor', description: 'look', prompt: 'look around', ...(isolate ? { isolation: 'worktree' } : {}) } }] };
      return { text: 'done' };
    }
    const key = String(spawnStarted.length);
    if (req.turn === 0 && !firstRequestAt.has(key)) firstRequestAt.set(key, performance.now());
    return { text: 'nothing to change' };
  };
  const server = await startScriptedServer(script, { record: false });
  const { manager } = timedManager(path.join(root, 'first'), 4);
  const engine = editorsEngine(server.url, manager, 4);
  engine.onEvent((e) => {
    if (e.type === 'tool_started' && e.name === 'Task') spawnStarted.push(performance.now());
  });
  const samples = { isolated: [] as number[], plain: [] as number[] };
  try {
    // Warm-up: the first isolated spawn makes the worktree the rest reuse.
    for (let i = 0; i < 2; i++) await (await engine.start({ agent: 'lead', prompt: 'look', cwd: repo })).done;
    for (let i = 0; i < 30; i++) {
      isolate = i % 2 === 0;
      const result = await (await engine.start({ agent: 'lead', prompt: 'look', cwd: repo })).done;
      if (result.status !== 'completed') throw new Error(`lead ${result.status}: ${result.error}`);
      const key = String(spawnStarted.length);
      const ms = firstRequestAt.get(key)! - spawnStarted.at(-1)!;
      (isolate ? samples.isolated : samples.plain).push(ms);
    }
  } finally {
    await server.close();
    await emptyPool(manager);
    manager.dispose();
  }
  const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
  return {
    isolatedMedianMs: Number(median(samples.isolated).toFixed(1)),
    isolatedP90Ms: Number(p(samples.isolated, 0.9).toFixed(1)),
    withoutIsolationMedianMs: Number(median(samples.plain).toFixed(1)),
    samples: samples.isolated.length,
    load: load(),
  };
}

async function wide(root: string, repo: string) {
  const server = await startServerProcess('isolatedEditors', { children: WIDE });
  const { manager } = timedManager(path.join(root, 'wide'), WIDE);
  const engine = editorsEngine(server.url, manager, WIDE);
  const checkoutKb = diskKb(repo) - diskKb(path.join(repo, '.git'));
  const rounds = [];
  try {
    for (const pool of ['cold', 'warm']) {
      const loadBefore = load();
      const r = await editorsRound(engine, manager, repo, WIDE);
      const diskMB = diskKb(path.join(root, 'wide', 'worktrees')) / 1024;
      rounds.push({ pool, ms: Math.round(r.ms), discardMs: Math.round(r.discardMs), worktreesDiskMB: Math.round(diskMB), load: loadBefore });
      console.error(JSON.stringify(rounds.at(-1)));
    }
  } finally {
    await server.close();
  }
  const boundMB = Math.round((WIDE * checkoutKb) / 1024);
  const result = { editors: WIDE, maxConcurrency: WIDE, poolSize: WIDE, checkoutMB: Math.round(checkoutKb / 1024), boundMB, rounds, withinBound: rounds.every((r) => r.worktreesDiskMB <= boundMB * 1.05) };
  await emptyPool(manager);
  manager.dispose();
  return result;
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'subagents-bench-pool-'));
  const results: Record<string, unknown> = { load: load() };
  try {
    const t0 = performance.now();
    const repo = makeFilesRepo(root, FILES);
    console.error(`repository of ${FILES} files ready in ${Math.round(performance.now() - t0)} ms (load ${load()})`);
    if (ONLY.includes('fanout')) results.fanout = await fanout(root, repo);
    if (ONLY.includes('first')) results.firstRequest = await firstRequest(root, repo);
    if (ONLY.includes('wide')) results.wide = await wide(root, repo);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  results.loadAfter = load();
  console.log(JSON.stringify(results, null, 2));
  await writeResults(arg('out', 'worktreePool'), results);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
