import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunStore } from '../../../../src/core/runs/runStore';
import type { RunEvent } from '../../../../src/protocol/runEvents';
import { emptyUsage } from '../../../../src/protocol/runEvents';
import type { RunSnapshot } from '../../../../src/protocol/runSnapshot';
import { mergeAgent, type HeldAgent } from '../../../../src/protocol/agentPatch';
import { hostToWebviewSchema, type HostToWebview } from '../../../../src/protocol/webview';
import { displayOrder, FeedPump, NEW_RUNS_PER_MESSAGE, RunsFeed } from '../../../../src/surfaces/views/runsFeed';
import { agentViewOf, runHeader } from '../../../../src/surfaces/views/viewModel';

// What the Runs view is sent: only what changed, in the right order, and
// enough that a webview applying every message ends with exactly the store's
// projection.

const base = (runId: string, agentId: string, ts: number) => ({ runId, agentId, ts });

function started(runId: string, agentId: string, parentId: string | null, ts = 1, parentToolUseId: string | null = null): RunEvent {
  return {
    type: 'agent_started',
    ...base(runId, agentId, ts),
    parentId,
    parentToolUseId,
    agentName: `agent-${agentId}`,
    description: `task of ${agentId}`,
    prompt: 'go',
    model: 'claude-sonnet-5-5',
    depth: parentId ? 1 : 0,
    cwd: '/repo',
    background: false,
    filePath: null,
    resumed: false,
  };
}

function finished(runId: string, agentId: string, ts: number): RunEvent {
  return { type: 'agent_finished', ...base(runId, agentId, ts), status: 'completed', output: 'done', error: null, usage: emptyUsage(), turns: 1, durationMs: 5, worktree: null };
}

function feedOf(store: RunStore, shown: (run: RunSnapshot) => boolean = () => true) {
  return new RunsFeed({
    runs: () => store.list(),
    run: (id) => store.get(id),
    header: (run) => runHeader(run, null),
    agentView: (node) => agentViewOf(node, () => undefined),
    shown,
  });
}

type RunsMessage = Extract<HostToWebview, { type: 'runs' }>;

function take(feed: RunsFeed): RunsMessage | null {
  const message = feed.take(Date.now());
  if (message) assert.equal(hostToWebviewSchema.safeParse(message).success, true, 'the message does not match the protocol');
  return message as RunsMessage | null;
}

test('sends every agent first, then only the agents that changed', () => {
  const store = new RunStore({ coalesceMs: 0 });
  store.apply(started('r1', 'r1', null));
  store.apply({ type: 'tool_started', ...base('r1', 'r1', 2), toolUseId: 't1', name: 'Task', inputSummary: 'spawn' });
  store.apply(started('r1', 'c1', 'r1', 3, 't1'));
  store.apply(started('r1', 'c2', 'r1', 3));
  const feed = feedOf(store);
  const first = take(feed)!;
  assert.equal(first.reset, true);
  assert.deepEqual(first.updates[0]!.agents.map((a) => a.id).sort(), ['c1', 'c2', 'r1']);
  assert.equal(take(feed), null, 'nothing changed, yet a message went out');

  store.apply({ type: 'text', ...base('r1', 'c2', 4), text: 'thinking about it' });
  feed.changed(['r1']);
  const second = take(feed)!;
  assert.equal(second.reset, false);
  assert.deepEqual(second.updates[0]!.agents, [{ id: 'c2', activity: 'thinking about it' }], 'only the live text of c2');

  // Only the spawn row changed for r1 (the one row goes, with the order); c1 is untouched.
  store.apply({ type: 'tool_started', ...base('r1', 'r1', 5), toolUseId: 't2', name: 'Read', inputSummary: 'a.ts' });
  store.apply({ type: 'tool_finished', ...base('r1', 'r1', 5), toolUseId: 't1', name: 'Task', ok: true, resultSummary: 'ok', durationMs: 3 });
  feed.changed(['r1']);
  const third = take(feed)!.updates[0]!.agents;
  assert.deepEqual(third.map((a) => a.id), ['r1']);
  assert.deepEqual(third[0]!.tools?.rows.map((t) => [t.toolUseId, t.status]), [['t1', 'ok'], ['t2', 'running']]);
  assert.deepEqual(third[0]!.tools?.order, ['t1', 't2']);
  assert.equal(third[0]!.head, undefined, 'the row itself did not change');
});

