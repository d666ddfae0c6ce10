import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunStore } from '../../../../src/core/runs/runStore';
import { emptyUsage, type RunEvent } from '../../../../src/protocol/runEvents';
import { renderTree } from '../../../../src/cli/render/tree';
import { EventScript } from '../../../support/runEvents';

const usage = (input: number, output: number) => ({ ...emptyUsage(), inputTokens: input, outputTokens: output, costUsd: (input + output) / 1e6 });

function started(agentId: string, parentId: string | null, parentToolUseId: string | null = null, runId = 'r1'): RunEvent {
  return { type: 'agent_started', ts: 1000, runId, agentId, parentId, parentToolUseId, agentName: agentId, description: `${agentId} task`, prompt: 'p', model: 'm', depth: parentId ? 1 : 0, cwd: '/w', background: false, filePath: null, resumed: false };
}

function finished(agentId: string, u = usage(0, 0), status: 'completed' | 'failed' = 'completed', runId = 'r1'): RunEvent {
  return { type: 'agent_finished', ts: 5000, runId, agentId, status, output: `${agentId} out`, error: null, usage: u, turns: 1, durationMs: 4000, worktree: null };
}

test('folds events into a tree: spawn rows point at the agents they started; usage rolls up over the tree', () => {
  const store = new RunStore({ coalesceMs: 0 });
  store.apply(started('root', null));
  store.apply({ type: 'tool_started', ts: 1100, runId: 'r1', agentId: 'root', toolUseId: 't1', name: 'Task', inputSummary: 'child: look' });
  store.apply(started('child', 'root', 't1'));
  store.apply({ type: 'usage', ts: 1200, runId: 'r1', agentId: 'child', usage: usage(100, 10), turns: 1 });
  store.apply({ type: 'usage', ts: 1300, runId: 'r1', agentId: 'child', usage: usage(250, 20), turns: 2 });
  store.apply({ type: 'usage', ts: 1300, runId: 'r1', agentId: 'root', usage: usage(1000, 50), turns: 1 });
  store.apply(finished('child', usage(250, 20)));
  store.apply({ type: 'tool_finished', ts: 1400, runId: 'r1', agentId: 'root', toolUseId: 't1', name: 'Task', ok: true, resultSummary: 'completed', durationMs: 300 });
  store.apply(finished('root', usage(2000, 80)));

  const run = store.get('r1')!;
  assert.equal(run.status, 'completed');
  assert.deepEqual(run.agents.root!.children, ['child']);
  assert.equal(run.agents.root!.tools[0]!.childAgentId, 'child');
  assert.equal(run.usage.inputTokens, 2250, 'rolled up: root 2000 + child 250, never double counted');
  assert.equal(run.usage.outputTokens, 100);
  assert.deepEqual(renderTree(run, { now: 6000 }), [
    '✓ root · m · 4.0s · 2.1k tok · $0.0021',
    '└─ ✓ Task child: look · completed · 300ms',
    '   └─ ✓ child · child task · m · 4.0s · 270 tok · $0.0003',
  ]);
});

test('caps: tool rows and live text are bounded, the rest is folded', () => {
  const store = new RunStore({ coalesceMs: 0, maxEventsPerRun: 3, maxTextChars: 10 });
  store.apply(started('root', null));
  for (let i = 0; i < 10; i++) {
    store.apply({ type: 'tool_started', ts: 1, runId: 'r1', agentId: 'root', toolUseId: `t${i}`, name: 'Read', inputSummary: `f${i}` });
  }
  store.apply({ type: 'text', ts: 1, runId: 'r1', agentId: 'root', text: 'abcdefghijklmnopqrstuvwxyz' });
  const node = store.agent('root')!;
  assert.deepEqual(node.tools.map((t) => t.inputSummary), ['f7', 'f8', 'f9']);
  assert.equal(node.foldedTools, 7);
  assert.equal(node.text, 'qrstuvwxyz');
});

