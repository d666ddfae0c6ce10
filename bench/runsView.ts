/**
 * The Runs view's frame budget: a scripted tree of 200 agents
 * streams 5,000 RunEvents a second for 10 seconds into the real host-side
 * code (RunStore batching as in the extension, RunsFeed + FeedPump deciding
 * what to post; in its own process, bench/lib/runsViewHost.ts, so its CPU
 * time is measured alone), and the messages go to the real webview bundle
 * (dist/webview.js and its CSS) in Chromium, in a page shaped like the view
 * (320 × 700, VS Code's theme variables), as window 'message' events the way
 * VS Code delivers them (relayed over server-sent events from this process). Measured in the page, at the
 * normal 60 Hz: each frame's time from its start (the requestAnimationFrame
 * timestamp) to the first task after its rendering, which counts the
 * frame's script, style, layout and paint and any task that held it up;
 * also the rAF deltas (a delta over 20 ms is a dropped frame) and long
 * animation frames. At the end, the tree in the DOM is compared with the
 * store's snapshot.
 *
 * Run: node_modules/.bin/node --import tsx bench/runsView.ts   (after `npm run build`)
 */
import { fork } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../scripts/code-server.mjs';
import type { HostToWebview, RunView } from '../src/protocol/webview';
import { formatCost, formatTokens } from '../webview-ui/src/format';
import { writeResults } from './lib/results';
import { AGENTS, EVENTS_PER_SECOND, SECONDS } from './lib/runsViewHost';

const root = path.join(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
let ORIGIN = '';

/** A subset of what VS Code puts on a webview's <html> (Dark Modern); sizes and fonts are what matter here. */
const THEME = `
--vscode-font-family: system-ui, "Ubuntu", "Droid Sans", sans-serif; --vscode-font-size: 13px; --vscode-font-weight: normal;
--vscode-editor-font-family: "Droid Sans Mono", monospace; --vscode-foreground: #cccccc; --vscode-descriptionForeground: #9d9d9d;
--vscode-errorForeground: #f85149; --vscode-focusBorder: #0078d4; --vscode-list-hoverBackground: #2a2d2e;
--vscode-list-inactiveSelectionBackground: #37373d; --vscode-list-activeSelectionBackground: #04395e; --vscode-badge-background: #616161;
--vscode-badge-foreground: #f8f8f8; --vscode-button-background: #0078d4; --vscode-button-foreground: #ffffff;
--vscode-button-secondaryBackground: #313131; --vscode-button-secondaryForeground: #cccccc; --vscode-editorWarning-foreground: #cca700;
--vscode-progressBar-background: #0078d4; --vscode-testing-iconPassed: #73c991; --vscode-testing-iconFailed: #f14c4c;
--vscode-toolbar-hoverBackground: rgba(90, 93, 94, 0.31); --vscode-textLink-foreground: #4daafc; --vscode-sideBar-background: #181818;`;

const harness = () => `<!DOCTYPE html>
<html lang="en" style='${THEME.replace(/\n/g, ' ')}'>
<head>
<meta charset="UTF-8">
<link rel="stylesheet" href="${ORIGIN}/codicon.css">
<link rel="stylesheet" href="${ORIGIN}/webview.css">
<style>html, body { background: var(--vscode-sideBar-background); }</style>
<script>
  // VS Code's webview API, as the bundle uses it; the bench reads what the view posts.
  window.__posted = [];
  window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => undefined, setState: () => undefined });
  window.__frames = [];
  window.__deltas = [];
  window.__longFrames = [];
  window.__measuring = false;
  // A frame's time: from the frame's start (the rAF timestamp) to the first task after its
  // rendering (script, style, layout, paint), including whatever task held the frame up.
  let last = 0;
  const after = new MessageChannel();
  let pending = [];
  after.port1.onmessage = () => {
    const now = performance.now();
    for (const start of pending) window.__frames.push(now - start);
    pending = [];
  };
  const frame = (t) => {
    if (window.__measuring) {
      if (last) window.__deltas.push(t - last);
      pending.push(t);
      after.port2.postMessage(0);
    }
    last = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  // Listeners around the bundle's own: how long handling one message takes (validation, merge, queueing).
  window.__handling = [];
  window.__received = 0;
  let handleStart = 0;
  window.addEventListener('message', () => { handleStart = performance.now(); window.__received++; });
  window.__afterBundle = () => window.addEventListener('message', () => { if (window.__measuring) window.__handling.push(performance.now() - handleStart); });
  try {
    new PerformanceObserver((list) => {
      if (window.__measuring) for (const e of list.getEntries()) window.__longFrames.push(e.duration);
    }).observe({ type: 'long-animation-frame', buffered: false });
  } catch {}
</script>
</head>
<body class="vscode-dark">
<div id="root" data-testid="runs-view-root"></div>
<script src="${ORIGIN}/webview.js"></script>
<script>
  window.__afterBundle();
  // The host's messages arrive as VS Code delivers them to a webview: a window 'message' event.
  new EventSource('${ORIGIN}/events').onmessage = (e) => window.postMessage(JSON.parse(e.data), '*');
</script>
</body>
</html>`;

interface HostDone {
  kind: 'done';
  events: number;
  wallMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  storeApplyMs: number;
  posts: number;
  maxPostsPerSecond: number;
  expected: RunView;
  agents: number;
}

interface DomAgent {
  id: string;
  parent: string | null;
  status: string;
  name: string;
  tools: string[];
  activity: string;
  usage: string;
  hiddenNote: string;
}

/** The page's globals the bench reads (evaluated in Chromium; typed loosely here, where there is no DOM lib). */
interface PageGlobals {
  __posted: Array<{ type: string }>;
  __measuring: boolean;
  __frames: number[];
  __deltas: number[];
  __longFrames: number[];
  __handling: number[];
  __received: number;
  subagentsRunsIdle(): Promise<void>;
  document: { querySelectorAll(selector: string): Iterable<PageElement> };
}

interface PageElement {
  dataset: Record<string, string | undefined>;
  textContent: string | null;
  parentElement: PageElement | null;
  closest(selector: string): PageElement | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
}

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}
type TraceFile = { traceEvents: TraceEvent[] } | TraceEvent[];

