import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startScriptedServer, type Script, type ScriptedServer } from '../../support/scriptedServer';
import { subagents, waitFor } from '../api';

// Copilot integration in the real extension host, against the scripted
// Messages API server: our agents as language-model tools (what VS Code's
// agent mode calls), and our Claude models through vscode.lm.

const TEST_RUNNER = 'You run tests and report on them';
const REVIEWER = 'Review the change you are given';
const LM_MARKER = 'LM-PROVIDER-TEST';

const script: Script = (req) => {
  if (req.lastUserText.includes(LM_MARKER) || req.messages.some((m) => JSON.stringify(m.content).includes(LM_MARKER))) {
    if (req.toolResults.size > 0) return { text: `The lookup said: ${[...req.toolResults.values()][0]?.content}` };
    return { text: 'Looking it up.', toolUses: [{ name: 'lookup', input: { term: 'tally' } }] };
  }
  if (req.system.includes(TEST_RUNNER)) {
    if (req.toolResults.size > 0) return { text: 'All 3 tests pass.' };
    return { toolUses: [{ name: 'Read', input: { file_path: 'package.json' } }] };
  }
  // code-reviewer in the background: slow, so a test can see it running and stop it.
  if (req.system.includes(REVIEWER)) return { text: `Reviewed: ${req.lastUserText}`, delayMs: req.lastUserText.includes('slowly') ? 30_000 : 200 };
  return { text: 'ok' };
};

function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}

