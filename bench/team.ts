/**
 * A team of eight starting from a warm pool, through the engine, on a
 * committed repository of 20,000 small files: a team file's lead spawns
 * its eight members by name in one turn; each member may edit, so each gets
 * a worktree of its own (from the pool, which a warm-up round fills). The
 * time measured is from the lead's first spawn call (its `tool_started`
 * event) to the eighth member's first model request (seen by the scripted
 * server, in this process, on the same clock). Each member answers at once
 * and goes idle; the lead then ends, its members end with it, and their
 * unchanged worktrees go back to the pool for the next round.
 *
 * Three series, alternated round by round: isolated members with
 * `maxConcurrency` 8 (all eight can work at once), isolated members with
 * the default `maxConcurrency` 4 (members 5–8 wait for a place, which the
 * first four give back when they go idle), and the same team without
 * isolation (`isolation: none`), the floor.
 *
 *   node_modules/node/bin/node --import tsx bench/team.ts [--files=20000] [--members=8] [--rounds=6]
 *
 * Writes bench/results/team.json and prints the medians.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Engine } from '../src/core/engine/engine';
import type { TeamStart } from '../src/core/engine/team/leadBrief';
import { WorktreeManager } from '../src/core/isolation';
import { agent, catalogOf, settings } from '../test/support/agents';
import { startScriptedServer, type Reply, type ScriptedRequest } from '../test/support/scriptedServer';
import { git, makeFilesRepo } from './lib/filesRepo';
import { median, writeResults } from './lib/results';

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const FILES = Number(arg('files', '20000'));
const MEMBERS = Number(arg('members', '8'));
const ROUNDS = Number(arg('rounds', '6'));
const load = () => Number((os.loadavg()[0] ?? 0).toFixed(2));

const names = Array.from({ length: MEMBERS }, (_, i) => `m${i + 1}`);

function team(isolation: 'worktree' | 'none'): TeamStart {
  return {
    info: { name: 'eight', description: 'A team of eight', filePath: '', lead: 'lead', isolation, members: names.map((name) => ({ name, agent: 'editor' })) },
    brief: 'Start every member.',
    tasks: [],
  };
}

/** One round: the lead spawns every member by name at once; each answers and goes idle; the lead ends. */
interface Clock {
  spawnAt: number | null;
  firstRequest: Map<string, number>;
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'subagents-bench-team-'));
  const clock: Clock = { spawnAt: null, firstRequest: new Map() };
  const script = (req: ScriptedRequest): Reply => {
    if (req.system.includes('[agent:lead]')) {
      if (req.turn === 0) return { toolUses: names.map((name) => ({ name: 'Task', input: { name, description: `${name} starts`, prompt: `[${name}] look around` } })) };
      return { text: req.turn === 1 ? 'waiting for the team' : 'the team is ready' };
    }
    const who = /\[(m\d+)\]/.exec(JSON.stringify(req.messages[0]?.content))?.[1] ?? '?';
    if (req.turn === 0 && !clock.firstRequest.has(who)) clock.firstRequest.set(who, performance.now());
    return { text: 'ready' };
  };
  const server = await startScriptedServer(script, { record: false });
  const manager = new WorktreeManager({ stateDir: path.join(root, 'state'), worktreesRoot: path.join(root, 'worktrees'), poolSize: () => MEMBERS });
  const engineFor = (concurrency: number) => {
    const engine = new Engine({
      client: new Anthropic({ apiKey: 'bench', baseURL: server.url, maxRetries: 0 }),
      catalog: catalogOf(agent('lead', { tools: ['Task'] }), agent('editor', { tools: ['Read', 'Write'] })),
      settings: settings({ maxConcurrency: concurrency }),
      worktrees: manager,
    });
    engine.onEvent((e) => {
      if (e.type === 'tool_started' && e.name === 'Task' && clock.spawnAt === null) clock.spawnAt = performance.now();
    });
    return engine;
  };
  const series = {
    'worktree, maxConcurrency 8': { engine: engineFor(8), isolation: 'worktree' as const, samples: [] as number[], each: [] as number[][] },
    'worktree, maxConcurrency 4': { engine: engineFor(4), isolation: 'worktree' as const, samples: [] as number[], each: [] as number[][] },
    'no isolation, maxConcurrency 8': { engine: engineFor(8), isolation: 'none' as const, samples: [] as number[], each: [] as number[][] },
  };
  const results: Record<string, unknown> = { members: MEMBERS, files: FILES, load: load() };
  try {
    const t0 = performance.now();
    const repo = makeFilesRepo(root, FILES);
    console.error(`repository of ${FILES} files ready in ${Math.round(performance.now() - t0)} ms (load ${load()})`);
    const round = async (engine: Engine, isolation: 'worktree' | 'none') => {
      clock.spawnAt = null;
      clock.firstRequest.clear();
      const lead = await engine.start({ agent: 'lead', prompt: 'Get ready.', cwd: repo, team: team(isolation) });
      const result = await lead.done;
      if (result.status !== 'completed') throw new Error(`lead ${result.status}: ${result.error}`);
      if (clock.firstRequest.size !== MEMBERS) throw new Error(`${clock.firstRequest.size} of ${MEMBERS} members made a request`);
      const each = names.map((n) => clock.firstRequest.get(n)! - clock.spawnAt!).sort((a, b) => a - b);
      return each;
    };
    // Warm-up: the first isolated round checks out the worktrees the pool keeps for the rest.
    await round(series['worktree, maxConcurrency 8'].engine, 'worktree');
    const pooled = (await manager.poolStatus()).reduce((n, r) => n + r.worktrees.length, 0);
    console.error(`warm-up done: ${pooled} worktrees pooled`);
    for (let i = 0; i < ROUNDS; i++) {
      for (const [label, s] of Object.entries(series)) {
        const each = await round(s.engine, s.isolation);
        s.samples.push(each.at(-1)!);
        s.each.push(each);
        console.error(JSON.stringify({ round: i + 1, series: label, eighthMs: Math.round(each.at(-1)!), firstMs: Math.round(each[0]!), load: load() }));
      }
    }
    if (git(repo, 'status', '--porcelain').trim()) throw new Error('the user tree changed');
    for (const [label, s] of Object.entries(series)) {
      const p90 = [...s.samples].sort((a, b) => a - b)[Math.min(s.samples.length - 1, Math.floor(0.9 * s.samples.length))]!;
      results[label] = {
        eighthMedianMs: Math.round(median(s.samples)),
        eighthP90Ms: Math.round(p90),
        firstMemberMedianMs: Math.round(median(s.each.map((e) => e[0]!))),
        perMemberMedianMs: names.map((_, k) => Math.round(median(s.each.map((e) => e[k]!)))),
        rounds: s.samples.length,
      };
    }
    results.poolAfter = (await manager.poolStatus()).reduce((n, r) => n + r.worktrees.length, 0);
  } finally {
    await server.close();
    await manager.emptyPool();
    manager.dispose();
    rmSync(root, { recursive: true, force: true });
  }
  results.loadAfter = load();
  console.log(JSON.stringify(results, null, 2));
  await writeResults('team', results);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
