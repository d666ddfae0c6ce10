import { test } from 'node:test';
import assert from 'node:assert/strict';
import { projectValue, USER_ONLY_SETTING_KEYS } from '../../../src/core/projectSettings';

test('an untrusted project narrows only: lower limits, a budget where there was none, switches off, lists added to', () => {
  const applies = (verdict: ReturnType<typeof projectValue>) => (verdict.apply ? verdict.value : 'ignored');
  assert.equal(applies(projectValue('maxTurns', 10, 100, false)), 10);
  assert.equal(applies(projectValue('maxTurns', 200, 100, false)), 'ignored');
  assert.equal(applies(projectValue('network.turnTimeoutSeconds', 3600, 600, false)), 'ignored');
  assert.equal(applies(projectValue('budget.maxTokens', 5000, 0, false)), 5000, 'a budget where the user had none');
  assert.equal(applies(projectValue('budget.maxTokens', 0, 8000, false)), 'ignored', 'removing the user budget');
  assert.equal(applies(projectValue('budget.maxCostUsd', 3, 2, false)), 'ignored');
  assert.equal(applies(projectValue('hooks.enabled', false, true, false)), false);
  assert.equal(applies(projectValue('hooks.enabled', true, false, false)), 'ignored');
  assert.equal(applies(projectValue('permissionMode', 'default', 'default', false)), 'ignored', 'restricted, whatever the value');
  assert.equal(applies(projectValue('defaultModel', 'haiku', 'sonnet', false)), 'haiku');
  const union = projectValue('disabledAgents', ['b'], ['a'], false);
  assert.deepEqual(union, { apply: true, value: ['a', 'b'], note: 'it cannot take "a" off your list (an untrusted project\'s settings can only narrow yours); the project\'s entries are added to yours' });
  assert.deepEqual(applies(projectValue('disabledAgents', ['b'], ['a'], true)), ['b'], 'a trusted project replaces the list');
  assert.equal(applies(projectValue('maxTurns', 200, 100, true)), 200, 'trusted: as written');
});

test('the history and agent-host settings follow the user alone, trusted project or not (one history, one host, for every project)', () => {
  assert.deepEqual(USER_ONLY_SETTING_KEYS, ['history.retentionDays', 'history.maxRuns', 'history.maxEventsPerRun', 'host.enabled', 'host.idleExitSeconds', 'host.unattendedApprovalSeconds']);
  for (const trusted of [false, true]) {
    assert.equal(projectValue('history.maxRuns', 1, 200, trusted).apply, false);
    assert.equal(projectValue('host.unattendedApprovalSeconds', 5, 1800, trusted).apply, false);
  }
});
