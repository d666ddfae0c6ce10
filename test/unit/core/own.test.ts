import { test } from 'node:test';
import assert from 'node:assert/strict';
import { own } from '../../../src/core/own';
import { resolveAlias } from '../../../src/core/engine/loop/models';
import { modelEffect } from '../../../src/core/agents/interpretation/modelNames';
import { expandVariables } from '../../../src/core/mcp/variables';
import { agentOf } from '../../../src/protocol/runSnapshot';

const MEMBERS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

test('a key from outside finds only own entries, never Object members', () => {
  const record: Record<string, string> = { sonnet: 'claude-sonnet-4-5' };
  for (const key of MEMBERS) assert.equal(own(record, key), undefined, key);
  assert.equal(own(record, 'sonnet'), 'claude-sonnet-4-5');
  assert.equal(own({ PATH: '/bin' } as NodeJS.ProcessEnv, 'constructor'), undefined);
});

test('an agent file whose model is an Object member name runs as written, not as a function', () => {
  const aliases = { sonnet: 'claude-sonnet-4-5' };
  for (const model of MEMBERS) {
    assert.equal(resolveAlias(model, aliases), model);
    assert.equal(typeof modelEffect(model, aliases).text, 'string');
  }
});

test("a server setting's variable named after an Object member is missing, not a function's source", () => {
  const expanded = expandVariables('${constructor}-${env:toString}', 'claude', { env: { HOME: '/h' }, home: '/h', folder: '/p', pluginRoot: null });
  assert.equal(expanded.value.includes('function'), false, expanded.value);
});

test('agentOf: an outside id is an agent of the run only when the run has it', () => {
  const run = { agents: { a1: { agentId: 'a1' } } } as never;
  for (const id of MEMBERS) assert.equal(agentOf(run, id), undefined, id);
  assert.equal(agentOf(run, 'a1')?.agentId, 'a1');
});
