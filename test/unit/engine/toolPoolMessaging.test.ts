import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeToolPool } from '../../../src/core/engine/toolPool';

const runtime = ['Task', 'TaskOutput', 'TaskStop', 'SendMessage', 'Bash', 'Read'].map((name) => ({ name, readOnly: name !== 'Bash' }));
const pool = (tools: string[] | null, extra: { disallowed?: string[]; depth?: number; planMode?: boolean } = {}) =>
  computeToolPool({ definition: { tools, disallowedTools: extra.disallowed ?? [], spawns: '*' }, runtime, depth: extra.depth ?? 0, maxDepth: 2, planMode: extra.planMode ?? false }).tools;

test('SendMessage comes with the spawn tool (or by name), and stays where spawning does not', () => {
  assert.deepEqual(pool(null), ['Task', 'TaskOutput', 'TaskStop', 'SendMessage', 'Bash', 'Read']);
  assert.deepEqual(pool(['Task', 'Read']), ['Task', 'TaskOutput', 'TaskStop', 'SendMessage', 'Read'], 'a companion of Task in a tools list');
  assert.deepEqual(pool(['Read']), ['Read'], 'a list without Task or SendMessage: no messaging');
  assert.deepEqual(pool(['Read', 'sendmessage']), ['SendMessage', 'Read'], 'named on its own, in any case');
  assert.deepEqual(pool(null, { disallowed: ['SendMessage'] }), ['Task', 'TaskOutput', 'TaskStop', 'Bash', 'Read']);
  assert.deepEqual(pool(null, { depth: 2 }), ['SendMessage', 'Bash', 'Read'], 'at the maximum depth: no spawning, still messaging');
  assert.deepEqual(pool(null, { depth: 1, planMode: true }), ['SendMessage', 'Read'], 'a plan-mode child: read-only, still messaging');
});
