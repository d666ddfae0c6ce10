import '../../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatParticipantHandler } from '../../../../src/vscode/chat/chatParticipant';
import { agent, isAgent } from '../../../support/agents';
import { fakeServices, scriptedWorkspace, slowConsent, type FakeFolder } from '../../../support/fakeServices';
import * as vscode from '../../../support/vscodeFake';
import { until } from '../../../support/until';

// The @agent handler against real engines (scripted model server) and a
// fake of the vscode API: what it writes, what it starts, and when it stops.

const workspace = scriptedWorkspace((req) => (isAgent(req.system, 'slowpoke') ? { hang: true } : { text: `done: ${req.lastUserText}` }));
const folder = workspace.folder.bind(workspace);

/** A response stream that records its writes and, once closed, throws as VS Code's does. */
function responseStream() {
  const writes: string[] = [];
  let closed = false;
  const write =
    (kind: string) =>
    (...args: unknown[]) => {
      if (closed) throw new Error('Response stream has been closed');
      writes.push(`${kind} ${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}`);
    };
  const stream = { markdown: write('markdown'), progress: write('progress'), reference: write('reference'), button: write('button'), anchor: write('anchor') };
  return { stream, writes, text: () => writes.join('\n'), close: () => (closed = true) };
}

function request(prompt: string, command?: string) {
  return { prompt, command, references: [] };
}

type Handle = ChatParticipantHandler['handle'];
async function handlerFor(folders: FakeFolder[]) {
  const fake = await fakeServices(folders);
  const handler = new ChatParticipantHandler(Promise.resolve(fake.services));
  const handle = (prompt: string, options: { command?: string; token?: vscode.CancellationTokenSource; history?: unknown[] } = {}) => {
    const out = responseStream();
    const token = options.token ?? new vscode.CancellationTokenSource();
    const done = (handler.handle as (...args: unknown[]) => ReturnType<Handle>)(request(prompt, options.command), { history: options.history ?? [] }, out.stream, token.token);
    return { ...out, token, done: Promise.resolve(done) };
  };
  return { ...fake, handler, handle };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a stop while the agent file’s permission mode is being asked about: the run never reaches the model', async () => {
  const { ask, asking } = slowConsent();
  const wide = agent('wide', { permissionMode: 'acceptEdits' });
  const chat = await handlerFor([folder('app', [wide], ask)]);
  const call = chat.handle('wide tidy the imports');
  await asking;
  call.token.cancel();
  await call.done;
  await sleep(300);
  assert.equal(workspace.server.requests.length, 0, 'the model was asked after the user stopped');
  assert.ok(chat.store.list().every((r) => r.status === 'cancelled'), 'whatever was made of the run ended as cancelled');
});

test('a request already stopped starts nothing', async () => {
  const chat = await handlerFor([folder('app', [agent('general-purpose')])]);
  const token = new vscode.CancellationTokenSource();
  token.cancel();
  const call = chat.handle('fix the build', { token });
  await call.done;
  await sleep(100);
  assert.equal(chat.store.list().length, 0);
  assert.equal(workspace.server.requests.length, 0);
});

test('after Stop the response gets no more writes, so a closed stream throws nothing, and the run is cancelled', async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  try {
    const chat = await handlerFor([folder('app', [agent('slowpoke')])]);
    const call = chat.handle('slowpoke take your time');
    await until('slowpoke to start', () => chat.store.list()[0]?.status === 'running');
    await until('the log to show slowpoke', () => call.writes.some((w) => w.includes('slowpoke')));
    // VS Code drops what comes after a cancellation, and closes the stream a second later.
    call.token.cancel();
    call.close();
    const result = await call.done;
    await sleep(400);
    assert.deepEqual(uncaught, []);
    assert.equal(chat.store.list()[0]?.status, 'cancelled');
    assert.equal((result as { metadata?: { agentName?: string } }).metadata?.agentName, 'slowpoke', 'the thread can still continue the agent');
  } finally {
    process.off('uncaughtException', onUncaught);
  }
});

test('multi-root: a name found only in another folder runs there, whichever editor is active', async () => {
  const a = folder('web', [agent('general-purpose', { source: 'bundled' }), agent('plan', { source: 'bundled' })]);
  const b = folder('db', [agent('general-purpose', { source: 'bundled' }), agent('db-migrator')]);
  const chat = await handlerFor([a, b]);
  chat.activate('web');
  const call = chat.handle('db-migrator add the index');
  await call.done;
  const run = chat.store.list()[0];
  const root = run?.agents[run.rootAgentId];
  assert.equal(root?.agentName, 'db-migrator', call.text());
  assert.equal(root?.cwd, b.dir);
  assert.equal(root?.prompt, 'add the index');
  assert.match(call.text(), /done: add the index/, 'the response ends with the answer');
  assert.deepEqual(vscode.shown.messages, [], 'the response says how the run ended: no notification besides');
  // A name both folders have runs in the active editor's folder.
  const rootOf = (name: string) => chat.store.list().map((r) => r.agents[r.rootAgentId]).find((n) => n?.agentName === name);
  chat.activate('db');
  await chat.handle('fix the build').done;
  assert.equal(rootOf('general-purpose')?.cwd, b.dir);
});

