/**
 * Lifecycle benchmark: a parent launches 200 background agents of
 * 5 turns each against the scripted server (in its own process, 20 ms per
 * answer), in one runtime: the engine, the run store batching as the
 * extension's does, the history on disk, and the Runs view's own feed and
 * pump (src/surfaces/views/runsFeed.ts) deciding what the webview would be
 * sent. Measured in one run, sampled every 100 ms:
 *  - every agent completes;
 *  - memory: heap and RSS at peak against the start, per agent, and the size
 *    of the store's snapshots (what the UI and the history hold);
 *  - event-loop lag (perf_hooks' delay histogram, 10 ms resolution): p50,
 *    p99, max;
 *  - persistence: snapshot files written per second (debounced) against the
 *    events per second the engine produced;
 *  - the UI-facing stream: store notifications and Runs view messages per
 *    second against events per second (coalescing). The frames those
 *    messages cost in the webview are bench/runsView.ts's.
 *
 * Run: node_modules/.bin/node --expose-gc --import tsx bench/lifecycle.ts
 */
import Anthropic from '@anthropic-ai/sdk';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Engine } from '../src/core/engine/engine';
import { RunHistory } from '../src/core/runs/history';
import { RunStore } from '../src/core/runs/runStore';
import { FeedPump, RunsFeed } from '../src/surfaces/views/runsFeed';
import { agentViewOf, runHeader } from '../src/surfaces/views/viewModel';
import { agent, catalogOf, settings } from '../test/support/agents';
import { writeResults } from './lib/results';
import { startServerProcess } from './lib/serverProcess';

const CHILDREN = 200;
const TURNS = 5;

