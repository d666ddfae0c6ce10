/**
 * Spawn latency: how long an agent waits before its first model request.
 *
 * (a) A subagent, in one running process (the engine as the CLI and the
 *     extension run it): from the lead's `Task` call starting to the
 *     child's first request reaching the model server, on a committed
 *     repository of 20,000 files, three kinds alternated sample by sample:
 *     without isolation; isolated, from a warm pool (the pool's upkeep ran
 *     between two spawns, as it does between a user's runs); isolated, cold
 *     (the pool emptied first: a whole checkout). Targets: ≤ 20 ms without
 *     isolation, ≤ 100 ms from a warm pool.
 * (b) A top-level run from the CLI: from spawning `subagents run <agent>
 *     <prompt> --json` to its first request reaching the server, against
 *     `node -e 0` (spawn to exit) and one request's round trip (a new
 *     connection, a request, the whole streamed answer, from this process),
 *     in rotated order round by round. Target: ≤ 2 × `node -e 0` + one
 *     round trip. A fresh user (empty home, a project with one agent file).
 *     Two ways: the CLI running the agent in its own process (no agent host,
 *     `cli`), and the CLI as a client of a running agent host (a user with
 *     VS Code open, `cliViaHost`: the host started once, before the rounds).
 *
 *   node_modules/node/bin/node --import tsx bench/spawnLatency.ts [--files=20000] [--samples=15] [--cold-samples=3] [--rounds=21] [--only=spawn,cli] [--cli=path/to/cli.js] [--against=path/to/other/cli.js]
 *
 * `--against` times another build's in-process run in the same rounds,
 * rotated with this one's (a before-and-after at the same load; copy the
 * other build's `dist/`, `agents/` and `package.json` together, so that it
 * discovers the same bundled agents).
 *
 * (b) runs the build: `node scripts/build.mjs --production` first. Writes
 * bench/results/spawnLatency.json and prints Markdown rows.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Engine } from '../src/core/engine/engine';
import { WorktreeManager } from '../src/core/isolation';
import { agent, catalogOf, settings } from '../test/support/agents';
import { startScriptedServer, type Reply, type ScriptedRequest } from '../test/support/scriptedServer';
import { makeFilesRepo } from './lib/filesRepo';
import { loadAverage as load, rotatedRounds, timeProcess } from './lib/processes';
import { benchmark, median } from './lib/results';
import { roundTrip } from './lib/roundTrip';

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const FILES = Number(arg('files', '20000'));
const SAMPLES = Number(arg('samples', '15'));
const COLD_SAMPLES = Number(arg('cold-samples', '3'));
const ROUNDS = Number(arg('rounds', '21'));
const ONLY = arg('only', 'spawn,cli').split(',');
// --cli=path/to/cli.js: another build of the CLI (an earlier one, for a before-and-after at the same load).
const CLI = path.resolve(arg('cli', path.join(import.meta.dirname, '../dist/cli.js')));
// --against=path/to/cli.js: a second build whose in-process run is timed in the same rounds, alternated with this one's.
const AGAINST_ARG = arg('against', '');
const AGAINST = AGAINST_ARG ? path.resolve(AGAINST_ARG) : null;
const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { medianMs: Number(median(xs).toFixed(1)), p90Ms: Number(sorted[Math.min(sorted.length - 1, Math.floor(0.9 * sorted.length))]!.toFixed(1)), samples: xs.length };
};

async function spawnLatency(root: string) {
  const repo = makeFilesRepo(root, FILES);
  let kind: 'plain' | 'warm' | 'cold' = 'plain';
  let spawnedAt = 0;
  let firstAt = 0;
  const script = (req: ScriptedRequest): Reply => {
    if (req.system.includes('[agent:lead]')) {
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'looker', description: 'look', prompt: 'look around', ...(kind === 'plain' ? {} : { isolation: 'worktree' }) } }] };
      return { text: 'done' };
    }
    if (req.turn === 0 && !firstAt) firstAt = performance.now();
    return { text: 'nothing to change' };
  };
  const server = await startScriptedServer(script, { record: false });
  const manager = new WorktreeManager({ stateDir: path.join(root, 'state'), worktreesRoot: path.join(root, 'worktrees'), poolSize: () => 4, poolGrows: () => true });
  const engine = new Engine({
    client: new Anthropic({ apiKey: 'bench', baseURL: server.url, maxRetries: 0 }),
    catalog: catalogOf(agent('lead', { tools: ['Task'] }), agent('looker', { tools: ['Read'], spawns: [] })),
    settings: settings({ maxConcurrency: 4 }),
    worktrees: manager,
  });
  engine.onEvent((e) => {
    if (e.type === 'tool_started' && e.name === 'Task') spawnedAt = performance.now();
  });
  const samples = { plain: [] as number[], warm: [] as number[], cold: [] as number[] };
  const once = async (k: typeof kind) => {
    kind = k;
    if (k === 'cold') {
      await manager.emptyPool();
      await manager.maintain({ wait: true });
    }
    firstAt = 0;
    const result = await (await engine.start({ agent: 'lead', prompt: 'look', cwd: repo })).done;
    if (result.status !== 'completed') throw new Error(`lead ${result.status}: ${result.error}`);
    const ms = firstAt - spawnedAt;
    // What a user's machine does between two runs: the pool's upkeep cleans what came back.
    await manager.maintain({ wait: true });
    return ms;
  };
  try {
    // Warm-up: code paths compiled, one pooled worktree made.
    await once('warm');
    await once('plain');
    for (let i = 0; i < SAMPLES; i++) {
      samples.plain.push(await once('plain'));
      samples.warm.push(await once('warm'));
      if (i < COLD_SAMPLES) samples.cold.push(await once('cold'));
    }
  } finally {
    await server.close();
    await manager.emptyPool();
    await manager.maintain({ wait: true });
    manager.dispose();
  }
  return { files: FILES, withoutIsolation: stats(samples.plain), warmPool: stats(samples.warm), cold: stats(samples.cold), load: load() };
}

async function cliFirstRequest(root: string) {
  let firstAt = 0;
  const server = await startScriptedServer(() => {
    firstAt ||= performance.now();
    return { text: 'done' };
  }, { record: false });
  const project = path.join(root, 'project');
  const home = path.join(root, 'home');
  mkdirSync(path.join(project, '.claude', 'agents'), { recursive: true });
  mkdirSync(home);
  writeFileSync(path.join(project, '.claude', 'agents', 'helper.md'), '---\nname: helper\ndescription: Answers\ntools: Read\n---\nYou answer.\n');
  // An agent host folder of the benchmark's own: never a host of the machine's user.
  const runtimeDir = path.join(root, 'run');
  mkdirSync(runtimeDir, { mode: 0o700 });
  const env = { PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: runtimeDir, ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.url, SUBAGENTS_NO_BACKGROUND: '1' };
  const ownProcess = { ...env, SUBAGENTS_NO_HOST: '1' };
  const inProcess = (cli: string) => () => {
    firstAt = 0;
    return timeProcess([cli, 'run', 'helper', 'hello', '--json'], { cwd: project, env: ownProcess }, () => firstAt);
  };
  const runs: Record<string, () => Promise<number>> = {
    node: () => timeProcess(['-e', '0'], { cwd: project, env }),
    cli: inProcess(CLI),
    ...(AGAINST ? { against: inProcess(AGAINST) } : {}),
    cliViaHost: () => {
      firstAt = 0;
      return timeProcess([CLI, 'run', 'helper', 'hello', '--json'], { cwd: project, env }, () => firstAt);
    },
    roundTrip: () => roundTrip(server.url),
  };
  let rounds;
  try {
    await timeProcess([CLI, 'host', 'start'], { cwd: project, env });
    // Mirrored: the two builds' runs follow each other as often one way as the other.
    rounds = await rotatedRounds(runs, ROUNDS, { mirrored: AGAINST !== null });
  } finally {
    await timeProcess([CLI, 'host', 'stop', '--force'], { cwd: project, env }).catch(() => 0);
    await server.close();
  }
  const times = (key: string) => rounds.map((r) => r[key]!);
  const ratio = (key: string) => median(rounds.map((r) => r[key]! / (2 * r.node! + r.roundTrip!)));
  // One line with the figures and the load, for the table in bench/README.md.
  console.log(
    `CLI first request: in its own process ${median(times('cli')).toFixed(0)} ms = ${ratio('cli').toFixed(2)}× the bound, through a running host ${median(times('cliViaHost')).toFixed(0)} ms = ${ratio('cliViaHost').toFixed(2)}× (bound 2 × node -e 0 ${median(times('node')).toFixed(0)} ms + a round trip ${median(times('roundTrip')).toFixed(1)} ms; ${ROUNDS} rounds; load ${load()})`,
  );
  if (AGAINST) {
    const paired = median(rounds.map((r) => r.cli! / r.against!));
    console.log(`  against ${AGAINST_ARG}, in its own process in the same rounds: ${median(times('against')).toFixed(0)} ms = ${ratio('against').toFixed(2)}× the bound; this build / that one, paired by round: ${paired.toFixed(3)}`);
  }
  return {
    nodeE0: stats(times('node')),
    roundTrip: stats(times('roundTrip')),
    cliFirstRequest: stats(times('cli')),
    cliViaHostFirstRequest: stats(times('cliViaHost')),
    // The target is 2 × node -e 0 + one round trip; paired within a round.
    ratioToTarget: Number(ratio('cli').toFixed(3)),
    viaHostRatioToTarget: Number(ratio('cliViaHost').toFixed(3)),
    ...(AGAINST ? { against: { cli: AGAINST_ARG, firstRequest: stats(times('against')), ratioToTarget: Number(ratio('against').toFixed(3)) } } : {}),
    load: load(),
  };
}

benchmark(arg('out', 'spawnLatency'), async (scratch, results) => {
  if (ONLY.includes('spawn')) results.spawn = await spawnLatency(scratch);
  if (ONLY.includes('cli')) results.cli = await cliFirstRequest(scratch);
});
