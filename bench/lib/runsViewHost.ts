/**
 * The extension-host side of bench/runsView.ts, in a process of its own so
 * its CPU time is measured alone: a scripted tree of 200 agents streams
 * 5,000 RunEvents a second into a RunStore (batching as the extension's
 * does), and the Runs view's own feed and pump (src/surfaces/views/runsFeed.ts)
 * decide what is posted. Posts go to the parent over IPC, which hands them
 * to the real webview bundle in Chromium.
 *
 * Parent → child: {kind:'ready'} when the webview loaded; {kind:'start'}.
 * Child → parent: {kind:'post', message}, then {kind:'done', ...figures}.
 */
import { RunStore } from '../../src/core/runs/runStore';
import { emptyUsage, type RunEvent } from '../../src/protocol/runEvents';
import type { HostToWebview } from '../../src/protocol/webview';
import { FeedPump, RunsFeed } from '../../src/surfaces/views/runsFeed';
import { agentViewOf, runHeader, runView } from '../../src/surfaces/views/viewModel';

export const AGENTS = 200;
export const EVENTS_PER_SECOND = 5000;
export const SECONDS = 10;
const RUN = 'bench-run';

interface Agent {
  id: string;
  parent: string | null;
  depth: number;
  running: string[];
  tools: number;
}

let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const WORDS = ['reading', 'the', 'config', 'loader', 'then', 'checking', 'tests', 'for', 'edge', 'cases', 'in', 'parser', 'and', 'cache'];

function send(message: unknown): void {
  process.send!(message);
}

/** A root, 9 children, and 190 grandchildren: 200 agents, three levels. */
function tree(): Agent[] {
  const agents: Agent[] = [{ id: 'a0', parent: null, depth: 0, running: [], tools: 0 }];
  for (let c = 1; c <= 9; c++) agents.push({ id: `a${c}`, parent: 'a0', depth: 1, running: [], tools: 0 });
  while (agents.length < AGENTS) agents.push({ id: `a${agents.length}`, parent: `a${1 + (agents.length % 9)}`, depth: 2, running: [], tools: 0 });
  return agents;
}

function main(): void {
  const store = new RunStore({ coalesceMs: 100, maxEventsPerRun: 2000 });
  const feed = new RunsFeed({
    runs: () => store.list(),
    run: (id) => store.get(id),
    header: (run) => runHeader(run, null),
    agentView: (node) => agentViewOf(node, () => undefined),
    shown: () => true,
  });
  const posts: number[] = [];
  const pump = new FeedPump(feed, (message: HostToWebview) => {
    posts.push(Date.now());
    send({ kind: 'post', message });
  });
  store.subscribe((changed) => pump.changed(changed));

  const agents = tree();
  const byId = new Map(agents.map((a) => [a.id, a]));
  let ts = Date.now();
  let toolSeq = 0;
  const events: RunEvent[] = [];
  const base = (a: Agent) => ({ ts: ts++, runId: RUN, agentId: a.id });

  // The whole tree starts first (spawn rows, then the children), as an orchestrator fanning out does.
  for (const a of agents) {
    if (a.parent) {
      const parent = byId.get(a.parent)!;
      const toolUseId = `t${toolSeq++}`;
      events.push({ type: 'tool_started', ...base(parent), toolUseId, name: 'Task', inputSummary: `${a.id}: investigate part ${a.id}` });
      events.push({ type: 'agent_started', ...base(a), parentId: parent.id, parentToolUseId: toolUseId, agentName: `worker-${a.id}`, description: `Investigate part ${a.id}`, prompt: 'go', model: 'claude-haiku-5-5', depth: a.depth, cwd: '/repo', background: false, filePath: null, resumed: false });
    } else {
      events.push({ type: 'agent_started', ...base(a), parentId: null, parentToolUseId: null, agentName: 'orchestrator', description: 'Fan the work out to 199 workers', prompt: 'go', model: 'claude-sonnet-5-5', depth: 0, cwd: '/repo', background: false, filePath: null, resumed: false });
    }
  }
  const usage = new Map<string, number>();
  function nextEvent(): RunEvent {
    const a = pick(agents);
    const r = random();
    if (r < 0.55) return { type: 'text', ...base(a), text: `${pick(WORDS)} ${random() < 0.08 ? '\n' : ''}` };
    if (r < 0.72 || a.running.length === 0) {
      const toolUseId = `t${toolSeq++}`;
      a.running.push(toolUseId);
      a.tools++;
      return { type: 'tool_started', ...base(a), toolUseId, name: pick(['Read', 'Grep', 'Glob', 'Bash']), inputSummary: `src/module${a.tools}.ts` };
    }
    if (r < 0.9) {
      const toolUseId = a.running.splice(Math.floor(random() * a.running.length), 1)[0]!;
      return { type: 'tool_finished', ...base(a), toolUseId, name: 'Read', ok: random() < 0.95, resultSummary: `${Math.floor(random() * 400)} lines`, durationMs: Math.floor(random() * 900) };
    }
    const tokens = (usage.get(a.id) ?? 0) + 250;
    usage.set(a.id, tokens);
    return { type: 'usage', ...base(a), usage: { ...emptyUsage(), inputTokens: tokens, outputTokens: tokens / 5, costUsd: tokens / 1e6 }, turns: Math.ceil(tokens / 2500) };
  }
  const total = EVENTS_PER_SECOND * SECONDS;
  // Leaves first, then their parents, then the root: the last events of the stream.
  const finishing = [...agents].reverse().map(
    (a): RunEvent => ({ type: 'agent_finished', ...base(a), status: 'completed', output: 'done', error: null, usage: { ...emptyUsage(), inputTokens: usage.get(a.id) ?? 0 }, turns: 1, durationMs: 10_000, worktree: null }),
  );
  while (events.length < total - finishing.length) events.push(nextEvent());
  events.push(...finishing);

  let started = 0;
  let cpuStart = process.cpuUsage();
  let applied = 0;
  let applyMs = 0;
  const tick = () => {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * EVENTS_PER_SECOND));
    const t0 = performance.now();
    while (applied < due) store.apply(events[applied++]!);
    applyMs += performance.now() - t0;
    if (applied < total) return;
    clearInterval(timer);
    store.flush();
    pump.flush();
    const cpu = process.cpuUsage(cpuStart);
    const wallMs = performance.now() - started;
    const streamStart = posts.find((t) => t >= startedAt) ?? startedAt;
    const windows = new Map<number, number>();
    for (const t of posts) if (t >= startedAt) windows.set(Math.floor((t - streamStart) / 1000), (windows.get(Math.floor((t - streamStart) / 1000)) ?? 0) + 1);
    const run = store.get(RUN)!;
    send({
      kind: 'done',
      events: applied,
      wallMs,
      cpuUserMs: cpu.user / 1000,
      cpuSystemMs: cpu.system / 1000,
      storeApplyMs: applyMs,
      posts: posts.filter((t) => t >= startedAt).length,
      maxPostsPerSecond: Math.max(...windows.values()),
      expected: runView(run, null, () => undefined),
      agents: Object.keys(run.agents).length,
    });
  };
  let timer: NodeJS.Timeout;
  let startedAt = 0;
  process.on('message', (m: { kind: string }) => {
    if (m.kind === 'ready') pump.start();
    if (m.kind === 'start') {
      startedAt = Date.now();
      started = performance.now();
      cpuStart = process.cpuUsage();
      timer = setInterval(tick, 5);
    }
    if (m.kind === 'exit') process.exit(0);
  });
  send({ kind: 'loaded' });
}

// Imported by the bench for its constants; runs only as the forked child.
if (process.send) main();
