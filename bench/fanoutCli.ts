/**
 * Fan-out with worktree isolation the way a user runs it: `subagents run` as
 * a process, a fresh user with default settings (maxConcurrency 4, the pool
 * sized automatically, the default disk budget), on a committed repository
 * of 20,000 small files. Each round a lead spawns 8 isolated editors in one
 * turn; each writes one file, so each keeps its worktree; then the user
 * discards them one by one with `subagents worktrees discard <id>` (each a
 * process, timed). Against it, in the same process and alternated round by
 * round (which series goes first alternates too), what a person would do by
 * hand: 8 × (`git worktree add -b` + write the file + `git add` +
 * `git commit`), in a row, removed outside the timing.
 *
 * What runs in the background (the detached `subagents worktrees maintain`
 * the discards start: cleaning the handed-back worktrees, refilling) is
 * waited out before the next timed run, and how long it ran is recorded:
 * the time a user leaves between two fan-outs (reading the results) is when
 * it works. Rounds:
 *
 * - `first`: the first fan-out of a fresh user: nothing pooled, nothing
 *   known (every worktree a new checkout);
 * - `warm`: the worktrees the last round's discards handed back;
 * - `cold-idle`: every pooled worktree made unusable first (the user's
 *   checkout settings changed: a new git filter, as `git lfs install`
 *   adds), then the process holding the pool idle (`subagents worktrees
 *   maintain`, what the background upkeep does between fan-outs) before the
 *   fan-out;
 * - `cold`: the same change with no idle time before the fan-out.
 *
 * Each round checks that every kept branch holds exactly its editor's file
 * on top of its base and that the user's `git status` did not change.
 *
 * `--host`: the user has VS Code open, so the agent host runs (started as
 * `subagents host start`, default settings): `subagents run` is the host's
 * client and the fan-out runs in the host; the discards hand the worktrees
 * back from their own processes with no detached upkeep
 * (SUBAGENTS_NO_BACKGROUND), so the host alone cleans and refills the pool,
 * as it does for a window. The time between rounds is waited out until the
 * pool holds every worktree ready; `cold-idle` gets no `maintain`: the host
 * refills at idle by itself.
 *
 *   node_modules/node/bin/node --import tsx bench/fanoutCli.ts [--host] [--files=20000] [--editors=8] [--rounds=first,warm,warm,cold-idle,warm,warm,cold-idle,cold]
 *
 * Builds nothing: run `node scripts/build.mjs --production` first. Writes
 * bench/results/fanoutCli.json and prints Markdown rows.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { HostClient, WINDOW_COALESCE_MS } from '../src/core/host/client';
import { connectSocket } from '../src/core/host/connect';
import { hostPaths } from '../src/core/host/paths';
import { git, makeFilesRepo, plainFanOut } from './lib/filesRepo';
import { median, writeResults } from './lib/results';
import { startServerProcess } from './lib/serverProcess';

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const FILES = Number(arg('files', '20000'));
const EDITORS = Number(arg('editors', '8'));
const ROUNDS = arg('rounds', 'first,warm,warm,cold-idle,warm,warm,cold-idle,cold').split(',');
const CLI = path.join(import.meta.dirname, '../dist/cli.js');
const HOST = process.argv.includes('--host');
const load = () => Number((os.loadavg()[0] ?? 0).toFixed(2));

interface Cli {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Runs the CLI as a process; resolves with its output and wall time. */
function cli(c: Cli, args: string[]): Promise<{ ms: number; code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], { cwd: c.cwd, env: c.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ ms: performance.now() - t0, code, stdout, stderr }));
  });
}

/** Background `subagents worktrees maintain` processes working in `cwd` (from /proc). */
function upkeepProcesses(cwd: string): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('worktrees\0maintain\0--background') && readlinkSync(`/proc/${pid}/cwd`) === cwd) n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

/** Waits until no background upkeep runs for `cwd`; returns how long that took. */
async function backgroundDone(cwd: string): Promise<number> {
  const t0 = performance.now();
  while (upkeepProcesses(cwd) > 0) await new Promise((r) => setTimeout(r, 100));
  return performance.now() - t0;
}


interface Kept {
  agentId: string;
  branch: string;
  baseCommit: string;
  state: string;
}

