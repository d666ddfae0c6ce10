/**
 * MCP benchmark: how long an agent waits, from its start, for
 * the tool list of its MCP server. The server is the tests' own
 * (test/support/mcp/testServer.mjs: Node and the official SDK over stdio),
 * so most of what is measured is that server starting; the floor below says
 * how much.
 *
 * (a) cold, the CLI: `subagents run` of an agent with one stdio server
 *     against the same agent without it, as whole processes; the time from
 *     spawning the CLI to the model's first request (which carries the MCP
 *     tools), and the difference paired within each round: what the server
 *     adds to a CLI run (evaluating dist/mcp.cjs, the server's process, the
 *     handshake, tools/list).
 * (b) in one process (VS Code's case: the extension host stays up), through
 *     the McpHost the CLI and the extension share: a new run tree asking for
 *     the agent's tools, the first time in the process (the SDK evaluated
 *     then; here from source through tsx, slower than the bundle) and after
 *     (warm: the server the tree before kept running); a tree that gets no
 *     kept server (a new server process, the SDK loaded); and a second agent
 *     of the same tree asking for the same server (the connection is
 *     shared).
 * (c) the floor: the same server started and listed by the SDK's own
 *     StdioClientTransport, nothing of ours; `node -e 0` for scale; and what
 *     evaluating dist/mcp.cjs costs a fresh process.
 *
 * Rounds interleave (a) in a rotated order after one untimed round, so load
 * bursts fall on both alike; medians. BENCH_ROUNDS (default 15).
 *
 * Run: node_modules/.bin/node --import tsx bench/mcp.ts
 * Builds nothing: run `node scripts/build.mjs --production` first.
 * Writes bench/results/mcp.json and prints a table.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { stdioServer, yaml } from '../test/support/mcp/servers';
import { startScriptedServer } from '../test/support/scriptedServer';
import { median, writeResults } from './lib/results';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const PROBE_PROCESSES = 5;
const root = path.resolve(import.meta.dirname, '..');
const CLI = path.join(root, 'dist/cli.js');

function loadAverage(): number[] {
  return os.loadavg().map((l) => +l.toFixed(2));
}

function summary(times: number[]) {
  return { medianMs: +median(times).toFixed(1), minMs: +Math.min(...times).toFixed(1), maxMs: +Math.max(...times).toFixed(1), samples: times.length };
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'subagents-bench-mcp-'));
  const model = await startScriptedServer();
  try {
    const project = path.join(scratch, 'project');
    const home = path.join(scratch, 'home');
    mkdirSync(path.join(project, '.claude/agents'), { recursive: true });
    mkdirSync(home, { recursive: true });
    const server = yaml(stdioServer('--name', 'notes'));
    writeFileSync(path.join(project, '.claude/agents/with-mcp.md'), `---\nname: with-mcp\ndescription: d\ntools: Read, mcp__notes__echo\nmcpServers:\n  - notes: ${server}\n---\nx\n`);
    writeFileSync(path.join(project, '.claude/agents/without-mcp.md'), '---\nname: without-mcp\ndescription: d\ntools: Read\n---\nx\n');
    const env = { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: path.join(home, '.cache'), XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.data'), ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: model.url };

    let arrival = 0;
    let toolNames: string[] = [];
    model.setScript((req) => {
      arrival = performance.now();
      toolNames = req.toolNames;
      return { text: 'done' };
    });
    /** Spawns `subagents run <agent>`; resolves with the time to the model's first request. */
    const cliRun = (agentName: string) =>
      new Promise<number>((resolve, reject) => {
        arrival = 0;
        const started = performance.now();
        const child = spawn(process.execPath, [CLI, 'run', agentName, 'go', '--json', '--trust-project', '--cwd', project], { env, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
        child.on('exit', (code) => {
          if (code !== 0 || arrival === 0) reject(new Error(`${agentName}: exit ${code}: ${stderr}`));
          else if (agentName === 'with-mcp' && !toolNames.includes('mcp__notes__echo')) reject(new Error(`no MCP tool in the first request: ${toolNames.join(', ')}`));
          else resolve(arrival - started);
        });
      });

    const loadBefore = loadAverage();
    // (a) interleaved, rotated, after one untimed round.
    const cli: Record<'withMcp' | 'withoutMcp', number[]> = { withMcp: [], withoutMcp: [] };
    for (let round = 0; round <= ROUNDS; round++) {
      const order = round % 2 ? (['withoutMcp', 'withMcp'] as const) : (['withMcp', 'withoutMcp'] as const);
      for (const key of order) {
        const ms = await cliRun(key === 'withMcp' ? 'with-mcp' : 'without-mcp');
        if (round > 0) cli[key].push(ms);
      }
    }
    const cliAdded = median(cli.withMcp.map((ms, i) => ms - cli.withoutMcp[i]!));

    // (b) fresh processes, each a few trees in a row.
    const firstInProcess: number[] = [];
    const warm: number[] = [];
    const shared: number[] = [];
    const fresh: number[] = [];
    for (let p = 0; p < PROBE_PROCESSES; p++) {
      const probe = spawnSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'lib/mcpProbe.ts'), String(Math.ceil(ROUNDS / PROBE_PROCESSES) + 1)], { cwd: root, encoding: 'utf8' });
      if (probe.status !== 0) throw new Error(`mcpProbe failed: ${probe.stderr}`);
      const { first, shared: again, fresh: started } = JSON.parse(probe.stdout) as { first: number[]; shared: number[]; fresh: number[] };
      firstInProcess.push(first[0]!);
      warm.push(...first.slice(1));
      shared.push(...again);
      fresh.push(...started.slice(1));
    }

    // (c) the floor.
    const sdkAlone: number[] = [];
    const bareNode: number[] = [];
    const sdkEvaluation: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      let started = performance.now();
      const client = new Client({ name: 'bench', version: '0' });
      await client.connect(new StdioClientTransport({ ...stdioServer('--name', 'notes'), stderr: 'ignore' }));
      await client.listTools();
      const ms = performance.now() - started;
      await client.close();
      started = performance.now();
      spawnSync(process.execPath, ['-e', '0']);
      const nodeMs = performance.now() - started;
      const evaluation = spawnSync(process.execPath, ['-e', "globalThis[Symbol.for('subagents.mcp.zod')] = require('zod'); const t = performance.now(); require('./dist/mcp.cjs'); console.log(performance.now() - t)"], { cwd: root, encoding: 'utf8' });
      if (evaluation.status !== 0) throw new Error(`dist/mcp.cjs: ${evaluation.stderr}`);
      if (round > 0) {
        sdkAlone.push(ms);
        bareNode.push(nodeMs);
        sdkEvaluation.push(Number(evaluation.stdout));
      }
    }

    const results = {
      server: 'test/support/mcp/testServer.mjs over stdio (Node + the official SDK), 8 tools',
      rounds: ROUNDS,
      method: 'whole CLI processes interleaved in a rotated order after one untimed round; in-process through McpHost in fresh processes; medians',
      loadAverage: { before: loadBefore, after: loadAverage() },
      cold: {
        cliFirstRequestWithMcp: summary(cli.withMcp),
        cliFirstRequestWithoutMcp: summary(cli.withoutMcp),
        addedByTheServerMs: +cliAdded.toFixed(1),
        statistic: 'median over rounds of (with − without), the same round',
      },
      inProcess: {
        firstInProcess: { ...summary(firstInProcess), note: 'the SDK evaluated from source through tsx (the bundle, dist/mcp.cjs, is the sdkEvaluation below)' },
        warm: { ...summary(warm), note: 'a new run tree: the server the tree before kept running' },
        newServer: { ...summary(fresh), note: 'a new run tree that gets no kept server: a new server process, the SDK already loaded' },
        sharedInTree: { ...summary(shared), note: 'a second agent of the same tree: the connection is shared' },
      },
      floor: {
        serverAloneWithSdkClient: { ...summary(sdkAlone), note: 'spawn + initialize + tools/list with the SDK\'s StdioClientTransport' },
        bareNode: summary(bareNode),
        sdkEvaluation: { ...summary(sdkEvaluation), note: 'require("dist/mcp.cjs") in a fresh process, zod already loaded (as the CLI and the extension have it)' },
      },
    };
    await writeResults('mcp', results);
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    const row = (name: string, s: { medianMs: number; minMs: number; maxMs: number }) => `| ${name} | ${ms(s.medianMs)} | ${ms(s.minMs)}–${ms(s.maxMs)} |`;
    console.log(
      [
        `MCP: ${ROUNDS} rounds, load average ${loadBefore.join(' / ')} before, ${results.loadAverage.after.join(' / ')} after`,
        '',
        '| measurement | median | range |',
        '|---|---|---|',
        row('CLI: spawn → first model request, with the server', results.cold.cliFirstRequestWithMcp),
        row('CLI: the same without it', results.cold.cliFirstRequestWithoutMcp),
        row('in process: first tree (tools listed)', results.inProcess.firstInProcess),
        row('in process: warm tree, the server kept (tools listed)', results.inProcess.warm),
        row('in process: a tree with no kept server (tools listed)', results.inProcess.newServer),
        row('in process: second agent, same tree', results.inProcess.sharedInTree),
        row('floor: the server alone, SDK client', results.floor.serverAloneWithSdkClient),
        row('floor: node -e 0', results.floor.bareNode),
        row('dist/mcp.cjs evaluation', results.floor.sdkEvaluation),
        '',
        `cold, the CLI: the server adds ${ms(cliAdded)} before the first model request (paired median)`,
      ].join('\n'),
    );
  } finally {
    await model.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
