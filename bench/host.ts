/**
 * The agent host as a user meets it:
 *
 *  1. An engine event on its way to the Runs view through the host: a run
 *     tree of 20 agents emits 1,000 events a second for 10 seconds inside a
 *     host process (bench/lib/hostEmitter.ts: the real HostServer and
 *     runtime); a window in this process (the real HostClient, its run store
 *     copy batching as the extension's does, the Runs view's own RunsFeed and
 *     FeedPump) records, for every event, when the first message to the
 *     webview that shows it was posted. p50/p95/p99 of (post − emission), on
 *     the clock the two processes share; beside it the same events in a
 *     window's own runtime (no host), for reference. What the webview then
 *     takes to draw a message is bench/runsView.ts's frame time.
 *  2. Reconnecting after a reload with 200 runs in the history: the real host
 *     (dist/host.js, started as the extension starts it) holds them; a new
 *     window connects as VS Code's does (older ended runs as summaries, whole
 *     right after), says hello, takes the state and posts the Runs view's
 *     first full message; then until every run in its copy is whole. Median
 *     and p95 of 10 reconnects.
 *  3. An idle host's memory: the same host after its clients left, RSS (and
 *     its peak) from /proc, 3 s and 30 s after the last one left; and a host
 *     with an empty history.
 *
 * Run: node --import tsx bench/host.ts   (after `npm run build`)
 *   --only=memory|latency    part 3 (with the 10 reconnects before it) or part 1 alone
 *   --against=<dist folder>  alternately with another build's host (say, main's dist/ copied aside), same minute
 *   --flags=<a,b,…>          alternately with the host's Node run with these flags instead of HOST_NODE_FLAGS
 *   --rounds=N               rounds (default 1; each round runs this build and what it is compared against)
 * Part 3 measures the host as it ships: run it after `node scripts/build.mjs --production` (a development build's
 * bundles keep their comments, and their non-ASCII characters make V8 hold the sources as two-byte strings: about
 * 8 MB more; the line says which build it measured).
 */
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WINDOW_COALESCE_MS, HostClient } from '../src/core/host/client';
import { connectSocket, HOST_NODE_FLAGS, launchHost } from '../src/core/host/connect';
import { hostPaths } from '../src/core/host/paths';
import { RunHistory } from '../src/core/runs/history';
import { RunStore } from '../src/core/runs/runStore';
import { emptyUsage, type RunEvent } from '../src/protocol/runEvents';
import type { HostToWebview } from '../src/protocol/webview';
import { FeedPump, RunsFeed } from '../src/surfaces/views/runsFeed';
import { agentViewOf, runHeader } from '../src/surfaces/views/viewModel';
import { median, writeResults } from './lib/results';

const EVENTS_PER_SECOND = 1000;
const SECONDS = 10;
const HISTORY_RUNS = 200;
const now = () => performance.timeOrigin + performance.now();

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const round = (n: number) => Math.round(n * 10) / 10;

/** The Runs view's feed and pump over `store`, as the extension drives them; `posted` hears each message. */
function runsView(store: RunStore, posted: (message: HostToWebview) => void): FeedPump {
  const feed = new RunsFeed({
    runs: () => store.list(),
    run: (id) => store.get(id),
    header: (run) => runHeader(run, null),
    agentView: (node) => agentViewOf(node, () => undefined),
    shown: () => true,
  });
  const pump = new FeedPump(feed, posted);
  store.subscribe((changed) => pump.changed(changed));
  pump.start();
  return pump;
}

async function connectTo(socket: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.createConnection(socket, () => resolve(s));
    s.once('error', reject);
  });
}

