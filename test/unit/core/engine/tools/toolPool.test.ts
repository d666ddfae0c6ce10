import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSpawn, computeToolPool } from '../../../../../src/core/engine/tools/toolPool';
import { builtinTool } from '../../../../../src/protocol/tools';

const runtime = (['Task', 'TaskOutput', 'TaskStop', 'Bash', 'Read', 'Write', 'Glob'] as const).map((name) => builtinTool(name));

test('tool pool: all tools when no list; spawn tool gone at max depth; plan mode keeps reads', () => {
  const def = { tools: null, disallowedTools: [], spawns: '*' as const };
  assert.deepEqual(computeToolPool({ definition: def, runtime, depth: 0, maxDepth: 3, mode: 'default' }).tools, runtime.map((t) => t.name));
  const deep = computeToolPool({ definition: def, runtime, depth: 3, maxDepth: 3, mode: 'default' });
  assert.deepEqual(deep.tools, ['Bash', 'Read', 'Write', 'Glob']);
  assert.deepEqual(deep.spawns, []);
  assert.deepEqual(computeToolPool({ definition: def, runtime, depth: 1, maxDepth: 3, mode: 'plan' }).tools, ['Read', 'Glob']);
  assert.deepEqual(computeToolPool({ definition: { tools: [], disallowedTools: [], spawns: [] }, runtime, depth: 0, maxDepth: 3, mode: 'default' }).tools, []);
});

test('spawn checks come in their documented order', () => {
  const base = { available: ['a', 'b'], disabled: ['b'], parentName: 'a', parentSpawns: ['b'] as string[] | '*' };
  assert.match(checkSpawn({ ...base, target: 'zz' })!, /^Unknown agent/);
  assert.match(checkSpawn({ ...base, target: 'b' })!, /is disabled/);
  assert.match(checkSpawn({ ...base, disabled: [], target: 'a' })!, /Cannot spawn "a". Allowed: b/);
  assert.match(checkSpawn({ ...base, disabled: [], parentSpawns: '*', target: 'a' })!, /cannot spawn itself/);
  assert.equal(checkSpawn({ ...base, disabled: [], parentSpawns: ['a'], target: 'a' }), null);
});
