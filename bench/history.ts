/**
 * A run history of 10,000 runs (each a lead and two helpers with a dozen
 * tool rows, 4.4 KB on disk; bench/lib/historyFixture.ts) against an empty
 * one:
 *
 * (a) `subagents runs` as a process: with the 10,000 runs, with none, and
 *     `node -e 0`, rotated round by round; target ≤ 300 ms.
 * (b) start-up unaffected: `subagents run <agent> <prompt> --json`, spawn to
 *     the first model request, with the 10,000 runs and with none, paired.
 * (c) the Runs view opening in VS Code's way: the history opened as the
 *     extension opens it (the newest 500 runs read whole, the rest from the
 *     index), the store loaded, the view's feed building its first message,
 *     and that message rendered by the real webview bundle (dist/webview.js)
 *     in Chromium, timed in the page from its delivery to the end of the
 *     frame that shows the first screenful of runs, and the frame that shows
 *     every run; target ≤ 500 ms in all.
 *
 *   node_modules/node/bin/node --import tsx bench/history.ts [--runs=10000] [--rounds=11] [--only=cli,view]
 *
 * Runs the build: `node scripts/build.mjs --production` first (the webview
 * needs `npm run build` or the production build). Writes
 * bench/results/history.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../scripts/code-server.mjs';
import { RunHistory } from '../src/core/runs/history';
import { RunStore } from '../src/core/runs/runStore';
import { MIN_POST_INTERVAL_MS, RunsFeed } from '../src/surfaces/views/runsFeed';
import { agentViewOf, runHeader } from '../src/surfaces/views/viewModel';
import { RUNS_VIEW_RUNS } from '../src/core/runs/historySettings';
import { startScriptedServer } from '../test/support/scriptedServer';
import { writeHistory } from './lib/historyFixture';
import { loadAverage as load, rotatedRounds, timeProcess } from './lib/processes';
import { benchmark, median } from './lib/results';

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const RUNS = Number(arg('runs', '10000'));
const ROUNDS = Number(arg('rounds', '11'));
const ONLY = arg('only', 'cli,view').split(',');
const root = path.join(import.meta.dirname, '..');
const CLI = path.join(root, 'dist/cli.js');
const stats = (xs: number[]) => ({ medianMs: Number(median(xs).toFixed(1)), minMs: Number(Math.min(...xs).toFixed(1)), maxMs: Number(Math.max(...xs).toFixed(1)), samples: xs.length });

async function cli(scratch: string) {
  let firstAt = 0;
  const model = await startScriptedServer(() => {
    firstAt ||= performance.now();
    return { text: 'done' };
  }, { record: false });
  const project = path.join(scratch, 'project');
  mkdirSync(path.join(project, '.claude', 'agents'), { recursive: true });
  writeFileSync(path.join(project, '.claude', 'agents', 'helper.md'), '---\nname: helper\ndescription: Answers\ntools: Read\n---\nYou answer.\n');
  const env = (data: string) => ({ PATH: process.env.PATH, HOME: path.join(scratch, 'home'), XDG_DATA_HOME: data, XDG_CONFIG_HOME: path.join(scratch, 'config'), ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: model.url, SUBAGENTS_NO_BACKGROUND: '1' });
  const full = env(path.join(scratch, 'full'));
  const empty = env(path.join(scratch, 'empty'));
  const first = (e: NodeJS.ProcessEnv) => {
    firstAt = 0;
    return timeProcess([CLI, 'run', 'helper', 'hello', '--json'], { env: e, cwd: project }, () => firstAt);
  };
  const runs = {
    runsFull: () => timeProcess([CLI, 'runs'], { env: full, cwd: project }),
    runsEmpty: () => timeProcess([CLI, 'runs'], { env: empty, cwd: project }),
    node: () => timeProcess(['-e', '0'], { env: full, cwd: project }),
    runFull: () => first(full),
    runEmpty: () => first(empty),
  };
  let rounds;
  try {
    rounds = await rotatedRounds(runs, ROUNDS);
  } finally {
    await model.close();
  }
  const times = (key: keyof typeof runs) => rounds.map((r) => r[key]);
  return {
    runsWithHistory: stats(times('runsFull')),
    runsEmptyHistory: stats(times('runsEmpty')),
    nodeE0: stats(times('node')),
    runFirstRequestWithHistory: stats(times('runFull')),
    runFirstRequestEmptyHistory: stats(times('runEmpty')),
    // Paired within a round: load drifts between rounds far more than within one.
    startupAddedByHistoryMs: Number(median(rounds.map((r) => r.runFull - r.runEmpty)).toFixed(1)),
  };
}

/** The page: the webview bundle as VS Code loads it, and a way to time one message from delivery to painted frame. */
const page = (origin: string) => `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<link rel="stylesheet" href="${origin}/codicon.css"><link rel="stylesheet" href="${origin}/webview.css">
<script>
  window.__posted = [];
  window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => undefined, setState: () => undefined });
  // From delivery to the end of the frame in which the first screenful of runs (\`screen\`), then every run, has its row in
  // the page (the view renders in frames of a few milliseconds each).
  // The messages come as the feed's pump posts them: the first at once, each next one an interval later.
  window.__show = (messages, runs, screen, interval) => new Promise((resolve) => {
    const start = performance.now();
    let first = 0;
    messages.forEach((message, i) => (i ? setTimeout(() => window.postMessage(message, '*'), i * interval) : window.postMessage(message, '*')));
    const after = (then) => { const c = new MessageChannel(); c.port1.onmessage = () => then(performance.now() - start); c.port2.postMessage(0); };
    const frame = () => {
      const shown = document.querySelectorAll('[data-agent-id]').length;
      if (!first && shown >= Math.min(screen, runs)) after((ms) => (first = ms));
      if (shown < runs) return requestAnimationFrame(frame);
      after((all) => resolve({ first: first || all, all }));
    };
    requestAnimationFrame(frame);
  });
</script></head><body class="vscode-dark"><div id="root"></div><script src="${origin}/webview.js"></script></body></html>`;