/** Part 1, through the host. */
async function latencyThroughHost(root: string, nodeFlags: readonly string[] = HOST_NODE_FLAGS): Promise<Record<string, number>> {
  const socket = path.join(root, `emitter-${Math.random().toString(36).slice(2)}.sock`);
  const child = fork(path.join(import.meta.dirname, 'lib/hostEmitter.ts'), [socket, path.join(root, `emitter-data-${path.basename(socket)}`)], { execArgv: [...nodeFlags, '--import', 'tsx'] });
  const token = await new Promise<string>((resolve) => child.once('message', (m: { token: string }) => resolve(m.token)));
  const client = await HostClient.open({ connect: async () => ({ socket: await connectTo(socket), token }), identity: { kind: 'vscode', version: 'bench', build: 'dev', pid: process.pid }, reconnect: false, coalesceMs: WINDOW_COALESCE_MS, log: () => undefined });
  let pending: number[] = [];
  const latencies: number[] = [];
  let posts = 0;
  client.onEvent((event) => pending.push(event.ts));
  runsView(client.store, () => {
    posts++;
    const t = now();
    for (const ts of pending) latencies.push(t - ts);
    pending = [];
  });
  const cpu = process.cpuUsage();
  child.send({ kind: 'start', eventsPerSecond: EVENTS_PER_SECOND, seconds: SECONDS });
  const done = await new Promise<{ events: number; cpuMs: number; wallMs: number }>((resolve) => child.on('message', (m: { kind: string }) => m.kind === 'done' && resolve(m as never)));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const used = process.cpuUsage(cpu);
  client.close();
  child.send({ kind: 'exit' });
  await new Promise((resolve) => child.once('exit', resolve));
  return {
    events: done.events,
    measured: latencies.length,
    p50Ms: round(percentile(latencies, 50)),
    p95Ms: round(percentile(latencies, 95)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(Math.max(...latencies)),
    postsPerSecond: round(posts / SECONDS),
    hostCpuPercent: round((done.cpuMs / done.wallMs) * 100),
    windowCpuPercent: round(((used.user + used.system) / 1000 / done.wallMs) * 100),
  };
}

/** Part 1 for reference: the same kind of events in a window's own runtime (the store batching every 100 ms, as a window without a host does). */
async function latencyInWindow(): Promise<Record<string, number>> {
  const store = new RunStore({ coalesceMs: 100 });
  let pending: number[] = [];
  const latencies: number[] = [];
  runsView(store, () => {
    const t = now();
    for (const ts of pending) latencies.push(t - ts);
    pending = [];
  });
  const apply = (event: RunEvent) => {
    store.apply(event);
    pending.push(event.ts);
  };
  for (let i = 0; i < 20; i++) apply({ type: 'agent_started', ts: now(), runId: 'w', agentId: `w${i}`, parentId: i ? 'w0' : null, parentToolUseId: null, agentName: `worker-${i}`, description: 'x', prompt: 'go', model: 'm', depth: i ? 1 : 0, cwd: '/repo', background: false, filePath: null, resumed: false });
  const total = EVENTS_PER_SECOND * SECONDS;
  const started = performance.now();
  let emitted = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * EVENTS_PER_SECOND));
      while (emitted < due) {
        apply({ type: 'text', ts: now(), runId: 'w', agentId: `w${emitted % 20}`, text: 'word ' });
        emitted++;
      }
      if (emitted >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { p50Ms: round(percentile(latencies, 50)), p95Ms: round(percentile(latencies, 95)), p99Ms: round(percentile(latencies, 99)) };
}

/** 200 runs of 5 agents and 40 tool rows each, written as the history writes them. */
async function history(dataDir: string): Promise<void> {
  const store = new RunStore({ coalesceMs: 0 });
  const runs = await RunHistory.open({ dir: dataDir, retentionDays: 30, maxRuns: 1000 });
  const detach = runs.attach(store);
  let ts = Date.now() - HISTORY_RUNS * 60_000;
  for (let r = 0; r < HISTORY_RUNS; r++) {
    const runId = `hist${String(r).padStart(4, '0')}`;
    for (let a = 0; a < 5; a++) {
      const agentId = `${runId}a${a}`;
      store.apply({ type: 'agent_started', ts: ts++, runId, agentId, parentId: a ? `${runId}a0` : null, parentToolUseId: null, agentName: a ? `helper-${a}` : 'lead', description: `work item ${r}.${a}`, prompt: `Look into part ${a} of the ${r}th problem and report.`, model: 'claude-sonnet-5-5', depth: a ? 1 : 0, cwd: '/repo', background: false, filePath: null, resumed: false });
      for (let t = 0; t < 40; t++) {
        store.apply({ type: 'tool_started', ts: ts++, runId, agentId, toolUseId: `${agentId}t${t}`, name: 'Read', inputSummary: `src/module${t}.ts` });
        store.apply({ type: 'tool_finished', ts: ts++, runId, agentId, toolUseId: `${agentId}t${t}`, name: 'Read', ok: true, resultSummary: '120 lines', durationMs: 30 });
      }
    }
    for (let a = 4; a >= 0; a--) store.apply({ type: 'agent_finished', ts: ts++, runId, agentId: `${runId}a${a}`, status: 'completed', output: `Findings for part ${a}: all good, with a paragraph or two of detail.`, error: null, usage: { ...emptyUsage(), inputTokens: 12_000, outputTokens: 900 }, turns: 8, durationMs: 40_000, worktree: null });
  }
  await runs.flush();
  detach();
  await runs.close();
}