describe('Copilot integration: language-model tools and chat models', function () {
  this.timeout(60_000);
  let server: ScriptedServer;
  const config = () => vscode.workspace.getConfiguration('subagents');
  const target = vscode.ConfigurationTarget.Workspace;
  const token = () => new vscode.CancellationTokenSource().token;

  before(async () => {
    server = await startScriptedServer(script);
    await subagents();
    await config().update('apiBaseUrl', server.url, target);
    await config().update('permissionMode', 'bypassPermissions', target);
    assert.equal(await vscode.commands.executeCommand('subagents.setApiKey', 'sk-ant-exthost-lm'), true);
  });

  after(async () => {
    await vscode.commands.executeCommand('subagents.stopAll');
    await config().update('apiBaseUrl', undefined, target);
    await config().update('permissionMode', undefined, target);
    await server?.close();
  });

  it('declares the tools with reference names a Copilot agent file can list', () => {
    const ours = vscode.lm.tools.filter((t) => t.name.startsWith('subagents_'));
    assert.deepEqual(ours.map((t) => t.name).sort(), ['subagents_agentOutput', 'subagents_listAgents', 'subagents_runAgent', 'subagents_stopAgent']);
    const run = ours.find((t) => t.name === 'subagents_runAgent')!;
    assert.deepEqual((run.inputSchema as { required?: string[] }).required, ['agent', 'task']);
    assert.match(run.description, /subagents_listAgents/);
  });

  it('listAgents names the workspace agents with what they are for', async () => {
    const text = textOf(await vscode.lm.invokeTool('subagents_listAgents', { input: {}, toolInvocationToken: undefined }, token()));
    assert.match(text, /- test-runner: Runs the project's tests/);
    assert.match(text, /- tech-lead: /);
  });

  it('runAgent in the foreground returns the answer and the run summary; the run is in the store like any other', async () => {
    const api = await subagents();
    const before = api.runs().length;
    const result = await vscode.lm.invokeTool('subagents_runAgent', { input: { agent: 'test-runner', task: 'Check the tests' }, toolInvocationToken: undefined }, token());
    const text = textOf(result);
    assert.match(text, /^test-runner completed \(agentId \w+\)\./);
    assert.match(text, /\*\*Run summary:\*\* 1 agent · 2 turns/);
    assert.match(text, /Output:\nAll 3 tests pass\./);
    const run = api.runs().find((r) => Object.values(r.agents).some((a) => a.agentName === 'test-runner' && a.prompt === 'Check the tests'));
    assert.ok(run && api.runs().length === before + 1, 'the run is in the run store');
    assert.equal(run.status, 'completed');
  });

  it('runAgent in the background returns at once; agentOutput waits for it; stopAgent stops another', async () => {
    const launch = textOf(await vscode.lm.invokeTool('subagents_runAgent', { input: { agent: 'code-reviewer', task: 'look at count.js', background: true }, toolInvocationToken: undefined }, token()));
    const { agentId, status } = JSON.parse(launch.split('\n')[0]!) as { agentId: string; status: string };
    assert.equal(status, 'async_launched');
    const done = textOf(await vscode.lm.invokeTool('subagents_agentOutput', { input: { agentId, waitSeconds: 20 }, toolInvocationToken: undefined }, token()));
    assert.match(done, /^code-reviewer completed/);
    assert.match(done, /Reviewed: look at count\.js/);

    const slow = textOf(await vscode.lm.invokeTool('subagents_runAgent', { input: { agent: 'code-reviewer', task: 'review slowly', background: true }, toolInvocationToken: undefined }, token()));
    const slowId = (JSON.parse(slow.split('\n')[0]!) as { agentId: string }).agentId;
    const running = textOf(await vscode.lm.invokeTool('subagents_agentOutput', { input: { agentId: slowId }, toolInvocationToken: undefined }, token()));
    assert.equal((JSON.parse(running.split('\n')[0]!) as { status: string }).status, 'running');
    assert.match(textOf(await vscode.lm.invokeTool('subagents_stopAgent', { input: { agentId: slowId }, toolInvocationToken: undefined }, token())), /^Stopping code-reviewer/);
    const api = await subagents();
    await waitFor(() => api.runs().some((r) => r.agents[slowId]?.status === 'cancelled'), 'the stopped agent did not end as cancelled');
    const after = textOf(await vscode.lm.invokeTool('subagents_agentOutput', { input: { agentId: slowId }, toolInvocationToken: undefined }, token()));
    assert.match(after, /^code-reviewer cancelled/);
  });

  it('an unknown agent is an error that names the agents there are', async () => {
    await assert.rejects(
      Promise.resolve(vscode.lm.invokeTool('subagents_runAgent', { input: { agent: 'nobody', task: 'x' }, toolInvocationToken: undefined }, token())),
      /Unknown agent "nobody"\. Available: .*test-runner/,
    );
  });

  it('selectChatModels finds our Claude models, and a request streams the model’s text and tool call', async () => {
    const models = await vscode.lm.selectChatModels({ vendor: 'subagents' });
    assert.deepEqual(models.map((m) => m.id).sort(), ['claude-fable-5-2', 'claude-haiku-5-5', 'claude-mythos-5-2', 'claude-opus-5-5', 'claude-sonnet-5-5']);
    const sonnet = models.find((m) => m.id === 'claude-sonnet-5-5')!;
    assert.equal(sonnet.family, 'claude-sonnet');
    assert.equal(sonnet.name, 'Claude Sonnet 5.5');
    server.resetStats();
    const tool = { name: 'lookup', description: 'Looks a term up', inputSchema: { type: 'object', properties: { term: { type: 'string' } }, required: ['term'] } };
    const first = await sonnet.sendRequest([vscode.LanguageModelChatMessage.User(`${LM_MARKER}: what is tally?`)], { tools: [tool] }, token());
    let text = '';
    const calls: vscode.LanguageModelToolCallPart[] = [];
    for await (const part of first.stream) {
      if (part instanceof vscode.LanguageModelTextPart) text += part.value;
      else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
    }
    assert.equal(text, 'Looking it up.');
    assert.deepEqual(calls.map((c) => [c.name, c.input]), [['lookup', { term: 'tally' }]]);
    const sent = server.requests.at(-1)!;
    assert.equal(sent.model, 'claude-sonnet-5-5');
    assert.deepEqual(sent.toolNames, ['lookup']);
    assert.ok([sent.headers['x-api-key'], sent.headers.authorization].some((v) => String(v).endsWith('sk-ant-exthost-lm')), 'the request carries the stored key');

    const second = await sonnet.sendRequest(
      [
        vscode.LanguageModelChatMessage.User(`${LM_MARKER}: what is tally?`),
        vscode.LanguageModelChatMessage.Assistant([new vscode.LanguageModelTextPart('Looking it up.'), calls[0]!]),
        vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(calls[0]!.callId, [new vscode.LanguageModelTextPart('a word counter')])]),
      ],
      { tools: [tool] },
      token(),
    );
    let answer = '';
    for await (const chunk of second.text) answer += chunk;
    assert.equal(answer, 'The lookup said: a word counter');
    assert.ok((await sonnet.countTokens('a'.repeat(400))) >= 90);
  });
});