test('maxEventsPerRun caps the tool rows of the whole run tree, folding the oldest whichever agent made them', () => {
  const store = new RunStore({ coalesceMs: 0, maxEventsPerRun: 4 });
  store.apply(started('root', null));
  store.apply({ type: 'tool_started', ts: 10, runId: 'r1', agentId: 'root', toolUseId: 'spawn', name: 'Task', inputSummary: 'child' });
  store.apply(started('child', 'root', 'spawn'));
  for (let i = 0; i < 5; i++) store.apply({ type: 'tool_started', ts: 20 + i, runId: 'r1', agentId: 'child', toolUseId: `c${i}`, name: 'Read', inputSummary: `c${i}` });
  store.apply({ type: 'tool_started', ts: 30, runId: 'r1', agentId: 'root', toolUseId: 'r0', name: 'Read', inputSummary: 'r0' });
  const root = store.agent('root')!;
  const child = store.agent('child')!;
  assert.equal(root.tools.length + child.tools.length, 4, 'the run holds at most maxEventsPerRun rows over all its agents');
  assert.deepEqual(root.tools.map((t) => t.inputSummary), ['r0']);
  assert.deepEqual(child.tools.map((t) => t.inputSummary), ['c2', 'c3', 'c4']);
  assert.equal(root.foldedTools, 1, 'the oldest row (the spawn) was folded into its own agent');
  assert.equal(child.foldedTools, 2);
  assert.deepEqual(renderTree(store.get('r1')!, { now: 1000 }).slice(0, 4), ['● root · m · 0ms · 0 tok', '├─ … 1 earlier tool calls', '├─ … Read r0', '└─ ● child · child task · m · 0ms · 0 tok'], 'the child whose spawn row was folded still shows under its parent');
});

test('setLimits applies new caps at once: rows past the new per-run cap fold, runs past the new maxRuns go', () => {
  const store = new RunStore({ coalesceMs: 0, maxEventsPerRun: 2000, maxRuns: 10 });
  const removed: string[] = [];
  store.onRemove((run) => removed.push(run.runId));
  for (const id of ['a', 'b', 'c']) {
    store.apply({ ...started(id, null, null, id), ts: id.charCodeAt(0) } as RunEvent);
    for (let i = 0; i < 150; i++) store.apply({ type: 'tool_started', ts: i, runId: id, agentId: id, toolUseId: `t${i}`, name: 'Read', inputSummary: `f${i}` });
    if (id !== 'c') store.apply(finished(id, usage(1, 1), 'completed', id));
  }
  const versionBefore = store.get('c')!.version;
  store.setLimits({ maxEventsPerRun: 100 });
  assert.equal(store.agent('c')!.tools.length, 100);
  assert.equal(store.agent('c')!.foldedTools, 50);
  assert.equal(store.agent('c')!.tools[0]!.inputSummary, 'f50');
  assert.ok(store.get('c')!.version > versionBefore, 'the change reaches the surfaces and the history file');
  store.apply({ type: 'tool_started', ts: 999, runId: 'c', agentId: 'c', toolUseId: 'late', name: 'Read', inputSummary: 'late' });
  assert.equal(store.agent('c')!.tools.length, 100, 'the new cap holds for rows that come later');
  store.setLimits({ maxRuns: 1 });
  assert.deepEqual(removed, ['a', 'b'], 'the oldest finished runs went; the running one stays');
  assert.deepEqual(store.list().map((r) => r.runId), ['c']);
});

test('retention: only the newest runs are kept, running ones are never dropped', () => {
  const store = new RunStore({ coalesceMs: 0, maxRuns: 2 });
  for (const id of ['a', 'b', 'c']) {
    store.apply({ ...started(id, null, null, id), ts: id.charCodeAt(0) } as RunEvent);
    store.apply(finished(id, usage(1, 1), 'completed', id));
  }
  assert.deepEqual(store.list().map((r) => r.runId), ['c', 'b']);
  assert.equal(store.agent('a'), undefined);
  store.apply({ ...started('d', null, null, 'd'), ts: 200 } as RunEvent);
  store.apply({ ...started('e', null, null, 'e'), ts: 300 } as RunEvent);
  assert.deepEqual(store.list().map((r) => r.runId).sort(), ['d', 'e']);
});

test('listeners get coalesced change sets', async () => {
  const store = new RunStore({ coalesceMs: 20 });
  const calls: string[][] = [];
  store.subscribe((changed) => calls.push([...changed]));
  store.apply(started('root', null));
  for (let i = 0; i < 100; i++) store.apply({ type: 'text', ts: 1, runId: 'r1', agentId: 'root', text: 'x' });
  store.apply(started('other', null, null, 'r2'));
  assert.equal(calls.length, 0);
  await new Promise((r) => setTimeout(r, 40));
  assert.deepEqual(calls, [['r1', 'r2']]);
});

test('a follow-up reuses the agent node: status back to running, usage continues', () => {
  const store = new RunStore({ coalesceMs: 0 });
  store.apply(started('root', null));
  store.apply(finished('root', usage(10, 1)));
  store.apply({ ...started('root', null), resumed: true } as RunEvent);
  assert.equal(store.get('r1')!.status, 'running');
  assert.equal(store.agent('root')!.status, 'running');
  store.apply(finished('root', usage(30, 3)));
  assert.equal(store.get('r1')!.usage.inputTokens, 30);
});

