import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Engine } from '../../../../src/core/engine/engine';
import { RunHistory } from '../../../../src/core/runs/history';
import { RunStore } from '../../../../src/core/runs/runStore';
import { SNAPSHOT_TEXT_CAPS } from '../../../../src/protocol/runSnapshot';
import { agent, catalogOf, isAgent, settings } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import { startScriptedServer, type ScriptedRequest } from '../../../support/scriptedServer';

const textOf = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

test('a follow-up continues the agent with its earlier messages (the server sees them), in the same node', async () => {
  const h = await harness({
    agents: [agent('solo')],
    script: (req) => (req.turn === 0 ? { text: 'The capital is Paris.' } : { text: `You asked before: ${textOf(req.messages[0]!.content).includes('capital of France') ? 'yes' : 'no'}` }),
  });
  try {
    const first = await h.engine.run({ agent: 'solo', prompt: 'What is the capital of France?', cwd: h.dir });
    const followUp = await h.engine.sendFollowUp(first.agentId, 'And what did I ask you?');
    assert.equal(followUp.id, first.agentId, 'the same agent continues');
    const second = await followUp.done;
    assert.equal(second.status, 'completed');
    assert.equal(second.output, 'You asked before: yes');
    const last = h.server.requests.at(-1)!;
    assert.deepEqual(last.messages.map((m) => m.role), ['user', 'assistant', 'user']);
    assert.match(textOf(last.messages[1]!.content), /The capital is Paris/);
    assert.match(textOf(last.messages[2]!.content), /And what did I ask you/);
    assert.ok(second.usage.outputTokens > first.usage.outputTokens, 'usage carries over');
    assert.ok(second.turns === 2);
    const started = h.events.filter((e) => e.type === 'agent_started');
    assert.deepEqual(started.map((e) => e.type === 'agent_started' && e.resumed), [false, true]);
  } finally {
    await h.close();
  }
});

test('the spawn tool resumes an agent the parent ran earlier in the same run; unknown and running ids are refused', async () => {
  let childId = '';
  const script = (req: ScriptedRequest) => {
    if (isAgent(req.system, 'helper')) return { text: req.turn === 0 ? 'first answer' : `second answer after ${req.messages.length} messages` };
    if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'helper', description: 'ask', prompt: 'one' } }] };
    if (req.turn === 1) {
      childId = JSON.parse([...req.toolResults.values()][0]!.content).agentId as string;
      return {
        toolUses: [
          { name: 'Task', input: { description: 'continue', prompt: 'two', resume: childId } },
          { name: 'Task', input: { description: 'continue', prompt: 'x', resume: 'nope' } },
        ],
      };
    }
    return { text: [...req.toolResults.values()].map((r) => `${r.isError}:${r.content}`).join('\n') };
  };
  const h = await harness({ agents: [agent('parent'), agent('helper')], script });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    const [resumed, unknown] = (result.output ?? '').split('\n');
    assert.match(resumed!, /^false:\{"status":"completed","agentId":"\w+","output":"second answer after 3 messages"/);
    assert.equal(JSON.parse(resumed!.slice(6)).agentId, childId);
    assert.equal(unknown, 'true:No agent with id "nope" in the run history.');
  } finally {
    await h.close();
  }
});

/** An engine (as a window or the CLI has one) on the history in `dir`, with its clock at `now`. */
async function openWithHistory(serverUrl: string, dir: string, now?: () => number) {
  const history = await RunHistory.open({ dir: path.join(dir, 'store'), retentionDays: 30, maxRuns: 200, debounceMs: 10, now });
  const store = new RunStore({ coalesceMs: 0 });
  history.attach(store);
  const engine = new Engine({ client: new Anthropic({ apiKey: 'k', baseURL: serverUrl }), catalog: catalogOf(agent('solo')), settings: settings(), archive: history });
  engine.onEvent((e) => store.apply(e));
  return { history, store, engine };
}