async function runsView(historyDir: string) {
  const t0 = performance.now();
  const history = await RunHistory.open({ dir: historyDir, retentionDays: 30, maxRuns: RUNS, loadRuns: RUNS_VIEW_RUNS });
  const openMs = performance.now() - t0;
  const store = new RunStore({ coalesceMs: 100, maxRuns: RUNS });
  history.attach(store);
  // The feed as the view has it (a page of runs per post), and as it was: every run in the first message.
  const feedOf = (pageSize?: number) => {
    const t1 = performance.now();
    const feed = new RunsFeed({ runs: () => store.list(), run: (id) => store.get(id), header: (run) => runHeader(run, null), agentView: (node) => agentViewOf(node, () => undefined), shown: () => true }, pageSize);
    feed.reset();
    const messages = [feed.take(Date.now())!];
    const ms = performance.now() - t1;
    for (let next = feed.take(Date.now()); next; next = feed.take(Date.now())) messages.push(next);
    return { messages, ms, firstKB: Math.round(JSON.stringify(messages[0]).length / 1024), allKB: Math.round(messages.reduce((n, m) => n + JSON.stringify(m).length, 0) / 1024) };
  };
  const feeds = { paged: feedOf(), whole: feedOf(Infinity) };

  const dist = path.join(root, 'dist');
  const server = createServer((req, res) => {
    const file = new URL(req.url ?? '/', 'http://x').pathname.slice(1) || 'index.html';
    if (file === 'index.html') return res.writeHead(200, { 'content-type': 'text/html' }).end(page(origin));
    const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'font/ttf';
    if (!/^[\w.-]+$/.test(file)) return res.writeHead(404).end();
    let body: Buffer;
    try {
      body = readFileSync(path.join(dist, file));
    } catch {
      return res.writeHead(404).end();
    }
    res.writeHead(200, { 'content-type': type }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const shown = { paged: { first: [] as number[], all: [] as number[] }, whole: { first: [] as number[], all: [] as number[] } };
  try {
    // Alternated, so both see the same load.
    for (let i = 0; i < 10; i++) {
      const kind = i % 2 ? 'whole' : 'paged';
      const { messages } = feeds[kind];
      const tab = await browser.newPage({ viewport: { width: 300, height: 700 } });
      await tab.goto(`${origin}/index.html`);
      await tab.waitForFunction(() => (globalThis as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'ready'));
      const runs = messages[0]!.type === 'runs' ? messages[0]!.order.length : 0;
      if (runs === 0) throw new Error('the view was sent no run');
      // 700 px of rows of about 22 px: the runs a user sees first.
      const times = await tab.evaluate(([m, n, interval]) => (globalThis as unknown as { __show(m: unknown[], n: number, screen: number, interval: number): Promise<{ first: number; all: number }> }).__show(m, n, 32, interval), [messages as unknown[], runs, MIN_POST_INTERVAL_MS] as const);
      shown[kind].first.push(times.first);
      shown[kind].all.push(times.all);
      await tab.close();
    }
  } finally {
    await browser.close();
    server.close();
  }
  const summary = (kind: keyof typeof feeds) => ({
    messages: feeds[kind].messages.length,
    firstMessageKB: feeds[kind].firstKB,
    allMessagesKB: feeds[kind].allKB,
    storeAndFeedMs: Number(feeds[kind].ms.toFixed(1)),
    firstScreenMs: stats(shown[kind].first),
    everyRunMs: stats(shown[kind].all),
    toFirstScreenMs: Number((openMs + feeds[kind].ms + median(shown[kind].first)).toFixed(1)),
    toEveryRunMs: Number((openMs + feeds[kind].ms + median(shown[kind].all)).toFixed(1)),
  });
  return { runsInStore: store.list().length, historyOpenMs: Number(openMs.toFixed(1)), paged: summary('paged'), wholeBefore: summary('whole'), load: load() };
}

benchmark(arg('out', 'history'), async (scratch, results) => {
  results.runs = RUNS;
  const t0 = performance.now();
  const written = writeHistory(path.join(scratch, 'full', 'subagents'), RUNS);
  mkdirSync(path.join(scratch, 'empty', 'subagents'), { recursive: true });
  mkdirSync(path.join(scratch, 'config', 'subagents'), { recursive: true });
  mkdirSync(path.join(scratch, 'home'), { recursive: true });
  // The user keeps that many runs.
  writeFileSync(path.join(scratch, 'config', 'subagents', 'settings.json'), JSON.stringify({ 'history.maxRuns': RUNS }));
  // The index is written by the first open (every file read once, as after an upgrade); what is measured is every open after.
  await (await RunHistory.open({ dir: path.join(scratch, 'full', 'subagents'), retentionDays: 30, maxRuns: RUNS, loadRuns: 0 })).ready();
  console.error(`${RUNS} runs (${Math.round(written.bytes / 2 ** 20)} MB) ready in ${Math.round(performance.now() - t0)} ms (load ${load()})`);
  results.historyMB = Number((written.bytes / 2 ** 20).toFixed(1));
  if (ONLY.includes('cli')) {
    const c = await cli(scratch);
    results.cli = c;
    console.log(`subagents runs, ${RUNS} runs: ${c.runsWithHistory.medianMs} ms (empty history ${c.runsEmptyHistory.medianMs} ms, node -e 0 ${c.nodeE0.medianMs} ms; target ≤ 300; load ${load()})`);
  }
  if (ONLY.includes('view')) {
    const view = await runsView(path.join(scratch, 'full', 'subagents'));
    results.runsView = view;
    console.log(`Runs view open, ${RUNS} runs: first screen ${view.paged.toFirstScreenMs} ms (history ${view.historyOpenMs} + feed ${view.paged.storeAndFeedMs} + page ${view.paged.firstScreenMs.medianMs}), every run ${view.paged.toEveryRunMs} ms; all in one message as before: ${view.wholeBefore.toFirstScreenMs} / ${view.wholeBefore.toEveryRunMs} ms (target ≤ 500; load ${view.load})`);
  }
});
