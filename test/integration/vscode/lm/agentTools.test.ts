import '../../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentTools } from '../../../../src/vscode/lm/agentTools';
import { agent, isAgent } from '../../../support/agents';
import { fakeServices, scriptedWorkspace, slowConsent } from '../../../support/fakeServices';
import * as vscode from '../../../support/vscodeFake';

// The language-model tools against real engines (scripted model server) and
// a fake of the vscode API: cancellation, and what a wait leaves behind.

const workspace = scriptedWorkspace((req) => (isAgent(req.system, 'slow') ? { text: 'slow and done', delayMs: 300 } : { text: `done: ${req.lastUserText}` }));
const folder = workspace.folder.bind(workspace);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const textOf = (result: unknown) => (result as vscode.LanguageModelToolResult).content.map((p) => (p as vscode.LanguageModelTextPart).value).join('');

test('runAgent: a call already cancelled starts nothing', async () => {
  const { services, store } = await fakeServices([folder('app', [agent('helper')])]);
  const cancelled = new vscode.CancellationTokenSource();
  cancelled.cancel();
  await assert.rejects(new AgentTools(services).runAgent({ agent: 'helper', task: 'x' }, cancelled.token), vscode.CancellationError);
  assert.equal(store.list().length, 0);
});

test('runAgent: a call cancelled while the agent file’s mode is asked about never reaches the model', async () => {
  const { ask, asking } = slowConsent();
  const { services } = await fakeServices([folder('app', [agent('wide', { permissionMode: 'acceptEdits' })], ask)]);
  const tools = new AgentTools(services);
  const token = new vscode.CancellationTokenSource();
  const call = tools.runAgent({ agent: 'wide', task: 'tidy up' }, token.token);
  await asking;
  token.cancel();
  await assert.rejects(call, vscode.CancellationError);
  await sleep(300);
  assert.equal(workspace.server.requests.length, 0, 'the model was asked after the call was cancelled');
  assert.equal(token.token.listeners, 0, 'the cancellation listener was left behind');
});

test('runAgent with no folder open says to open one', async () => {
  const { services } = await fakeServices([]);
  await assert.rejects(new AgentTools(services).runAgent({ agent: 'helper', task: 'x' }, new vscode.CancellationTokenSource().token), /No folder is open/);
});

test('agentOutput waits for the agent, and leaves neither its cancellation listener nor its timer behind', async (t) => {
  const { services } = await fakeServices([folder('app', [agent('slow')])]);
  const tools = new AgentTools(services);
  const launch = JSON.parse(textOf(await tools.runAgent({ agent: 'slow', task: 'take a moment', background: true }, new vscode.CancellationTokenSource().token)).split('\n')[0]!) as { agentId: string };
  // The tool's own wait is the only 300 s timer: track whether it is cleared.
  const waits = new Set<unknown>();
  const { setTimeout: set, clearTimeout: clear } = globalThis;
  const setTimeoutMock = t.mock.method(globalThis, 'setTimeout', (...args: Parameters<typeof setTimeout>) => {
    const timer = set(...args);
    if (args[1] === 300_000) waits.add(timer);
    return timer;
  });
  t.mock.method(globalThis, 'clearTimeout', (timer: Parameters<typeof clearTimeout>[0]) => {
    waits.delete(timer);
    clear(timer);
  });
  const token = new vscode.CancellationTokenSource();
  const output = textOf(await tools.agentOutput({ agentId: launch.agentId, waitSeconds: 600 }, token.token));
  assert.match(output, /^slow completed/);
  assert.equal(setTimeoutMock.mock.calls.filter((c) => c.arguments[1] === 300_000).length, 1, 'the wait is capped at 300 s');
  assert.equal(waits.size, 0, 'the 300 s timer is still pending');
  assert.equal(token.token.listeners, 0, 'the cancellation listener is still registered');
});
