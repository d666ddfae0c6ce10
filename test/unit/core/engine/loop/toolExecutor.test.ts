import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executeToolCalls, partition } from '../../../../../src/core/engine/loop/toolExecutor';
import { nextLoopTurn } from '../../../../../src/core/engine/loop/loopTurns';
import type { RuntimeTool } from '../../../../../src/core/tools/runtimeTool';

test('partition: reads batch together, writes run alone in order', () => {
  const tool = (name: string, parallel: boolean) => [name, { name, parallel } as RuntimeTool] as const;
  const tools = new Map([tool('Read', true), tool('Grep', true), tool('Write', false)]);
  const call = (name: string, id: string) => ({ type: 'tool_use' as const, id, name, input: {} }) as never;
  const batches = partition([call('Read', '1'), call('Grep', '2'), call('Write', '3'), call('Read', '4'), call('Write', '5'), call('Write', '6')], tools);
  assert.deepEqual(batches.map((b) => b.map((c: { id: string }) => c.id)), [['1', '2'], ['3'], ['4'], ['5'], ['6']]);
});

/** Holds the thread a tenth of a millisecond: work a start does. */
function work(): void {
  const until = performance.now() + 0.1;
  while (performance.now() < until);
}

test('a turn of many tool calls starts them a loop turn apart: a timer due meanwhile runs before the last starts', async () => {
  const started: string[] = [];
  let startedWhenTimerRan = -1;
  const tool = { name: 'Task', parallel: true, summarizeInput: () => '', run: async () => 'ok' } as unknown as RuntimeTool;
  const hooks = {
    authorize: async () => null,
    started: (call: { id: string }) => {
      // Due a millisecond after the first start; 200 starts take 20 ms of work.
      if (started.push(call.id) === 1) setTimeout(() => (startedWhenTimerRan = started.length), 0);
      work();
    },
    finished: () => {},
    redact: <T>(v: T) => v,
  };
  const calls = Array.from({ length: 200 }, (_, i) => ({ type: 'tool_use' as const, id: `c${i}`, name: 'Task', input: {} }));
  const results = await executeToolCalls(calls as never, new Map([['Task', tool]]), hooks as never, new AbortController().signal);
  assert.equal(results.length, 200);
  assert.deepEqual(started, calls.map((c) => c.id), 'in the order the model gave them');
  assert.ok(startedWhenTimerRan > 0 && startedWhenTimerRan < 200, `the timer ran after ${startedWhenTimerRan} of 200 starts`);
});

test('agents waiting for a loop turn go on one per turn, in order, with timers in between', async () => {
  const order: number[] = [];
  let doneWhenTimerRan = -1;
  await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      nextLoopTurn().then(() => {
        if (order.push(i) === 1) setTimeout(() => (doneWhenTimerRan = order.length), 0);
        work();
      }),
    ),
  );
  assert.deepEqual(order, Array.from({ length: 200 }, (_, i) => i));
  assert.ok(doneWhenTimerRan > 0 && doneWhenTimerRan < 200, `the timer ran after ${doneWhenTimerRan} of 200`);
});
