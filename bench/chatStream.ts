/**
 * Chat stream benchmark: a scripted run tree emits 5,000 events a
 * second for 10 seconds (60 agents three levels deep: text chunks, tool
 * calls, usage) into the RunStore the extension uses (100 ms coalescing),
 * and one chat response follows it through ChatRunStream, the code the
 * @agent participant runs, writing into a recording sink. Measured:
 *  - stream writes per second (mean, and the most in any one-second window);
 *  - that the log tells every tool call and every agent's end, and that the
 *    final summary is the store's tree (every agent, its status);
 *  - CPU time of the process for the whole run, with the chat stream and
 *    without it (the store alone): the difference is what the chat surface
 *    costs the extension host.
 *
 * Run: node_modules/.bin/node --import tsx bench/chatStream.ts
 */
import { RunStore } from '../src/core/runs/runStore';
import { runSummary, treeOrder } from '../src/surfaces/chat/chatSummary';
import { ChatRunStream, type ChatSink } from '../src/surfaces/chat/chatStream';
import { EventScript } from '../test/support/runEvents';
import { writeResults } from './lib/results';

const EVENTS_PER_SECOND = 5000;
const SECONDS = 10;
const AGENTS = 60;

interface Write {
  at: number;
  kind: string;
  text: string;
}

/** Plays the tree into the store at the target rate; resolves with the number of tool calls made. */
async function play(store: RunStore, script: EventScript): Promise<{ events: number; tools: number }> {
  const apply = (e: Parameters<RunStore['apply']>[0]) => store.apply(e);
  apply(script.started('a0', 'lead', { description: 'Coordinate the work' }));
  let events = 1;
  let tools = 0;
  let started = 1;
  const t0 = performance.now();
  const perTick = EVENTS_PER_SECOND / 100;
  for (let tick = 0; tick < SECONDS * 100; tick++) {
    // Agents start over the first half of the run: 1 lead, then children and grandchildren.
    while (started < AGENTS && started < 1 + (tick / (SECONDS * 50)) * AGENTS) {
      const depth = started < 12 ? 1 : 2;
      const parent = depth === 1 ? 'a0' : `a${1 + (started % 11)}`;
      apply(script.started(`a${started}`, `worker-${started}`, { parentId: parent, depth, model: depth === 1 ? 'claude-sonnet-5-5' : 'claude-haiku-5-5' }));
      started++;
      events++;
    }
    for (let i = 0; i < perTick; i++, events++) {
      const agentId = `a${events % started}`;
      const kind = events % 10;
      if (kind < 6) apply({ type: 'text', ts: Date.now(), runId: script.runId, agentId, text: 'some streamed words ' });
      else if (kind < 9) {
        const [s, f] = script.tool(agentId, `t${events}`, kind === 8 ? 'Grep' : 'Read', `src/file-${events % 400}.ts`);
        apply(s!);
        apply(f!);
        tools++;
        events++;
      } else apply(script.usage(agentId, { inputTokens: events, outputTokens: events / 10 }, Math.floor(events / 1000)));
    }
    const due = t0 + (tick + 1) * 10;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  for (let i = started - 1; i >= 0; i--) apply(script.finished(`a${i}`, { usage: { inputTokens: 1000 * i, outputTokens: 100 * i, costUsd: 0.001 * i }, turns: 3 }));
  return { events: events + started, tools };
}

async function measure(withChat: boolean) {
  const store = new RunStore({ coalesceMs: 100, maxEventsPerRun: 2000 });
  const script = new EventScript('bench');
  const writes: Write[] = [];
  const at = () => performance.now();
  const sink: ChatSink = {
    markdown: (text) => writes.push({ at: at(), kind: 'markdown', text }),
    progress: (text) => writes.push({ at: at(), kind: 'progress', text }),
    reference: (text) => writes.push({ at: at(), kind: 'reference', text }),
    button: (title) => writes.push({ at: at(), kind: 'button', text: title }),
  };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  // The participant makes its stream once the run's first event is in the store.
  let stream: ChatRunStream | undefined;
  const first = store.subscribe(() => {
    if (withChat && !stream && store.get('bench')) stream = new ChatRunStream(store, 'bench', sink);
  });
  const played = await play(store, script);
  const ended = performance.now();
  store.flush();
  stream ??= withChat ? new ChatRunStream(store, 'bench', sink) : undefined;
  stream?.finish();
  first();
  const snapshot = store.get('bench')!;
  const summary = runSummary(snapshot);
  if (withChat) sink.markdown(summary);
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  return { store, snapshot, summary, writes, ended, played, seconds, cpuMs: (cpu.user + cpu.system) / 1000 };
}

function windows(writes: Write[]): number {
  let most = 0;
  for (let i = 0, j = 0; i < writes.length; i++) {
    while (writes[i]!.at - writes[j]!.at >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

async function main() {
  const without = await measure(false);
  const run = await measure(true);
  // Live writes, while events come; what is left (the last references, the end lines, the summary) comes once when the run ends.
  const live = run.writes.filter((w) => w.at < run.ended);
  const text = run.writes.filter((w) => w.kind === 'markdown').map((w) => w.text).join('');
  const told = [...text.matchAll(/(Read|Grep) (?:×(\d+)|`src)|(\d+) more tool calls?/g)].reduce((n, m) => n + (m[2] ? Number(m[2]) : m[3] ? Number(m[3]) : 1), 0);
  const agents = treeOrder(run.snapshot);
  const summaryMatches = agents.length === AGENTS && agents.every((a) => run.summary.includes(`✓ **${a.agentName}**`)) && run.writes.at(-1)!.text === runSummary(run.store.get('bench')!);
  const results = {
    events: run.played.events,
    eventsPerSecond: Math.round(run.played.events / run.seconds),
    seconds: Number(run.seconds.toFixed(1)),
    writesWhileRunning: live.length,
    writesAtTheEnd: run.writes.length - live.length,
    writesPerSecondMean: Number((live.length / run.seconds).toFixed(1)),
    writesPerSecondMostInOneSecond: windows(live),
    toolCalls: run.played.tools,
    toolCallsTold: told,
    agentsEndedInLog: agents.filter((a) => text.includes(`✓ **${a.agentName}** finished`)).length,
    summaryIsStoreTree: summaryMatches,
    cpuMsWithChat: Math.round(run.cpuMs),
    cpuMsStoreOnly: Math.round(without.cpuMs),
    cpuMsChatStream: Math.round(run.cpuMs - without.cpuMs),
    chatCpuShareOfRun: `${((100 * (run.cpuMs - without.cpuMs)) / (run.seconds * 1000)).toFixed(1)}% of one core`,
  };
  console.log(results);
  await writeResults('chatStream', results);
  if (!summaryMatches || told !== run.played.tools || results.writesPerSecondMean > 10) process.exitCode = 1;
}

void main();