test('after a restart, a follow-up finds the agent in the history and continues its transcript; expired ids say so', async () => {
  const server = await startScriptedServer((req) => ({ text: `reply #${req.turn} seeing ${req.messages.length} messages` }));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-history-'));
  const open = (now?: () => number) => openWithHistory(server.url, dir, now);
  try {
    const first = await open();
    const result = await first.engine.run({ agent: 'solo', prompt: 'remember 42', cwd: dir });
    await first.history.flush();

    const second = await open();
    assert.equal(second.store.agent(result.agentId)?.status, 'completed', 'the history is back after the restart');
    const followUp = await (await second.engine.sendFollowUp(result.agentId, 'what number?')).done;
    assert.equal(followUp.output, 'reply #1 seeing 3 messages');
    assert.match(textOf(server.requests.at(-1)!.messages[0]!.content), /remember 42/);
    await second.history.flush();

    const later = await open(() => Date.now() + 31 * 86_400_000);
    assert.equal(later.store.list().length, 0, 'runs past the retention window are gone');
    await assert.rejects(later.engine.sendFollowUp(result.agentId, 'again?'), /has expired: finished runs are kept for 30 days \(subagents\.history\.retentionDays\)/);
    await assert.rejects(later.engine.sendFollowUp('ffffffffffff', 'hi'), /No agent with id "ffffffffffff" in the run history/);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('an agent ended in this process continues from memory after another process expired its run; without memory, the follow-up says it expired', async () => {
  const server = await startScriptedServer((req) => ({ text: `reply #${req.turn} seeing ${req.messages.length} messages` }));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-history-'));
  const open = (now?: () => number) => openWithHistory(server.url, dir, now);
  try {
    const here = await open();
    const result = await here.engine.run({ agent: 'solo', prompt: 'remember 42', cwd: dir });
    await here.history.flush();
    // Another window whose clock is past the retention window removes the run and its transcript.
    const elsewhere = await open(() => Date.now() + 31 * 86_400_000);
    assert.equal(elsewhere.store.list().length, 0);
    await assert.rejects(elsewhere.engine.sendFollowUp(result.agentId, 'what number?'), /has expired/);

    const followUp = await (await here.engine.sendFollowUp(result.agentId, 'what number?')).done;
    assert.equal(followUp.output, 'reply #1 seeing 3 messages', 'the earlier answer is still part of the conversation');
    assert.match(textOf(server.requests.at(-1)!.messages[1]!.content), /reply #0/);
    await here.history.flush();
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a long message that continues an ended agent reaches the agent whole, but the run file and every event keep it capped', async () => {
  const server = await startScriptedServer((req) => ({ text: `read ${textOf(req.messages.at(-1)!.content).length} characters` }));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-caps-'));
  try {
    const { history, store, engine } = await openWithHistory(server.url, dir);
    const events: Array<{ type: string; [k: string]: unknown }> = [];
    engine.onEvent((e) => events.push(e));
    const first = await engine.run({ agent: 'solo', prompt: 'start', cwd: dir });
    const message = `${'long message line\n'.repeat(200_000)}the end`;
    const sent = await engine.send(first.agentId, { text: message, via: 'cli' });
    assert.equal(sent.delivery, 'continued');
    await (sent.delivery === 'continued' ? sent.run.done : null);
    await history.flush();
    // The agent read all of it.
    assert.ok(textOf(server.requests.at(-1)!.messages.at(-1)!.content).includes('the end'));
    const runFile = path.join(dir, 'store', 'runs', `${first.runId}.json`);
    const { readFile, stat } = await import('node:fs/promises');
    assert.ok((await stat(runFile)).size < 60_000, `the run file is ${(await stat(runFile)).size} bytes`);
    const node = store.agent(first.agentId)!;
    assert.ok(node.prompt.length <= SNAPSHOT_TEXT_CAPS.prompt + 40, `prompt kept: ${node.prompt.length}`);
    assert.match(node.prompt, /… \[\d{1,3}(,\d{3})* more characters\]$/);
    assert.ok(node.messages!.every((m) => m.text.length <= SNAPSHOT_TEXT_CAPS.line + 40));
    assert.ok(JSON.stringify(JSON.parse(await readFile(runFile, 'utf8'))).length < 60_000);
    for (const e of events) assert.ok(JSON.stringify(e).length < 20_000, `${e.type} event of ${JSON.stringify(e).length} characters`);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});