async function main() {
  const server = await startServerProcess('background', { children: CHILDREN, childTurns: TURNS, latencyMs: 20 });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-lifecycle-'));
  let writes = 0;
  let notifications = 0;
  const history = await RunHistory.open({ dir: path.join(dir, 'history'), retentionDays: 30, maxRuns: 200, onWrite: () => writes++ });
  // As the extension builds it: 100 ms batches, the Runs view's feed and pump.
  const store = new RunStore({ coalesceMs: 100, maxEventsPerRun: 2000 });
  store.subscribe(() => notifications++);
  history.attach(store);
  let messages = 0;
  let messageBytes = 0;
  const feed = new RunsFeed({ runs: () => store.list(), run: (id) => store.get(id), header: (run) => runHeader(run, null), agentView: (node) => agentViewOf(node, () => undefined), shown: () => true });
  const pump = new FeedPump(feed, (message) => {
    messages++;
    messageBytes += JSON.stringify(message).length;
  });
  pump.start();
  store.subscribe((changed) => pump.changed(changed));
  const engine = new Engine({
    client: new Anthropic({ apiKey: 'bench', baseURL: server.url, maxRetries: 0 }),
    catalog: catalogOf(agent('parent', { tools: ['Task', 'TaskOutput'] }), agent('child', { tools: ['LS'], spawns: [] })),
    settings: settings({ maxConcurrency: 32, maxBackgroundAgents: 256 }),
    archive: history,
  });
  let events = 0;
  engine.onEvent((e) => {
    events++;
    store.apply(e);
  });

  global.gc?.();
  const start = process.memoryUsage();
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  let peakHeap = start.heapUsed;
  let peakRss = start.rss;
  const perSecond: Array<{ events: number; notifications: number; writes: number; messages: number }> = [];
  let last = { events: 0, notifications: 0, writes: 0, messages: 0 };
  let ticks = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
    if (++ticks % 10 === 0) {
      const now = { events, notifications, writes, messages };
      perSecond.push({ events: now.events - last.events, notifications: now.notifications - last.notifications, writes: now.writes - last.writes, messages: now.messages - last.messages });
      last = now;
    }
  }, 100);

  const started = performance.now();

  // Each 10 ms tick: how late it came, and how much of that the main thread spent waiting for a core (the
  // scheduler's run-queue wait, Linux's schedstat) rather than running: on a busy machine most of a long stall can be
  // the process not being run at all, which no change to its own work removes.
  const ticks10: Array<{ at: number; lag: number; waited: number }> = [];
  let expected = performance.now() + 10;
  let waitedBefore = runQueueWaitMs();
  const tracer = setInterval(() => {
    const now = performance.now();
    const waitedNow = runQueueWaitMs();
    ticks10.push({ at: now - started, lag: Math.max(0, now - expected), waited: Math.max(0, (waitedNow ?? 0) - (waitedBefore ?? 0)) });
    waitedBefore = waitedNow;
    expected = now + 10;
  }, 10);
  const result = await engine.run({ agent: 'parent', prompt: 'launch the jobs', cwd: dir });
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  clearInterval(tracer);
  const lags = ticks10.map((t) => t.lag);
  const ownLags = ticks10.map((t) => Math.max(0, t.lag - t.waited));
  if (process.env.LAG_TRACE) console.log('slow ticks [ms since start, lag, of it waiting for a core]:', JSON.stringify(ticks10.filter((t) => t.lag > 40).map((t) => [t.at, t.lag, t.waited].map(Math.round))));
  lag.disable();
  pump.dispose();
  await history.flush();
  if (result.status !== 'completed') throw new Error(`${result.status}: ${result.error}`);
  const run = store.get(result.runId)!;
  const agents = Object.values(run.agents);
  if (agents.length !== CHILDREN + 1 || agents.some((a) => a.status !== 'completed')) throw new Error('not every agent completed');

  const snapshotBytes = JSON.stringify(run).length;
  const peak = <K extends keyof (typeof perSecond)[number]>(k: K) => Math.max(...perSecond.map((s) => s[k]));
  const results = {
    agents: CHILDREN,
    turnsEach: TURNS,
    wallMs,
    events,
    memory: {
      heapStartMB: start.heapUsed / 2 ** 20,
      heapPeakMB: peakHeap / 2 ** 20,
      rssStartMB: start.rss / 2 ** 20,
      rssPeakMB: peakRss / 2 ** 20,
      snapshotKB: snapshotBytes / 1024,
      snapshotBytesPerAgent: snapshotBytes / agents.length,
      heapPerAgentMB: (peakHeap - start.heapUsed) / 2 ** 20 / CHILDREN,
      rssPerAgentMB: (peakRss - start.rss) / 2 ** 20 / CHILDREN,
    },
    eventLoopLagMs: { p50: lag.percentile(50) / 1e6, p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 },
    // The same from 10 ms ticks, with and without the time the main thread waited for a core (null: no schedstat).
    tickLagMs: { p99: percentile(lags, 99), ownP99: runQueueWaitMs() === null ? null : percentile(ownLags, 99), ownMax: Math.max(...ownLags), ticks: ticks10.length },
    runsView: { messages, peakMessagesPerSecond: peak('messages'), meanMessagesPerSecond: messages / (wallMs / 1000), bytes: messageBytes },
    load: os.loadavg()[0],
    persistence: { snapshotWrites: writes, peakWritesPerSecond: peak('writes'), meanWritesPerSecond: writes / (wallMs / 1000) },
    stream: {
      peakEventsPerSecond: peak('events'),
      peakNotificationsPerSecond: peak('notifications'),
      notifications,
    },
  };
  console.log('| measure | value |\n|---|---|');
  console.log(`| run | ${CHILDREN} background agents × ${TURNS} turns, ${events} events in ${(wallMs / 1000).toFixed(1)} s |`);
  console.log(`| heap | ${results.memory.heapStartMB.toFixed(0)} MB at start → ${results.memory.heapPeakMB.toFixed(0)} MB peak (RSS ${results.memory.rssPeakMB.toFixed(0)} MB) |`);
  console.log(`| memory per agent | heap +${(results.memory.heapPerAgentMB * 1024).toFixed(0)} KB, RSS +${(results.memory.rssPerAgentMB * 1024).toFixed(0)} KB (target ≤ 2 MB) |`);
  console.log(`| event-loop lag | p50 ${results.eventLoopLagMs.p50.toFixed(1)} ms, p99 ${results.eventLoopLagMs.p99.toFixed(1)} ms, max ${results.eventLoopLagMs.max.toFixed(1)} ms (target p99 ≤ 50 ms); load ${os.loadavg()[0]!.toFixed(1)} |`);
  if (results.tickLagMs.ownP99 !== null) console.log(`| of it the process's own work | p99 ${results.tickLagMs.ownP99.toFixed(1)} ms, max ${results.tickLagMs.ownMax.toFixed(1)} ms (each 10 ms tick's lateness less the time its main thread waited for a core; all of it: p99 ${results.tickLagMs.p99.toFixed(1)} ms) |`);
  console.log(`| Runs view | ${messages} messages, peak ${results.runsView.peakMessagesPerSecond}/s (target ≤ 30/s), ${(messageBytes / 1024).toFixed(0)} KB |`);
  console.log(`| store snapshot | ${results.memory.snapshotKB.toFixed(0)} KB for the tree (${results.memory.snapshotBytesPerAgent.toFixed(0)} B per agent) |`);
  console.log(`| persistence | ${writes} snapshot writes; peak ${results.persistence.peakWritesPerSecond}/s (debounced) vs ${results.stream.peakEventsPerSecond} events/s |`);
  console.log(`| UI stream | peak ${results.stream.peakNotificationsPerSecond} updates/s (coalesced) vs ${results.stream.peakEventsPerSecond} events/s |`);
  await writeResults('lifecycle', results);
  await server.close();
  await rm(dir, { recursive: true, force: true });
}

/** The main thread's time waiting on the scheduler's run queue so far (Linux), in ms; null elsewhere. */
function runQueueWaitMs(): number | null {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return null;
  }
}

function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

void main();