test('orders active runs first, newest first within each group', () => {
  const store = new RunStore({ coalesceMs: 0 });
  store.apply(started('old-active', 'old-active', null, 1));
  store.apply(started('done', 'done', null, 5));
  store.apply(finished('done', 'done', 6));
  store.apply(started('new-active', 'new-active', null, 3));
  assert.deepEqual(displayOrder(store.list()).map((r) => r.runId), ['new-active', 'old-active', 'done']);
  assert.deepEqual(take(feedOf(store))!.order, ['new-active', 'old-active', 'done']);
});

test('hidden runs are left out, counted, and sent whole when shown again', () => {
  const store = new RunStore({ coalesceMs: 0 });
  store.apply(started('a', 'a', null, 1));
  store.apply(finished('a', 'a', 2));
  store.apply(started('b', 'b', null, 3));
  let hideEnded = false;
  const feed = feedOf(store, (run) => !hideEnded || run.status === 'running');
  assert.deepEqual(feed.listed, [], 'nothing sent yet');
  take(feed);
  assert.deepEqual(feed.listed, ['b', 'a']);
  hideEnded = true;
  feed.touchAll();
  const cleared = take(feed)!;
  assert.deepEqual(cleared.order, ['b']);
  assert.equal(cleared.cleared, 1);
  assert.deepEqual(feed.listed, ['b'], 'what the view lists follows what it was sent');
  hideEnded = false;
  feed.touchAll();
  const back = take(feed)!;
  assert.deepEqual(back.order, ['b', 'a']);
  feed.reset();
  assert.deepEqual(feed.listed, [], 'a webview that lost its document lists nothing until sent again');
  assert.deepEqual(back.updates.map((u) => [u.run.runId, u.agents.length, Boolean(u.agents[0]?.head)]), [['a', 1, true]], 'the shown-again run must come whole');
});

