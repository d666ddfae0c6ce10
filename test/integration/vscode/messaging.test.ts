import '../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatParticipantHandler } from '../../../src/vscode/chat/chatParticipant';
import { AgentTools } from '../../../src/vscode/lm/agentTools';
import { sendMessageCommand } from '../../../src/vscode/messageCommands';
import { handleRunsViewMessage } from '../../../src/vscode/views';
import { agent, isAgent } from '../../support/agents';
import { fakeServices, scriptedWorkspace, type FakeFolder } from '../../support/fakeServices';
import type { ScriptedRequest } from '../../support/scriptedServer';
import * as vscode from '../../support/vscodeFake';
import { until } from '../../support/until';

// Talking to agents from VS Code's surfaces, against real engines (scripted
// model server) and a fake of the vscode API: the Runs view's message box,
// Send Message to Agent, chat steering and /stop, and the LM tools.

function userTexts(req: ScriptedRequest): string[] {
  return req.messages
    .filter((m) => m.role === 'user' && Array.isArray(m.content))
    .flatMap((m) => (m.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text ?? ''));
}

/** The message texts an agent has read, in order (the delivered blocks' bodies). */
function heard(req: ScriptedRequest): string[] {
  return userTexts(req).flatMap((t) => [...t.matchAll(/<message from="[^"]*"[^>]*>\n([\s\S]*?)\n<\/message>/g)].map((m) => m[1]!));
}

const workspace = scriptedWorkspace((req) => {
  const texts = userTexts(req).join('\n');
  if (isAgent(req.system, 'sleeper')) return { hang: true };
  if (isAgent(req.system, 'lead')) {
    if (req.turn === 0) {
      return {
        toolUses: [
          { name: 'Task', input: { subagent_type: 'sleeper', description: 'sleep', prompt: 'sleep', run_in_background: true } },
          { name: 'Task', input: { subagent_type: 'steady', description: 'steady', prompt: 'steady', run_in_background: true } },
        ],
      };
    }
    if (req.turn === 1) return { text: 'waiting for both' };
    return { text: `lead heard: ${userTexts(req).slice(-2).join(' | ')}` };
  }
  if (isAgent(req.system, 'steady')) return { delayMs: 600, text: 'steady result' };
  // worker: a slow turn with a tool call whenever it has something new to read, then it says what it heard.
  if (texts.includes('slow please') && req.turn <= 2 && !req.toolResults.size) return { delayMs: 400, toolUses: [{ name: 'LS', input: {} }] };
  if (heard(req).length) return { text: `heard: ${heard(req).join(' + ')}` };
  return { text: `done: ${req.lastUserText}` };
});
const folder = workspace.folder.bind(workspace);

function responseStream() {
  const writes: string[] = [];
  const write =
    (kind: string) =>
    (...args: unknown[]) =>
      writes.push(`${kind} ${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}`);
  const stream = { markdown: write('markdown'), progress: write('progress'), reference: write('reference'), button: write('button'), anchor: write('anchor') };
  return { stream, writes, text: () => writes.join('\n') };
}

async function chatFor(folders: FakeFolder[]) {
  const fake = await fakeServices(folders);
  const handler = new ChatParticipantHandler(Promise.resolve(fake.services));
  const handle = (prompt: string, options: { command?: string; history?: unknown[] } = {}) => {
    const out = responseStream();
    const token = new vscode.CancellationTokenSource();
    const done = (handler.handle as (...args: unknown[]) => Promise<{ metadata?: Record<string, unknown> }>)({ prompt, command: options.command, references: [] }, { history: options.history ?? [] }, out.stream, token.token);
    return { ...out, token, done: Promise.resolve(done) };
  };
  return { ...fake, handle };
}

test('the Runs view message box sends through Send Message: queued for an agent at work, no toast; the agent reads it at its next turn', async () => {
  const app = folder('app', [agent('worker')]);
  const fake = await fakeServices([app]);
  const run = await fake.runtime.start({ scope: fake.scopes[0]!.spec(), agent: 'worker', prompt: 'slow please' });
  handleRunsViewMessage(fake.services, { type: 'sendMessage', agentId: run.agentId, text: 'check the tests too' });
  assert.deepEqual(vscode.shown.commands.at(-1), { command: 'subagents.sendMessage', args: [run.agentId, 'check the tests too', 'runsView'] });
  assert.equal(await sendMessageCommand(fake.services, async () => undefined, run.agentId, 'check the tests too', 'runsView'), 'queued');
  const result = await run.result();
  assert.equal(result.output, 'heard: check the tests too');
  assert.deepEqual(vscode.shown.messages, [], 'the Runs view shows the message in the tree: no toast');
  const node = fake.store.agent(run.agentId)!;
  assert.equal(node.messages?.length, 1);
  assert.equal(node.messages![0]!.from, null);
  assert.equal(node.messages![0]!.via, 'runsView');
  assert.notEqual(node.messages![0]!.deliveredAt, null);
});

test('Send Message to an agent that has ended continues it and shows its run; an unknown agent is an error message', async () => {
  const app = folder('app', [agent('worker')]);
  const fake = await fakeServices([app]);
  const first = await fake.runtime.start({ scope: fake.scopes[0]!.spec(), agent: 'worker', prompt: 'first' });
  await first.result();
  const revealed: Array<string | undefined> = [];
  assert.equal(await sendMessageCommand(fake.services, async (runId) => void revealed.push(runId), first.agentId, 'and a second thing', 'palette'), 'continued');
  assert.deepEqual(revealed, [first.runId]);
  assert.equal((await fake.runtime.waitFor(first.agentId))?.output, 'heard: and a second thing');
  assert.equal(await sendMessageCommand(fake.services, async () => undefined, 'nope', 'hello', 'palette'), undefined);
  assert.match(vscode.shown.messages.at(-1)!.text, /Could not send the message to nope: No agent with id "nope"/);
});

test('chat: a message in a thread whose run is still going steers its agent, and the response follows the run to its end', async () => {
  const chat = await chatFor([folder('app', [agent('worker')])]);
  const first = await chat.handle('worker slow please').done;
  const history = [new vscode.ChatResponseTurn('subagents.agent', first)];
  const workerId = String(first.metadata!.agentId);
  // The run goes on after the thread's answer (a message from the Runs view continued the agent).
  assert.equal(await sendMessageCommand(chat.services, async () => undefined, workerId, 'from the Runs view', 'runsView'), 'continued');
  await until('the worker to work again', () => chat.store.agent(workerId)?.status === 'running');
  const steer = chat.handle('and keep it short', { history });
  const result = await steer.done;
  assert.match(steer.text(), /Sent to \*\*worker\*\*: it reads your message at its next turn\./);
  assert.match(steer.text(), /heard: from the Runs view \+ and keep it short/);
  assert.match(steer.text(), /button \{"title":"Message worker…","command":"subagents.sendMessage"/);
  assert.deepEqual(result.metadata, { runId: first.metadata!.runId, agentId: workerId, agentName: 'worker' });
});

test('chat: /stop <agent> stops one agent of the thread’s run; its parent is told and goes on, its sibling is untouched', async () => {
  const chat = await chatFor([folder('app', [agent('lead'), agent('sleeper'), agent('steady')])]);
  const lead = chat.handle('lead coordinate');
  await until('the children', () => chat.store.list()[0] !== undefined && Object.values(chat.store.list()[0]!.agents).length === 3);
  const run = chat.store.list()[0]!;
  // The thread's answer is still streaming; the stop comes from the same thread once VS Code hands it over.
  const history = [new vscode.ChatResponseTurn('subagents.agent', { metadata: { runId: run.runId, agentId: run.rootAgentId, agentName: 'lead' } })];
  const stop = chat.handle('sleeper', { command: 'stop', history });
  await stop.done;
  assert.match(stop.text(), /Stopped \*\*sleeper\*\*, with the agents it started\. \*\*lead\*\*, which started it, is told and goes on\./);
  const done = await lead.done;
  assert.equal(done.metadata!.agentName, 'lead');
  const statuses = Object.fromEntries(Object.values(chat.store.get(run.runId)!.agents).map((a) => [a.agentName, a.status]));
  assert.deepEqual(statuses, { lead: 'completed', sleeper: 'cancelled', steady: 'completed' });
  assert.match(lead.text(), /lead heard: .*Stopped by the user from chat\./s);

  const unknown = chat.handle('nobody', { command: 'stop', history });
  await unknown.done;
  assert.match(unknown.text(), /No agent "nobody" in this thread's run\. Its agents: `lead`/);
  const noThread = chat.handle('sleeper', { command: 'stop' });
  await noThread.done;
  assert.match(noThread.text(), /`\/stop` stops an agent of this thread's run, and this thread has none/);
});

test('LM tools: agentOutput with a message steers a running agent; runAgent with an agentId continues an ended one; stopAgent stops a child alone', async () => {
  const app = folder('app', [agent('worker'), agent('lead'), agent('sleeper'), agent('steady')]);
  const fake = await fakeServices([app]);
  const tools = new AgentTools(fake.services);
  const token = new vscode.CancellationTokenSource().token;
  const text = (result: { content: unknown[] }) => (result.content[0] as { value: string }).value;

  const run = await fake.runtime.start({ scope: fake.scopes[0]!.spec(), agent: 'worker', prompt: 'slow please' });
  const steered = text(await tools.agentOutput({ agentId: run.agentId, message: 'only the docs', waitSeconds: 10 }, token as never));
  assert.match(steered, /^Message sent to worker: it reads it at its next turn\.\nworker completed/);
  assert.match(steered, /heard: only the docs/);

  const again = text(await tools.runAgent({ agent: 'worker', task: 'now the tests', agentId: run.agentId }, token as never));
  assert.match(again, /^worker had ended; it was continued with the message\.\n\nworker completed/);
  assert.match(again, /heard: .*now the tests/);

  const lead = await fake.runtime.start({ scope: fake.scopes[0]!.spec(), agent: 'lead', prompt: 'coordinate' });
  await until('the children', () => Object.keys(fake.store.get(lead.runId)?.agents ?? {}).length === 3);
  const sleeper = Object.values(fake.store.get(lead.runId)!.agents).find((a) => a.agentName === 'sleeper')!;
  assert.match(text(await tools.stopAgent({ agentId: sleeper.agentId })), /^Stopping sleeper \(\w+\) and every agent it started\. lead, which started it, is told and goes on\.$/);
  const result = await lead.result();
  assert.equal(result.status, 'completed');
  assert.match(result.output ?? '', /Stopped by a language-model tool call\./);
});

test('chat: a thread whose answer a reload cut short still reaches its run (it went on in the agent host): a message steers it, and the answer follows it', async () => {
  const chat = await chatFor([folder('app', [agent('worker')])]);
  const run = await chat.runtime.start({ scope: chat.scopes[0]!.spec(), agent: 'worker', prompt: 'slow please' });
  // What VS Code keeps of an answer cut short: the parts it showed (the link to the run among them), no result.
  const link = `[Show in Sidebar](command:subagents.showRun?${encodeURIComponent(JSON.stringify([{ runId: run.runId, agentId: run.agentId }]))})`;
  const history = [new vscode.ChatResponseTurn('subagents.agent', {}, [new vscode.ChatResponseMarkdownPart({ value: 'worker is thinking…' }), new vscode.ChatResponseMarkdownPart({ value: link })])];
  const steer = chat.handle('keep it short', { history });
  const result = await steer.done;
  assert.match(steer.text(), /Sent to \*\*worker\*\*: it reads your message at its next turn\./);
  assert.match(steer.text(), /heard: keep it short/);
  assert.deepEqual(result.metadata, { runId: run.runId, agentId: run.agentId, agentName: 'worker' });
});