test('two agents wait for approval, one is answered: that agent runs again, the run keeps waiting for the other', () => {
  const store = new RunStore({ coalesceMs: 0 });
  const script = new EventScript();
  store.apply(script.started('lead', 'lead'));
  store.apply(script.started('a', 'writer', { parentId: 'lead', depth: 1 }));
  store.apply(script.started('b', 'tester', { parentId: 'lead', depth: 1 }));
  store.apply(script.approval('a', 'ap_a', 'ta', 'notes.md', 'edit'));
  store.apply(script.approval('b', 'ap_b', 'tb', 'npm test'));
  assert.equal(store.get('run1')!.status, 'waiting');
  store.apply(script.settled('a', 'ap_a'));
  const run = store.get('run1')!;
  assert.deepEqual([run.agents.a!.status, run.agents.b!.status, run.status], ['running', 'waiting', 'waiting']);
  assert.deepEqual(store.waiting().map((n) => n.agentId), ['b']);
  store.apply(script.settled('b', 'ap_b'));
  assert.equal(store.get('run1')!.status, 'running');
});

test('a run loaded from the history obeys the row cap, and later rows count against it', () => {
  const source = new RunStore({ coalesceMs: 0 });
  source.apply(started('root', null));
  for (let i = 0; i < 30; i++) source.apply({ type: 'tool_started', ts: 100 + i, runId: 'r1', agentId: 'root', toolUseId: `t${i}`, name: 'Read', inputSummary: `f${i}` });
  const saved = structuredClone(source.get('r1')!);

  const store = new RunStore({ coalesceMs: 0, maxEventsPerRun: 10 });
  store.load([saved]);
  const node = store.agent('root')!;
  assert.deepEqual(node.tools.map((t) => t.inputSummary), ['f20', 'f21', 'f22', 'f23', 'f24', 'f25', 'f26', 'f27', 'f28', 'f29']);
  assert.equal(node.foldedTools, 20);
  store.apply({ type: 'tool_started', ts: 500, runId: 'r1', agentId: 'root', toolUseId: 'late', name: 'Read', inputSummary: 'late' });
  assert.equal(node.tools.length, 10);
  assert.equal(node.foldedTools, 21);
});

test('an ended run kept as its summary is read whole again before a change applies to it, silently; observers never hear of the summary', () => {
  const store = new RunStore({ coalesceMs: 0 });
  store.apply(started('root', null));
  store.apply({ type: 'tool_started', ts: 1100, runId: 'r1', agentId: 'root', toolUseId: 't1', name: 'Read', inputSummary: 'a.ts' });
  store.apply({ type: 'tool_finished', ts: 1200, runId: 'r1', agentId: 'root', toolUseId: 't1', name: 'Read', ok: true, resultSummary: '1 line', durationMs: 100 });
  assert.equal(store.summarize('r1', store.get('r1')!.version), false, 'a run at work stays whole');
  store.apply(finished('root'));
  const whole = structuredClone(store.get('r1')!);
  const ops: string[] = [];
  const heard: string[] = [];
  store.observe((op) => ops.push(op.op));
  store.subscribe((changed) => heard.push(...changed));
  assert.equal(store.summarize('r1', whole.version - 1), false, 'not a version its file may lack');
  assert.ok(store.summarize('r1', whole.version));
  assert.ok(store.isSummary('r1'));
  assert.deepEqual(store.get('r1')!.agents.root!.tools, []);
  assert.equal(store.get('r1')!.agents.root!.output, 'root out');
  assert.deepEqual([ops, heard], [[], []]);
  // Asked for, with its file's copy: whole; a copy of another version is not it.
  assert.deepEqual(store.whole('r1', new Map([['r1', whole]])), whole);
  assert.equal(store.whole('r1', new Map([['r1', { ...whole, version: 1 }]])), undefined);
  // A follow-up: read whole first, so the new turn continues the earlier rows.
  const reads: string[] = [];
  store.readWholeWith((runId) => (reads.push(runId), structuredClone(whole)));
  store.apply({ ...started('root', null), ts: 6000 });
  assert.deepEqual(reads, ['r1']);
  assert.equal(store.isSummary('r1'), false);
  assert.equal(store.get('r1')!.agents.root!.tools[0]!.inputSummary, 'a.ts');
  assert.equal(store.get('r1')!.status, 'running');
  assert.deepEqual(ops, ['event']);
});