/**
 * The main thread's CPU time per frame, from a Chromium trace: the thread
 * time (not wall time) of the renderer main thread's top-level tasks between
 * one BeginMainThreadFrame and the next. Unlike wall time it does not grow
 * when other processes take the CPU, so it says whether the page's own work
 * fits the budget on a shared machine.
 */
function frameCpuTimes(trace: TraceFile): number[] {
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const frameCounts = new Map<string, number>();
  for (const e of events) if (e.name === 'BeginMainThreadFrame' && mains.has(`${e.pid}:${e.tid}`)) frameCounts.set(`${e.pid}:${e.tid}`, (frameCounts.get(`${e.pid}:${e.tid}`) ?? 0) + 1);
  const main = [...frameCounts].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!main) return [];
  const on = events.filter((e) => `${e.pid}:${e.tid}` === main);
  const frames = on.filter((e) => e.name === 'BeginMainThreadFrame').map((e) => e.ts).sort((a, b) => a - b);
  const tasks = on.filter((e) => e.ph === 'X' && (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask') && e.tdur !== undefined);
  const perFrame = new Array<number>(Math.max(0, frames.length - 1)).fill(0);
  let f = 0;
  for (const task of tasks.sort((a, b) => a.ts - b.ts)) {
    while (f < frames.length - 1 && task.ts >= frames[f + 1]!) f++;
    if (f < perFrame.length && task.ts >= frames[f]!) perFrame[f]! += task.tdur! / 1000;
  }
  return perFrame;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function expectedTree(run: RunView): DomAgent[] {
  return Object.values(run.agents)
    .map((a) => ({
      id: a.id,
      parent: a.parentId,
      status: a.status,
      name: a.name,
      tools: a.tools.map((t) => `${t.toolUseId}:${t.status}`),
      activity: a.activity,
      usage: [formatTokens(a.tokens), formatCost(a.costUsd)].filter(Boolean).join(' · '),
      hiddenNote: a.hiddenTools > 0 ? `${a.hiddenTools} earlier tool call${a.hiddenTools === 1 ? '' : 's'} (see the transcript)` : '',
    }))
    .sort((x, y) => x.id.localeCompare(y.id));
}

async function main(): Promise<void> {
  if (!existsSync(path.join(dist, 'webview.js'))) throw new Error('dist/webview.js is missing: run `npm run build` first');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
  });
  // The page, the bundle and the host's messages (server-sent events) come from a local server.
  let events: ServerResponse | undefined;
  const server = createServer((req, res) => {
    const file = new URL(req.url ?? '/', 'http://x').pathname.slice(1) || 'index.html';
    if (file === 'events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.flushHeaders();
      events = res;
      return;
    }
    if (file === 'index.html') return res.writeHead(200, { 'content-type': 'text/html' }).end(harness());
    const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'font/ttf';
    if (!/^[\w.-]+$/.test(file) || !existsSync(path.join(dist, file))) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': type }).end(readFileSync(path.join(dist, file)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ORIGIN = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const page = await browser.newPage({ viewport: { width: 320, height: 700 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));

  const host = fork(path.join(import.meta.dirname, 'lib/runsViewHost.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let bytes = 0;
  let delivered = 0;
  let done: HostDone | undefined;
  const loaded = new Promise<void>((resolve) => host.on('message', (m: { kind: string }) => m.kind === 'loaded' && resolve()));
  const finished = new Promise<void>((resolve) =>
    host.on('message', (m: { kind: string; message?: HostToWebview }) => {
      if (m.kind === 'post' && m.message) {
        const data = JSON.stringify(m.message);
        bytes += data.length;
        delivered++;
        events?.write(`data: ${data}\n\n`);
      }
      if (m.kind === 'done') {
        done = m as HostDone;
        resolve();
      }
    }),
  );

  await page.goto(`${ORIGIN}/index.html`);
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).__posted !== undefined);
  await loaded;
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).__posted.some((m) => m.type === 'ready'));
  while (!events) await new Promise((r) => setTimeout(r, 20));
  host.send({ kind: 'ready' });
  await page.waitForTimeout(300);
  // The same measurement on the empty view first: what the machine gives any page right now.
  await page.evaluate(() => ((globalThis as unknown as PageGlobals).__measuring = true));
  await page.waitForTimeout(2000);
  const idle = await page.evaluate(() => {
    const w = globalThis as unknown as PageGlobals;
    w.__measuring = false;
    const frames = w.__frames.splice(0);
    w.__deltas.splice(0);
    w.__longFrames.splice(0);
    return frames;
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const before = await metrics();
  // BENCH_PROFILE=1 prints where the page's script time goes (the CPU profiler slows it; figures are then not the result).
  const profiling = process.env.BENCH_PROFILE === '1';
  if (profiling) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.start');
  }
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'toplevel'] });
  await page.evaluate(() => ((globalThis as unknown as PageGlobals).__measuring = true));
  host.send({ kind: 'start' });
  await finished;
  // Every message sent has reached the page (it counts what it received).
  await page.waitForFunction((n) => (globalThis as unknown as PageGlobals).__received >= n, delivered);
  await page.evaluate(() => (globalThis as unknown as PageGlobals).subagentsRunsIdle());
  const measured = await page.evaluate(() => {
    const w = globalThis as unknown as PageGlobals;
    w.__measuring = false;
    return { frames: w.__frames, deltas: w.__deltas, longFrames: w.__longFrames, handling: w.__handling };
  });
  const after = await metrics();
  const traceBuffer = await browser.stopTracing();
  // BENCH_TRACE=<file> keeps the Chromium trace (open it in DevTools' Performance panel).
  if (process.env.BENCH_TRACE) writeFileSync(process.env.BENCH_TRACE, traceBuffer);
  const frameCpu = frameCpuTimes(JSON.parse(traceBuffer.toString('utf8')) as TraceFile);
  if (profiling) {
    const { profile } = await cdp.send('Profiler.stop');
    const self = new Map<string, number>();
    const interval = (profile.endTime - profile.startTime) / Math.max(1, profile.samples?.length ?? 1);
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parentOf = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
    for (const id of profile.samples ?? []) {
      const node = byId.get(id)!;
      const caller = byId.get(parentOf.get(id) ?? -1)?.callFrame;
      const key = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').pop()}:${node.callFrame.lineNumber} < ${caller?.functionName ?? ''}:${caller?.lineNumber ?? ''}`;
      self.set(key, (self.get(key) ?? 0) + interval / 1000);
    }
    console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, ms]) => `${ms.toFixed(0).padStart(7)} ms  ${k}`).join('\n'));
  }
  const mainThread = Object.fromEntries(
    ['TaskDuration', 'ScriptDuration', 'LayoutDuration', 'RecalcStyleDuration'].map((k) => [k.replace('Duration', 'Ms'), Math.round(((after[k] ?? 0) - (before[k] ?? 0)) * 1000)]),
  );
  // Large trees start folded below the first level and folded nodes are built when opened:
  // open everything the way a user does (twisties), then compare every agent.
  for (let round = 0; round < 10; round++) {
    const opened = await page.evaluate(async () => {
      const g = globalThis as unknown as PageGlobals;
      const twisties = [...g.document.querySelectorAll('li[aria-expanded="false"] > .row .twistie')] as unknown as Array<{ click(): void }>;
      for (const t of twisties) t.click();
      await g.subagentsRunsIdle();
      return twisties.length;
    });
    if (opened === 0) break;
  }
  const dom: DomAgent[] = await page.evaluate(() =>
    [...(globalThis as unknown as PageGlobals).document.querySelectorAll('li.run-agent')]
      .map((li) => {
        const group = li.querySelector(':scope > ul[role="group"]');
        const tools = group ? [...group.querySelectorAll(':scope > li.tool')] : [];
        return {
          id: li.dataset.agentId!,
          parent: li.parentElement?.closest('li.run-agent')?.dataset.agentId ?? null,
          status: li.dataset.status!,
          name: li.dataset.agentName!,
          tools: tools.map((t) => `${t.dataset.testid!.replace(/^tool-/, '')}:${t.dataset.status}`),
          activity: li.querySelector(':scope > .row > .activity')?.textContent ?? '',
          usage: li.querySelector(':scope > .row > .details > .usage')?.textContent ?? '',
          hiddenNote: group?.querySelector(':scope > li.folded')?.textContent ?? '',
        };
      })
      .sort((x, y) => x.id.localeCompare(y.id)),
  );
  host.send({ kind: 'exit' });
  events?.end();
  await browser.close();
  server.close();
  if (!done) throw new Error('the host side did not finish');

  const expected = expectedTree(done.expected);
  const equal = JSON.stringify(dom) === JSON.stringify(expected);
  if (!equal) {
    const diff = expected.find((e, i) => JSON.stringify(e) !== JSON.stringify(dom[i]));
    console.error('DOM and store differ, first difference:', JSON.stringify(diff), JSON.stringify(dom[expected.indexOf(diff!)]));
  }
  const frames = measured.frames;
  const results = {
    agents: done.agents,
    eventsPerSecond: EVENTS_PER_SECOND,
    seconds: SECONDS,
    events: done.events,
    streamWallMs: Math.round(done.wallMs),
    frames: frames.length,
    frameP50Ms: +percentile(frames, 50).toFixed(2),
    frameP95Ms: +percentile(frames, 95).toFixed(2),
    frameP99Ms: +percentile(frames, 99).toFixed(2),
    frameMaxMs: +Math.max(...frames).toFixed(2),
    framesOver16ms: frames.filter((f) => f > 16).length,
    frameCpuP50Ms: +percentile(frameCpu, 50).toFixed(2),
    frameCpuP95Ms: +percentile(frameCpu, 95).toFixed(2),
    frameCpuP99Ms: +percentile(frameCpu, 99).toFixed(2),
    frameCpuFrames: frameCpu.length,
    idleFrameP50Ms: +percentile(idle, 50).toFixed(2),
    idleFrameP95Ms: +percentile(idle, 95).toFixed(2),
    droppedFrames: measured.deltas.filter((d) => d > 20).length,
    rafDeltaP95Ms: +percentile(measured.deltas, 95).toFixed(2),
    longAnimationFrames: measured.longFrames.length,
    messageHandlingP50Ms: +percentile(measured.handling, 50).toFixed(2),
    messageHandlingMaxMs: +Math.max(0, ...measured.handling).toFixed(2),
    pageMainThread: mainThread,
    messages: done.posts,
    messagesPerSecond: +(done.posts / SECONDS).toFixed(1),
    maxMessagesPerSecond: done.maxPostsPerSecond,
    messageKB: Math.round(bytes / 1024),
    hostCpuMs: Math.round(done.cpuUserMs + done.cpuSystemMs),
    hostCpuPercentOfOneCore: +(((done.cpuUserMs + done.cpuSystemMs) / done.wallMs) * 100).toFixed(1),
    storeApplyMs: Math.round(done.storeApplyMs),
    finalTreeEqualsStore: equal,
    domAgents: dom.length,
    pageErrors: errors,
    loadAverage: os.loadavg().map((l) => +l.toFixed(2)),
  };
  console.log(JSON.stringify(results, null, 2));
  await writeResults('runsView', results);
  const ok = equal && results.frameP95Ms < 16 && results.maxMessagesPerSecond <= 30 && dom.length === AGENTS && errors.length === 0;
  if (!ok) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
