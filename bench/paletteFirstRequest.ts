/**
 * The first request of a run started from the command palette, as a user
 * starts it: real VS Code (code-server with the packaged extension, default
 * settings, so the run goes to the agent host), "Subagents: Run Agent…", the
 * agent picked, the task typed; measured from the Enter that submits the
 * task to the scripted model server receiving the run's first request. Each
 * round also times a bare round trip to the same server from this process
 * (a new connection, one streamed request): what a request costs at least.
 * The first run of the session is a warm-up (it starts the agent host).
 *
 * Run: node_modules/node/bin/node --import tsx bench/paletteFirstRequest.ts [--rounds=15]   (after `npm run package`)
 * Writes bench/results/paletteFirstRequest.json and prints one line.
 */
import os from 'node:os';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { poll, type Subject } from '../test/e2e/support/diagnostics';
import { copySampleWorkspace, ensureCodeServerReady, ensureVsix } from '../test/e2e/support/product';
import { closeSession, openSession, scriptedModelSession, type Session } from '../test/e2e/support/session';
import { startScriptedServer } from '../test/support/scriptedServer';
import { median, writeResults } from './lib/results';
import { roundTrip } from './lib/roundTrip';

const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 15);
const AGENT = '---\nname: helper\ndescription: Answers\ntools: Read\n---\nYou answer.\n';
const load = () => +os.loadavg()[0]!.toFixed(2);

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

async function main(): Promise<void> {
  ensureCodeServerReady();
  const vsixPath = ensureVsix();
  const workspace = copySampleWorkspace();
  mkdirSync(path.join(workspace.dir, '.claude', 'agents'), { recursive: true });
  writeFileSync(path.join(workspace.dir, '.claude', 'agents', 'helper.md'), AGENT);
  workspace.commit('the benchmark agent');
  // The first request of each round's run, by the round its task names.
  const firstAt = new Map<number, number>();
  const server = await startScriptedServer(
    (req) => {
      const round = /\[round (\d+)\]/.exec(req.lastUserText)?.[1];
      if (round !== undefined && req.turn === 0 && !firstAt.has(Number(round))) firstAt.set(Number(round), performance.now());
      return { text: 'done' };
    },
    { record: false },
  );
  const subject: Subject = {};
  const parts: Partial<Session> = {};
  const samples: number[] = [];
  const trips: number[] = [];
  const loadBefore = load();
  try {
    const { workbench } = await openSession(scriptedModelSession(workspace.dir, vsixPath, server.url, 'bench-palette'), subject, parts);
    await workbench.openViewContainer('Subagents');
    const input = workbench.page.locator('.quick-input-widget .quick-input-box input');
    for (let round = 0; round <= ROUNDS; round++) {
      await workbench.runCommand('Subagents: Run Agent…', { opensQuickInput: true });
      await workbench.pick('Subagents: Run Agent', 'helper', { opensQuickInput: true });
      await workbench.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Subagents: Run helper' }).waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill(`Say hello [round ${round}]`);
      const submitted = performance.now();
      await workbench.page.keyboard.press('Enter');
      const at = await poll(() => firstAt.get(round), { timeoutMs: 60_000, intervalMs: 2, message: `round ${round}'s first request never came` });
      // Round 0 starts the agent host: a warm-up, not a sample.
      if (round > 0) {
        samples.push(at - submitted);
        trips.push(await roundTrip(server.url));
      }
      // The run ends (one answer) before the next starts.
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  } finally {
    await closeSession(parts);
    await server.close();
    workspace.remove();
  }
  const results = {
    method: 'code-server with the packaged extension (default settings: the run goes to the agent host); Run Agent… from the palette; from the Enter that submits the task to the first request at the scripted model server',
    rounds: ROUNDS,
    firstRequest: { medianMs: +median(samples).toFixed(1), p90Ms: +percentile(samples, 0.9).toFixed(1), minMs: +Math.min(...samples).toFixed(1), maxMs: +Math.max(...samples).toFixed(1), samples: samples.map((s) => +s.toFixed(1)) },
    roundTrip: { medianMs: +median(trips).toFixed(2) },
    load: { before: loadBefore, after: load() },
  };
  await writeResults('paletteFirstRequest', results);
  console.log(`Palette first request: ${results.firstRequest.medianMs} ms median (p90 ${results.firstRequest.p90Ms}, ${ROUNDS} rounds) from the Enter to the first request; a bare round trip ${results.roundTrip.medianMs} ms; load ${loadBefore} → ${results.load.after}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
