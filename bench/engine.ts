/**
 * Engine benchmarks, against the scripted Messages API server:
 *
 * 1. Overhead per model turn: one agent making N tool-calling turns against a
 *    zero-latency server, through our Engine, and through a bare loop that
 *    uses only the SDK (its tool runner with the SDK's own read tool) for the
 *    same turns. Alternating runs, median of each.
 * 2. Fan-out: a parent spawns 32 children in one turn; each child makes 10
 *    turns against a server answering after 50 ms. Wall time against the
 *    latency bound for the configured concurrency, and peak memory.
 *
 * Run: node_modules/.bin/node --import tsx bench/engine.ts
 */
import Anthropic from '@anthropic-ai/sdk';
import { betaAgentToolset20260401 } from '@anthropic-ai/sdk/tools/agent-toolset/node';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/core/engine/engine';
import { RunStore } from '../src/core/runs/runStore';
import { agent, catalogOf, settings } from '../test/support/agents';
import { startScriptedServer, type Reply, type ScriptedRequest } from '../test/support/scriptedServer';
import { median, writeResults } from './lib/results';
import { startServerProcess } from './lib/serverProcess';

const TURNS = 200;
const ROUNDS = 7;

function readLoop(turns: number) {
  return (req: ScriptedRequest): Reply =>
    req.turn < turns - 1 ? { text: 'reading', toolUses: [{ name: req.toolNames.includes('Read') ? 'Read' : 'read', input: { file_path: 'notes.txt' } }] } : { text: 'done' };
}

async function engineTurns(baseURL: string, dir: string): Promise<number> {
  const client = new Anthropic({ apiKey: 'bench', baseURL, maxRetries: 0 });
  const engine = new Engine({ client, catalog: catalogOf(agent('solo', { tools: ['Read'] })), settings: settings({ maxTurns: TURNS + 5 }) });
  const store = new RunStore();
  engine.onEvent((e) => store.apply(e));
  const started = performance.now();
  const result = await engine.run({ agent: 'solo', prompt: 'read it', cwd: dir });
  const elapsed = performance.now() - started;
  if (result.status !== 'completed' || result.turns !== TURNS) throw new Error(`engine run: ${result.status} after ${result.turns} turns: ${result.error}`);
  return elapsed;
}

async function bareSdkTurns(baseURL: string, dir: string): Promise<number> {
  const client = new Anthropic({ apiKey: 'bench', baseURL, maxRetries: 0 });
  const tools = betaAgentToolset20260401({ workdir: dir }).filter((t) => t.name === 'read');
  const started = performance.now();
  const runner = client.beta.messages.toolRunner({
    model: 'claude-sonnet-5-5',
    max_tokens: 16_384,
    system: 'You are the solo agent. [agent:solo]',
    messages: [{ role: 'user', content: 'read it' }],
    tools,
    stream: true,
    thread: false,
    max_iterations: TURNS + 5,
  });
  let turns = 0;
  for await (const stream of runner) {
    await stream.finalMessage();
    turns++;
  }
  const elapsed = performance.now() - started;
  if (turns !== TURNS) throw new Error(`bare loop made ${turns} turns`);
  return elapsed;
}

