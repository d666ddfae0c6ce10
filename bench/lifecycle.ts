/**
 * Lifecycle benchmark: a parent launches 200 background agents of
 * 5 turns each against the scripted server (in its own process, 20 ms per
 * answer). Measured in one run, sampled every 100 ms:
 *  - memory: heap and RSS at peak against the start, and the size of the
 *    store's snapshots (what the UI and the history hold);
 *  - persistence: snapshot files written per second (debounced) against the
 *    events per second the engine produced;
 *  - the UI-facing snapshot stream: store notifications per second against
 *    events per second (coalescing).
 *
 * Run: node_modules/.bin/node --expose-gc --import tsx bench/lifecycle.ts
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/core/engine/engine';
import { RunHistory } from '../src/core/runs/history';
import { RunStore } from '../src/core/runs/runStore';
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
  const store = new RunStore({ coalesceMs: 50, maxEventsPerRun: 2000 });
  store.subscribe(() => notifications++);
  history.attach(store);
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
  let peakHeap = start.heapUsed;
  let peakRss = start.rss;
  const perSecond: Array<{ events: number; notifications: number; writes: number }> = [];
  let last = { events: 0, notifications: 0, writes: 0 };
  let ticks = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
    if (++ticks % 10 === 0) {
      const now = { events, notifications, writes };
      perSecond.push({ events: now.events - last.events, notifications: now.notifications - last.notifications, writes: now.writes - last.writes });
      last = now;
    }
  }, 100);

  const started = performance.now();
  const result = await engine.run({ agent: 'parent', prompt: 'launch the jobs', cwd: dir });
  const wallMs = performance.now() - started;
  clearInterval(sampler);
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
    },
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
  console.log(`| store snapshot | ${results.memory.snapshotKB.toFixed(0)} KB for the tree (${results.memory.snapshotBytesPerAgent.toFixed(0)} B per agent) |`);
  console.log(`| persistence | ${writes} snapshot writes; peak ${results.persistence.peakWritesPerSecond}/s (debounced) vs ${results.stream.peakEventsPerSecond} events/s |`);
  console.log(`| UI stream | peak ${results.stream.peakNotificationsPerSecond} updates/s (coalesced) vs ${results.stream.peakEventsPerSecond} events/s |`);
  await writeResults('lifecycle', results);
  await server.close();
  await rm(dir, { recursive: true, force: true });
}

void main();
