import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LISTED_TOOLS, type PermissionMode } from '../../../../src/protocol/tools';
import { computeToolPool } from '../../../../src/core/engine/tools/toolPool';

const pool = (tools: string[] | null, extra: { disallowed?: string[]; depth?: number; mode?: PermissionMode } = {}) =>
  computeToolPool({ definition: { tools, disallowedTools: extra.disallowed ?? [], spawns: '*' }, runtime: LISTED_TOOLS, depth: extra.depth ?? 0, maxDepth: 2, mode: extra.mode ?? 'default' })
    .tools.filter((name) => ['Task', 'SendMessage', 'Read'].includes(name));

test('SendMessage follows the tool list and the spawn rules as Task does', () => {
  assert.deepEqual(pool(null), ['Task', 'SendMessage', 'Read']);
  assert.deepEqual(pool(['Task', 'Read']), ['Task', 'SendMessage', 'Read'], 'a companion of Task in a tools list');
  assert.deepEqual(pool(['Read']), ['Read'], 'a list without Task or SendMessage: no messaging');
  assert.deepEqual(pool(['Read', 'sendmessage']), ['SendMessage', 'Read'], 'named on its own, in any case');
  assert.deepEqual(pool(null, { disallowed: ['SendMessage'] }), ['Task', 'Read']);
  assert.deepEqual(pool(null, { depth: 2 }), ['Read'], 'at the maximum depth, where spawning stops');
  assert.deepEqual(pool(null, { mode: 'plan' }), ['Task', 'SendMessage', 'Read'], "plan mode: the run's first agent keeps it");
  assert.deepEqual(pool(null, { depth: 1, mode: 'plan' }), ['Read'], 'plan mode: the agents it starts do not');
});