async function overhead() {
  const server = await startScriptedServer(readLoop(TURNS));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-engine-'));
  await writeFile(path.join(dir, 'notes.txt'), 'line\n'.repeat(50));
  try {
    // Warm-up: JIT, connection pool.
    await engineTurns(server.url, dir);
    await bareSdkTurns(server.url, dir);
    const engine: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      engine.push(await engineTurns(server.url, dir));
      bare.push(await bareSdkTurns(server.url, dir));
    }
    const perTurn = (ms: number) => ms / TURNS;
    return {
      turns: TURNS,
      rounds: ROUNDS,
      engineMsPerTurn: perTurn(median(engine)),
      bareSdkMsPerTurn: perTurn(median(bare)),
      ratio: median(engine) / median(bare),
    };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function fanOut(concurrency: number) {
  const CHILDREN = 32;
  const CHILD_TURNS = 10;
  const LATENCY = 50;
  const server = await startServerProcess('fanOut', { children: CHILDREN, childTurns: CHILD_TURNS, latencyMs: LATENCY });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-fanout-'));
  const client = new Anthropic({ apiKey: 'bench', baseURL: server.url, maxRetries: 0 });
  const engine = new Engine({
    client,
    catalog: catalogOf(agent('parent', { tools: ['Task'] }), agent('child', { tools: ['LS'], spawns: [] })),
    settings: settings({ maxConcurrency: concurrency }),
  });
  const store = new RunStore();
  engine.onEvent((e) => store.apply(e));
  global.gc?.();
  const baseline = process.memoryUsage();
  let peakRss = baseline.rss;
  let peakHeap = baseline.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 10);
  try {
    const started = performance.now();
    const result = await engine.run({ agent: 'parent', prompt: 'split the work', cwd: dir });
    const wall = performance.now() - started;
    if (result.status !== 'completed') throw new Error(`fan-out: ${result.status}: ${result.error}`);
    const waves = Math.ceil(CHILDREN / concurrency);
    const bound = (2 + waves * CHILD_TURNS) * LATENCY;
    return {
      children: CHILDREN,
      childTurns: CHILD_TURNS,
      latencyMs: LATENCY,
      concurrency,
      wallMs: wall,
      latencyBoundMs: bound,
      ratioToBound: wall / bound,
      maxInFlightSeen: (await server.stats()).maxInFlight,
      baselineRssMB: baseline.rss / 2 ** 20,
      peakRssMB: peakRss / 2 ** 20,
      heapGrowthMB: (peakHeap - baseline.heapUsed) / 2 ** 20,
    };
  } finally {
    clearInterval(sampler);
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const SCENARIOS: Record<string, () => Promise<unknown>> = { overhead, fanOut4: () => fanOut(4), fanOut32: () => fanOut(32) };

/** Each scenario runs in a fresh process, so memory figures are its own. */
function inFreshProcess(name: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', '--import', 'tsx', import.meta.filename, name], { maxBuffer: 1 << 20 }, (error, stdout) => {
      if (error) reject(error);
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!));
    });
  });
}

async function main() {
  const scenario = process.argv[2];
  if (scenario) {
    console.log(JSON.stringify(await SCENARIOS[scenario]!()));
    return;
  }
  const o = (await inFreshProcess('overhead')) as Awaited<ReturnType<typeof overhead>>;
  const fan4 = (await inFreshProcess('fanOut4')) as Awaited<ReturnType<typeof fanOut>>;
  const fan32 = (await inFreshProcess('fanOut32')) as Awaited<ReturnType<typeof fanOut>>;
  const rows = [
    ['engine overhead per turn', `${o.engineMsPerTurn.toFixed(2)} ms/turn (engine) vs ${o.bareSdkMsPerTurn.toFixed(2)} ms/turn (bare SDK tool runner), ${o.turns} turns × ${o.rounds} rounds, median`, `${o.ratio.toFixed(2)}×`],
    ...[fan4, fan32].map((f) => [
      `fan-out ${f.children}×${f.childTurns} turns, ${f.latencyMs} ms latency, concurrency ${f.concurrency}`,
      `${(f.wallMs / 1000).toFixed(2)} s wall vs ${(f.latencyBoundMs / 1000).toFixed(2)} s bound; max ${f.maxInFlightSeen} requests in flight; peak RSS ${f.peakRssMB.toFixed(0)} MB (${f.baselineRssMB.toFixed(0)} MB at start), heap +${f.heapGrowthMB.toFixed(0)} MB`,
      `${f.ratioToBound.toFixed(2)}×`,
    ]),
  ];
  console.log('| benchmark | result | ratio |\n|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  await writeResults('engine', { overhead: o, fanOut: [fan4, fan32] });
}

void main();