test('multi-root: /list shows every folder’s agents under its name', async () => {
  const chat = await handlerFor([folder('web', [agent('planner')]), folder('db', [agent('db-migrator')])]);
  const call = chat.handle('', { command: 'list' });
  await call.done;
  const text = call.text();
  assert.match(text, /\*\*2 agents\*\* in 2 folders/);
  assert.ok(text.indexOf('### web') >= 0 && text.indexOf('### web') < text.indexOf('planner') && text.indexOf('### db') < text.indexOf('db-migrator'), text);
});

test('an unknown @name is an error that names the agents of every folder; with no folder open, chat asks for one', async () => {
  const chat = await handlerFor([folder('web', [agent('planner')]), folder('db', [agent('db-migrator')])]);
  const unknown = chat.handle('@db-migrater add the index');
  await unknown.done;
  assert.match(unknown.text(), /Unknown agent "db-migrater"\. Available: planner, db-migrator\. `\/list` shows them all\./);
  assert.equal(chat.store.list().length, 0);
  const empty = await handlerFor([]);
  const none = empty.handle('fix the build');
  await none.done;
  assert.match(none.text(), /Open a folder first/);
});

test('in a thread, a verb that is also an agent’s name continues the run, and the reply says how to start that agent instead', async () => {
  const chat = await handlerFor([folder('app', [agent('general-purpose', { source: 'bundled' }), agent('plan', { source: 'bundled' })])]);
  const first = await chat.handle('sum up the README').done;
  const history = [new vscode.ChatResponseTurn('subagents.agent', first as { metadata?: Record<string, unknown> })];
  const next = chat.handle('plan the release notes too', { history });
  await next.done;
  assert.match(next.text(), /Continuing \*\*general-purpose\*\* with its earlier conversation \(to run \*\*plan\*\* instead, write `@plan …`\)/);
  assert.match(next.text(), /done: plan the release notes too/);
  assert.equal(chat.store.list().length, 1, 'the follow-up continues the same run');
});

test('list without a slash lists the agents; one word that names no agent asks first and offers /new as a follow-up', async () => {
  const chat = await handlerFor([folder('app', [agent('general-purpose', { source: 'bundled' }), agent('planner')])]);
  const list = chat.handle('list');
  await list.done;
  assert.match(list.text(), /\*\*2 agents\*\* in app/);
  assert.equal(chat.store.list().length, 0, 'listing started no run');

  const word = chat.handle('refactor');
  const result = await word.done;
  assert.match(word.text(), /"refactor" is not the name of an agent here/);
  assert.equal(chat.store.list().length, 0, 'one word started no run');
  assert.deepEqual(chat.handler.followups(result as Parameters<typeof chat.handler.followups>[0]), [{ label: 'Run general-purpose: refactor', prompt: 'refactor', command: 'new' }]);
  const confirmed = chat.handle('refactor', { command: 'new' });
  await confirmed.done;
  assert.equal(chat.store.list().length, 1, '/new with the word runs it');
});

test('a run starts and ends with links to our commands only, in trusted parts of their own that hold no model text', async () => {
  const chat = await handlerFor([folder('app', [agent('general-purpose', { source: 'bundled' })])]);
  const call = chat.handle('sum up the README [x](command:workbench.action.terminal.sendSequence)');
  await call.done;
  const trusted = call.writes.filter((w) => w.startsWith('markdown {') && w.includes('"isTrusted"')).map((w) => JSON.parse(w.slice('markdown '.length)) as { value: string; isTrusted: { enabledCommands: string[] } });
  // One as the run starts (where it is, also after a reload), one at its end.
  assert.equal(trusted.length, 2, call.text());
  assert.deepEqual(trusted[0]!.isTrusted.enabledCommands, ['subagents.showRun']);
  assert.match(trusted[0]!.value, /^\[Show in Sidebar\]\(command:subagents\.showRun\?/);
  assert.deepEqual(trusted[1]!.isTrusted.enabledCommands, ['subagents.showRun', 'subagents.showTranscript']);
  assert.match(trusted[1]!.value, /^\[Show in Sidebar\]\(command:subagents\.showRun\?/);
  for (const part of trusted) assert.doesNotMatch(part.value, /sendSequence|done: /, 'no model or user text in a trusted part');
});