test('a webview that applies every message ends with the store projection, whatever the events', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const store = new RunStore({ coalesceMs: 0, maxEventsPerRun: 30 });
  const feed = feedOf(store);
  const held = new Map<string, Map<string, HeldAgent>>();
  const applyMessage = (message: RunsMessage | null) => {
    if (!message) return;
    if (message.reset) held.clear();
    for (const id of [...held.keys()]) if (!message.order.includes(id)) held.delete(id);
    for (const { run, agents } of message.updates) {
      const map = held.get(run.runId) ?? new Map<string, HeldAgent>();
      for (const patch of agents) {
        const merged = mergeAgent(map.get(patch.id), patch);
        assert.ok(merged, `a patch for ${patch.id} came before the agent was sent whole`);
        map.set(patch.id, merged.held);
      }
      held.set(run.runId, map);
    }
  };
  const agents: Array<{ runId: string; id: string; tools: string[]; done: boolean }> = [];
  let ts = 1;
  let tool = 0;
  for (let step = 0; step < 3000; step++) {
    const r = random();
    const live = agents.filter((a) => !a.done);
    if (live.length === 0 || r < 0.03) {
      const parent = live.length && random() < 0.8 ? live[Math.floor(random() * live.length)]! : null;
      const runId = parent ? parent.runId : `run${step}`;
      const id = `ag${step}`;
      let toolUseId: string | null = null;
      if (parent) {
        toolUseId = `t${tool++}`;
        store.apply({ type: 'tool_started', ...base(runId, parent.id, ts++), toolUseId, name: 'Task', inputSummary: 'spawn' });
        parent.tools.push(toolUseId);
      }
      store.apply(started(runId, id, parent?.id ?? null, ts++, toolUseId));
      agents.push({ runId, id, tools: [], done: false });
    } else {
      const a = live[Math.floor(random() * live.length)]!;
      if (r < 0.5) store.apply({ type: 'text', ...base(a.runId, a.id, ts++), text: random() < 0.2 ? '\nnew line ' : `word${step} ` });
      else if (r < 0.7) {
        const id = `t${tool++}`;
        a.tools.push(id);
        store.apply({ type: 'tool_started', ...base(a.runId, a.id, ts++), toolUseId: id, name: 'Read', inputSummary: `file${step}.ts` });
      } else if (r < 0.85 && a.tools.length) {
        const id = a.tools.splice(Math.floor(random() * a.tools.length), 1)[0]!;
        store.apply({ type: 'tool_finished', ...base(a.runId, a.id, ts++), toolUseId: id, name: 'Read', ok: random() < 0.9, resultSummary: `${step} lines`, durationMs: 4 });
      } else if (r < 0.95) {
        store.apply({ type: 'usage', ...base(a.runId, a.id, ts++), usage: { ...emptyUsage(), inputTokens: step, outputTokens: step }, turns: 1 });
      } else {
        a.done = true;
        store.apply(finished(a.runId, a.id, ts++));
      }
    }
    feed.changed(store.list().map((run) => run.runId).filter(() => random() < 0.9));
    if (step % 7 === 0) applyMessage(take(feed));
  }
  feed.changed(store.list().map((run) => run.runId));
  applyMessage(take(feed));
  const expected = new Map(store.list().map((run) => [run.runId, new Map(Object.values(run.agents).map((n) => [n.agentId, agentViewOf(n, () => undefined)]))]));
  const mirror = new Map([...held].map(([runId, map]) => [runId, new Map([...map].map(([id, h]) => [id, h.view]))]));
  assert.deepEqual(mirror, expected);
});

test('a long history reaches the view a page at a time, newest first, the first page a screenful', () => {
  const store = new RunStore({ coalesceMs: 0, maxRuns: 500 });
  const runs = NEW_RUNS_PER_MESSAGE * 2 + 5;
  for (let i = 0; i < runs; i++) {
    store.apply(started(`r${i}`, `r${i}`, null, 10 + i));
    store.apply(finished(`r${i}`, `r${i}`, 11 + i));
  }
  const feed = feedOf(store);
  const newestFirst = displayOrder(store.list()).map((r) => r.runId);
  const pages: string[][] = [];
  for (let message = take(feed); message; message = take(feed)) {
    assert.deepEqual(message.order, newestFirst, 'every message lists the whole order');
    assert.equal(message.reset, pages.length === 0);
    pages.push(message.updates.map((u) => u.run.runId));
  }
  assert.deepEqual(pages.map((p) => p.length), [NEW_RUNS_PER_MESSAGE, NEW_RUNS_PER_MESSAGE, 5]);
  assert.deepEqual(pages.flat(), newestFirst, 'each run once, in display order');

  // A run the user reveals comes with the next message, whatever its page.
  feed.reset();
  take(feed);
  const oldest = newestFirst.at(-1)!;
  feed.include(oldest);
  assert.ok(take(feed)!.updates.some((u) => u.run.runId === oldest));
});

test('the pump posts the pages one after another at its pace, without being asked again', async () => {
  const store = new RunStore({ coalesceMs: 0, maxRuns: 500 });
  for (let i = 0; i < NEW_RUNS_PER_MESSAGE * 3; i++) store.apply(started(`r${i}`, `r${i}`, null, 10 + i));
  const posted: RunsMessage[] = [];
  let done: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const pump = new FeedPump(feedOf(store), (message) => {
    posted.push(message as RunsMessage);
    if (posted.flatMap((m) => m.updates).length === NEW_RUNS_PER_MESSAGE * 3) done();
  }, 1);
  pump.start();
  await all;
  pump.dispose();
  assert.equal(posted.length, 3);
});
