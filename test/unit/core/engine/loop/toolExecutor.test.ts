import { test } from 'node:test';
import assert from 'node:assert/strict';
import { partition } from '../../../../../src/core/engine/loop/toolExecutor';
import type { RuntimeTool } from '../../../../../src/core/tools/runtimeTool';

test('partition: reads batch together, writes run alone in order', () => {
  const tool = (name: string, parallel: boolean) => [name, { name, parallel } as RuntimeTool] as const;
  const tools = new Map([tool('Read', true), tool('Grep', true), tool('Write', false)]);
  const call = (name: string, id: string) => ({ type: 'tool_use' as const, id, name, input: {} }) as never;
  const batches = partition([call('Read', '1'), call('Grep', '2'), call('Write', '3'), call('Read', '4'), call('Write', '5'), call('Write', '6')], tools);
  assert.deepEqual(batches.map((b) => b.map((c: { id: string }) => c.id)), [['1', '2'], ['3'], ['4'], ['5'], ['6']]);
});