async function oursRound(c: Cli, repo: string) {
  const before = git(repo, 'status', '--porcelain');
  const run = await cli(c, ['run', 'lead', 'edit', '--json']);
  if (run.code !== 0) throw new Error(`subagents run failed (${run.code}): ${run.stderr.slice(-2000)}`);
  const listed = JSON.parse((await cli(c, ['worktrees', '--json'])).stdout) as { worktrees: Kept[] };
  const kept = listed.worktrees.filter((w) => w.state === 'finished');
  if (kept.length !== EDITORS) throw new Error(`${kept.length} of ${EDITORS} editors kept a worktree`);
  for (const w of kept) {
    const changed = git(repo, 'diff', '--name-only', w.baseCommit, w.branch).trim();
    if (!/^out\/editor-\d+\.txt$/.test(changed)) throw new Error(`${w.branch} holds ${JSON.stringify(changed)}, not exactly its own file`);
  }
  if (git(repo, 'status', '--porcelain') !== before) throw new Error('the user tree changed');
  const discards: number[] = [];
  for (const w of kept) {
    const d = await cli(c, ['worktrees', 'discard', w.agentId]);
    if (d.code !== 0) throw new Error(`discard failed: ${d.stderr}`);
    discards.push(d.ms);
  }
  const run2 = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { status: string };
  if (run2.status !== 'completed') throw new Error(`lead ${run2.status}`);
  return { ms: run.ms, discards };
}

/**
 * With the host keeping the pool: waits until it holds `want` worktrees,
 * every one ready, none of `stale` (made unusable by a settings change) and
 * no trash; returns how long that took.
 */