function rssOf(pid: number): { rssMB: number; peakMB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMB: round(kb('VmRSS') / 1024), peakMB: round(kb('VmHWM') / 1024) };
}

/** Parts 2 and 3: the real host process over `dataHome`. */
async function realHost(root: string, dataHome: string, reconnects: number, dist = path.join(import.meta.dirname, '../dist'), nodeFlags?: readonly string[]): Promise<Record<string, unknown>> {
  const env = { PATH: process.env.PATH, HOME: root, XDG_RUNTIME_DIR: path.join(root, `run-${path.basename(dataHome)}`), XDG_DATA_HOME: dataHome, XDG_CACHE_HOME: path.join(root, 'cache') };
  await mkdir(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  const paths = hostPaths(env);
  const started = performance.now();
  await launchHost({ execPath: process.execPath, script: path.join(dist, 'host.js'), env, settings: { idleExitSeconds: 3600, unattendedApprovalSeconds: 3600 }, ...(nodeFlags ? { nodeFlags } : {}) });
  const startMs = performance.now() - started;
  const times: number[] = [];
  const wholeTimes: number[] = [];
  let sizeKB = 0;
  let runs = 0;
  for (let i = 0; i < reconnects; i++) {
    const t0 = performance.now();
    // As a window connects: older ended runs as summaries first, whole right after.
    const client = await HostClient.open({ connect: () => connectSocket(paths), identity: { kind: 'vscode', version: 'bench', build: 'dev', pid: process.pid }, reconnect: false, summaries: true, coalesceMs: WINDOW_COALESCE_MS, log: () => undefined });
    const message = await new Promise<HostToWebview>((resolve) => runsView(client.store, resolve));
    times.push(performance.now() - t0);
    await client.whole;
    wholeTimes.push(performance.now() - t0);
    sizeKB = Math.round(JSON.stringify(message).length / 1024);
    runs = client.store.list().length;
    client.close();
  }
  // Idle: no client, nothing at work. Right after the last client left, and once at rest (V8 gives memory back over
  // the seconds after its collections; an idle host stays up for minutes).
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const pid = (JSON.parse(readFileSync(paths.info, 'utf8')) as { pid: number }).pid;
  const soon = rssOf(pid);
  await new Promise((resolve) => setTimeout(resolve, 27_000));
  const memory = rssOf(pid);
  // The host's own account at its last rest: rss, heap used/total, external.
  const idleLine = readFileSync(paths.log, 'utf8').split('\n').filter((line) => line.includes(' Idle: ')).at(-1)?.replace(/^.* Idle: /, '').replace(/\.$/, '') ?? '';
  process.kill(pid, 'SIGTERM');
  await new Promise<void>((resolve) => {
    const gone = () => {
      try {
        process.kill(pid, 0);
        setTimeout(gone, 50);
      } catch {
        resolve();
      }
    };
    gone();
  });
  return { hostStartMs: Math.round(startMs), runs, reconnectMedianMs: round(median(times)), reconnectP95Ms: round(percentile(times, 95)), firstMessageKB: sizeKB, wholeMedianMs: round(median(wholeTimes)), wholeP95Ms: round(percentile(wholeTimes, 95)), idleRssMB: memory.rssMB, idleRss3sMB: soon.rssMB, peakRssMB: memory.peakMB, idleMemory: idleLine };
}

const { values: flags } = parseArgs({ options: { only: { type: 'string' }, against: { type: 'string' }, flags: { type: 'string' }, rounds: { type: 'string' } } });

/** What this build is compared against: another build's dist/, or other flags for the host's Node. */
interface Variant {
  name: string;
  dist?: string;
  nodeFlags?: readonly string[];
}

const variants: Variant[] = [
  { name: 'this build' },
  ...(flags.against ? [{ name: `against ${flags.against}`, dist: path.resolve(flags.against) }] : []),
  ...(flags.flags ? [{ name: `flags ${flags.flags}`, nodeFlags: flags.flags.split(',') }] : []),
];

/** Which build a dist/ holds: a development build keeps its comments. */
function buildOf(dist = path.join(import.meta.dirname, '../dist')): string {
  return readFileSync(path.join(dist, 'host.js'), 'utf8').includes('\n// src/') ? 'development build' : 'production build';
}

/** Part 3 (or 1) alone, alternately for each variant, each on a history of its own. */
async function compare(root: string): Promise<void> {
  const rounds = Number(flags.rounds ?? 1);
  const results: Record<string, Array<Record<string, unknown>>> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [i, variant] of (round % 2 ? [...variants].reverse() : variants).entries()) {
      const tag = `${round}-${i}`;
      const load = os.loadavg()[0]!.toFixed(1);
      if (flags.only === 'latency') {
        const through = await latencyThroughHost(root, variant.nodeFlags);
        (results[variant.name] ??= []).push(through);
        console.log(`${variant.name}: event → Runs view through the host p50 ${through.p50Ms} ms, p95 ${through.p95Ms} ms, p99 ${through.p99Ms} ms; host CPU ${through.hostCpuPercent}%; load ${load}`);
        continue;
      }
      const dataHome = path.join(root, `data-${tag}`);
      await history(path.join(dataHome, 'subagents'));
      const full = await realHost(root, dataHome, 10, variant.dist, variant.nodeFlags);
      const empty = await realHost(root, path.join(root, `empty-${tag}`), 1, variant.dist, variant.nodeFlags);
      (results[variant.name] ??= []).push({ full, empty });
      console.log(`${variant.name} (${buildOf(variant.dist)}): idle host RSS ${String(full.idleRssMB)} MB holding ${String(full.runs)} runs after 10 reconnects (3 s after: ${String(full.idleRss3sMB)}; peak ${String(full.peakRssMB)}; at rest: ${String(full.idleMemory)}); ${String(empty.idleRssMB)} MB with an empty history (3 s after: ${String(empty.idleRss3sMB)}); load ${load}`);
    }
  }
  await writeResults(`host-${flags.only ?? 'memory'}`, { loadAverage: os.loadavg()[0]!, results });
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'subagents-bench-host-'));
  try {
    if (flags.only || variants.length > 1) return await compare(root);
    const load = os.loadavg()[0]!;
    const through = await latencyThroughHost(root);
    console.log(`event → Runs view through the host, ${EVENTS_PER_SECOND}/s for ${SECONDS} s: p50 ${through.p50Ms} ms, p95 ${through.p95Ms} ms, p99 ${through.p99Ms} ms (max ${through.maxMs}); ${through.postsPerSecond} messages/s; host CPU ${through.hostCpuPercent}%, window CPU ${through.windowCpuPercent}%`);
    const inWindow = await latencyInWindow();
    console.log(`the same in a window's own runtime (no host): p50 ${inWindow.p50Ms} ms, p95 ${inWindow.p95Ms} ms`);
    const dataHome = path.join(root, 'data');
    await history(path.join(dataHome, 'subagents'));
    const full = await realHost(root, dataHome, 10);
    console.log(`reconnect to a full Runs view, ${String(full.runs)} runs in the history: median ${String(full.reconnectMedianMs)} ms, p95 ${String(full.reconnectP95Ms)} ms (first message ${String(full.firstMessageKB)} KB; every run whole: median ${String(full.wholeMedianMs)} ms, p95 ${String(full.wholeP95Ms)} ms); idle host RSS ${String(full.idleRssMB)} MB 30 s after the last client left (${String(full.idleRss3sMB)} MB 3 s after; peak ${String(full.peakRssMB)} MB; at rest: ${String(full.idleMemory)}; ${buildOf()}); host start ${String(full.hostStartMs)} ms; load ${os.loadavg()[0]!.toFixed(1)}`);
    const empty = await realHost(root, path.join(root, 'empty'), 1);
    console.log(`idle host with an empty history: RSS ${String(empty.idleRssMB)} MB (${String(empty.idleRss3sMB)} MB 3 s after; peak ${String(empty.peakRssMB)} MB; at rest: ${String(empty.idleMemory)}; ${buildOf()}); host start ${String(empty.hostStartMs)} ms; load ${os.loadavg()[0]!.toFixed(1)}`);
    await writeResults('host', { loadAverage: load, build: buildOf(), throughHost: through, inWindow, withHistory: full, emptyHistory: empty });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
