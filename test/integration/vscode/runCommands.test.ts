import '../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentDefinition } from '../../../src/core/agents/definition';
import { runAgentCommand } from '../../../src/vscode/runCommands';
import { agent, isAgent } from '../../support/agents';
import { fakeServices, scriptedWorkspace } from '../../support/fakeServices';
import * as vscode from '../../support/vscodeFake';

// Run Agent with arguments (the Agents view's ▷, keybindings, other
// extensions) against a real engine and a fake of the vscode API.

// The looper would list files for ever: only a budget stops it.
const workspace = scriptedWorkspace((req) => (isAgent(req.system, 'looper') ? { text: `listing ${req.turn}`, toolUses: [{ name: 'LS', input: {} }] } : { text: 'All done.' }));

function services(agents: AgentDefinition[]) {
  return fakeServices([workspace.folder('app', agents)]);
}

const reveal = () => Promise.resolve();

test('an agent for other agents only (user-invocable: false) is refused with a reason, and nothing runs', async () => {
  const { services: s, store } = await services([agent('sql-helper', { userInvocable: false })]);
  assert.equal(await runAgentCommand(s, reveal, { agent: 'sql-helper', task: 'index the orders table' }), undefined);
  assert.equal(store.list().length, 0);
  assert.match(vscode.shown.messages.map((m) => m.text).join('\n'), /"sql-helper" is there for other agents to start \(user-invocable: false/);
});

test('the end of a run started here is announced (Runs view out of sight), unless the caller asks not to with notify: false', async () => {
  const { services: s, runtime } = await services([agent('test-runner')]);
  const announced = await runAgentCommand(s, reveal, { agent: 'test-runner', task: 'run the tests' });
  await runtime.waitFor(announced!);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(vscode.shown.messages.map((m) => [m.level, m.text, m.items]), [['info', 'test-runner finished: All done.', ['Show Result', 'Show Transcript']]], 'the answer goes with it');

  vscode.shown.messages.length = 0;
  const quiet = await runAgentCommand(s, reveal, { agent: 'test-runner', task: 'once more', notify: false });
  await runtime.waitFor(quiet!);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(vscode.shown.messages, []);
});

test('a budget argument limits the run: it stops at the budget with budget_exceeded and says so', async () => {
  const { services: s, runtime } = await services([agent('looper')]);
  const id = await runAgentCommand(s, reveal, { agent: 'looper', task: 'list everything', budget: { maxTokens: 5000 } });
  const result = (await runtime.waitFor(id!))!;
  assert.equal(result.status, 'budget_exceeded');
  assert.match(result.error ?? '', /Token budget reached: \d+ of 5000 tokens used/);
  await new Promise((r) => setImmediate(r));
  assert.match(vscode.shown.messages.map((m) => m.text).join('\n'), /looper stopped at its budget: Token budget reached/);
});

test('a malformed budget argument is refused with what it should be, and nothing runs', async () => {
  const { services: s, store } = await services([agent('looper')]);
  assert.equal(await runAgentCommand(s, reveal, { agent: 'looper', task: 'x', budget: { maxTokens: 'lots' } as never }), undefined);
  assert.equal(store.list().length, 0);
  assert.match(vscode.shown.messages.map((m) => m.text).join('\n'), /budget must be \{ maxTokens\?: whole number ≥ 0, maxCostUsd\?: number ≥ 0 \}, got \{"maxTokens":"lots"\}/);
});