async function hostPoolReady(data: string, want: number, stale: ReadonlySet<string> = new Set()): Promise<number> {
  const t0 = performance.now();
  const trash = path.join(data, 'subagents', 'worktrees', 'trees', '.trash');
  for (;;) {
    const p = pooled(data);
    const trashed = existsSync(trash) ? readdirSync(trash).length : 0;
    if (p.all >= want && p.ready === p.all && trashed === 0 && !p.paths.some((w) => stale.has(w))) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Pooled worktrees of the user's storage, ready or not. */
function pooled(data: string): { ready: number; all: number; paths: string[] } {
  const dir = path.join(data, 'subagents', 'worktrees', 'state', 'pool');
  let ready = 0;
  const paths: string[] = [];
  for (const name of readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.json'))) {
    let entry: { ready?: boolean; path: string };
    try {
      entry = JSON.parse(readFileSync(path.join(dir, name.name), 'utf8')) as { ready?: boolean; path: string };
    } catch {
      continue; // being written or removed this instant
    }
    paths.push(entry.path);
    if (entry.ready !== false) ready++;
  }
  return { ready, all: paths.length, paths };
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'subagents-bench-fanout-cli-'));
  const rounds: Array<Record<string, unknown>> = [];
  const server = await startServerProcess('isolatedEditors', { children: EDITORS });
  let window: HostClient | null = null;
  try {
    const t0 = performance.now();
    const repo = makeFilesRepo(root, FILES);
    mkdirSync(path.join(repo, '.claude', 'agents'), { recursive: true });
    writeFileSync(path.join(repo, '.claude', 'agents', 'lead.md'), '---\nname: lead\ndescription: Splits the work\ntools: Task\n---\nYou lead. [agent:lead]\n');
    writeFileSync(path.join(repo, '.claude', 'agents', 'editor.md'), '---\nname: editor\ndescription: Edits one file\ntools: Write\nisolation: worktree\n---\nYou edit. [agent:editor]\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'agents');
    console.error(`repository of ${FILES} files ready in ${Math.round(performance.now() - t0)} ms (load ${load()})`);
    const home = path.join(root, 'home');
    const data = path.join(root, 'data');
    mkdirSync(home);
    const c: Cli = { cwd: repo, env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: data, XDG_CONFIG_HOME: path.join(root, 'config'), XDG_CACHE_HOME: path.join(root, 'cache'), XDG_RUNTIME_DIR: path.join(root, 'run'), ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.url } };
    // Its own agent host's folder: never a host of the machine's user.
    mkdirSync(c.env.XDG_RUNTIME_DIR!, { mode: 0o700 });
    if (HOST) {
      c.env.SUBAGENTS_NO_BACKGROUND = '1';
      const started = await cli(c, ['host', 'start']);
      if (started.code !== 0) throw new Error(`subagents host start failed: ${started.stderr}`);
      // A VS Code window stays connected: without a client the host exits after 10 idle minutes (plain git's rounds at load can be that long).
      window = await HostClient.open({ connect: () => connectSocket(hostPaths(c.env)), identity: { kind: 'vscode', version: 'bench', build: 'dev', pid: process.pid }, reconnect: false, coalesceMs: WINDOW_COALESCE_MS, log: () => undefined });
    } else c.env.SUBAGENTS_NO_HOST = '1';
    const plainDir = path.join(root, 'plain');
    let filter = 0;
    for (const [index, kind] of ROUNDS.entries()) {
      let idleMs = 0;
      if (kind === 'cold' || kind === 'cold-idle') {
        git(repo, 'config', `filter.bench${++filter}.clean`, 'cat');
        // The host sees the change by itself (it looks for unannounced work once a minute while idle) and replaces the pool.
        if (kind === 'cold-idle' && HOST) idleMs = await hostPoolReady(data, EDITORS, new Set(pooled(data).paths));
        else if (kind === 'cold-idle') {
          const t = performance.now();
          const m = await cli(c, ['worktrees', 'maintain', '--json']);
          if (m.code !== 0) throw new Error(`maintain failed: ${m.stderr}`);
          idleMs = performance.now() - t;
        }
      }
      const poolAtStart = index === 0 ? { ready: 0, all: 0, paths: [] } : pooled(data);
      const loadBefore = load();
      let plain = 0;
      if (index % 2 === 0) plain = plainFanOut(repo, plainDir, index, EDITORS);
      const ours = await oursRound(c, repo);
      const background = HOST ? await hostPoolReady(data, EDITORS) : await backgroundDone(repo);
      if (index % 2 === 1) plain = plainFanOut(repo, plainDir, index, EDITORS);
      const row = {
        round: index + 1,
        kind,
        oursMs: Math.round(ours.ms),
        plainMs: Math.round(plain),
        ratio: Number((ours.ms / plain).toFixed(3)),
        pooledAtStart: poolAtStart.ready,
        discardMsMedian: Math.round(median(ours.discards)),
        discardMsMax: Math.round(Math.max(...ours.discards)),
        backgroundAfterMs: Math.round(background),
        idlePrefillMs: Math.round(idleMs),
        load: loadBefore,
      };
      rounds.push(row);
      console.error(JSON.stringify(row));
    }
  } finally {
    window?.close();
    if (HOST) await cli({ cwd: root, env: { PATH: process.env.PATH, HOME: path.join(root, 'home'), XDG_RUNTIME_DIR: path.join(root, 'run'), XDG_DATA_HOME: path.join(root, 'data') } }, ['host', 'stop', '--force']).catch(() => undefined);
    await server.close();
    await backgroundDone(path.join(root, 'repo')).catch(() => 0);
    spawnSync('rm', ['-rf', root]);
  }
  const of = (kind: string) => rounds.filter((r) => r.kind === kind);
  const summary = (rs: typeof rounds) =>
    rs.length
      ? {
          rounds: rs.length,
          oursMedianMs: Math.round(median(rs.map((r) => r.oursMs as number))),
          plainMedianMs: Math.round(median(rs.map((r) => r.plainMs as number))),
          ratioMedian: Number(median(rs.map((r) => r.ratio as number)).toFixed(3)),
          ratios: rs.map((r) => r.ratio),
        }
      : null;
  const results = { editors: EDITORS, files: FILES, via: HOST ? 'the agent host (subagents run as its client)' : 'subagents run in its own process', settings: 'defaults (maxConcurrency 4, worktrees.poolSize -1, worktrees.poolDiskBudgetMB 5120)', rounds, first: summary(of('first')), warm: summary(of('warm')), coldIdle: summary(of('cold-idle')), cold: summary(of('cold')), loadAfter: load() };
  console.log(JSON.stringify(results, null, 2));
  await writeResults(arg('out', HOST ? 'fanoutHost' : 'fanoutCli'), results);
  rmSync(root, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
