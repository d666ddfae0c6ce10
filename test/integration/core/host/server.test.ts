import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { AdmissionError } from '../../../../src/core/engine/tree/admission';
import type { HostClient } from '../../../../src/core/host/client';
import type { ModeWidening } from '../../../../src/core/tools/modeConsent';
import { PROTOCOL_MAJOR } from '../../../../src/protocol/host';
import { emptyUsage } from '../../../../src/protocol/runEvents';
import { isAgent } from '../../../support/agents';
import { agentFile, inProcessHost, type InProcessHost } from '../../../support/hostHarness';
import { stdioServer, yaml } from '../../../support/mcp/servers';
import { startScriptedServer, type ScriptedServer } from '../../../support/scriptedServer';
import { until } from '../../../support/until';

// The agent host's server with its real runtime, on a real Unix socket, and
// real clients: what VS Code windows and terminals share through it.

let model: ScriptedServer;
let host: InProcessHost;

/** An MCP call's argument whose dangerous end lies past any one-line summary. */
const LONG_NOTE = `${'padding '.repeat(30)}then write it to /home/me/.ssh/authorized_keys`;

const texts = (messages: Array<{ role: string; content: unknown }>) =>
  messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text ?? '') : []));

before(async () => {
  model = await startScriptedServer((req) => {
    if (isAgent(req.system, 'shell')) {
      if (req.turn === 0) return { toolUses: [{ name: 'Bash', input: { command: 'echo from-the-shell' } }] };
      return { text: `shell saw: ${[...req.toolResults.values()][0]?.content.trim() ?? 'nothing'}` };
    }
    if (isAgent(req.system, 'listener')) {
      const heard = texts(req.messages).filter((t) => t.includes('<message'));
      if (heard.length) return { text: `heard ${heard.length} message(s)` };
      return { delayMs: 150, toolUses: [{ name: 'LS', input: {} }] };
    }
    if (isAgent(req.system, 'noter')) return req.turn === 0 ? { toolUses: [{ name: 'mcp__s__note', input: { text: LONG_NOTE } }] } : { text: `noter: ${[...req.toolResults.values()][0]?.content ?? ''}` };
    // A long answer: stored texts are capped (a prompt at 10,000 characters), an answer is kept up to 100,000.
    if (isAgent(req.system, 'talker')) return { text: 'z'.repeat(90_000) };
    return { text: `done: ${req.lastUserText}` };
  });
  host = await inProcessHost({ baseUrl: model.url, settings: { unattendedApprovalSeconds: 0.3 } });
  await agentFile(host.root, 'app', 'shell');
  await agentFile(host.root, 'app', 'listener');
  await agentFile(host.root, 'app', 'plain');
  // Copilot's field, in a Copilot file.
  await mkdir(path.join(host.root, 'app', '.github', 'agents'), { recursive: true });
  await writeFile(path.join(host.root, 'app', '.github', 'agents', 'helper.agent.md'), '---\nname: helper\ndescription: Helps other agents\nuser-invocable: false\n---\nYou help.\n');
});

afterEach(() => host.disconnectAll());

after(async () => {
  await host.close();
  await model.close();
});

/** Resolves with the first approval `client` is asked, answered by `answer`. */
function answering(client: HostClient, answer: 'allow' | 'deny'): Promise<string> {
  return new Promise((resolve) => {
    const stop = client.approvals.addAsker((approval) => {
      stop();
      void client.approvals.answer(approval.request.id, answer === 'allow' ? { allow: true, by: 'other-client' } : { allow: false, reason: 'not here', by: 'other-client' });
      resolve(approval.request.summary);
    });
  });
}

test('two clients share one runtime: a run one starts is live in the other, which answers its approval; both see the same snapshot', async () => {
  const window = await host.client({ identity: { kind: 'vscode' } });
  const terminal = await host.client({ identity: { kind: 'cli' } });
  const asked = answering(terminal, 'allow');
  const run = await window.start({ scope: host.scope('app', { surface: 'vscode', trust: { kind: 'window', trusted: true } }), agent: 'shell', prompt: 'say it' });
  await until('the terminal to see the run', () => terminal.store.get(run.runId));
  assert.equal(await asked, 'echo from-the-shell');
  const result = await run.result();
  assert.equal(result.status, 'completed');
  assert.equal(result.output, 'shell saw: from-the-shell');
  await until('both copies to show the end', () => terminal.store.get(run.runId)?.status === 'completed' && window.store.get(run.runId)?.status === 'completed');
  const [whole] = (await host.wholeRuns()).filter((r) => r?.runId === run.runId);
  assert.deepEqual(window.store.get(run.runId), whole);
  assert.deepEqual(terminal.store.get(run.runId), whole);
  const row = terminal.store.agent(run.agentId)!.tools[0]!;
  assert.equal(row.status, 'ok');
});

test('a client that connects later gets every run and the approval waiting at once, and answers it', async () => {
  const first = await host.client();
  const run = await first.start({ scope: host.scope('app'), agent: 'shell', prompt: 'later' });
  await until('the approval', () => first.approvals.pending.length === 1);
  first.close();
  const late = await host.client({ identity: { kind: 'vscode' } });
  assert.equal(late.approvals.pending.length, 1, 'the waiting approval came with the state');
  assert.equal(late.store.agent(run.agentId)?.status, 'waiting');
  assert.equal(late.store.agent(run.agentId)?.approval?.summary, 'echo from-the-shell');
  assert.equal(await late.approvals.answer(late.approvals.pending[0]!.request.id, { allow: false, reason: 'not now', by: 'late' }), true);
  const result = await late.waitFor(run.agentId);
  assert.match(result?.output ?? '', /^shell saw: /);
  assert.equal(late.store.agent(run.agentId)?.tools[0]?.resultSummary, 'Denied: not now');
  assert.equal(await late.approvals.answer('ap_nope', { allow: true }), false, 'an approval settled elsewhere (or unknown) says so');
});

test('an approval asked while no client is connected waits, then is denied saying why; the next client sees how it ended', async () => {
  const starter = await host.client();
  const run = await starter.start({ scope: host.scope('app'), agent: 'shell', prompt: 'unattended' });
  starter.close();
  await until('the run to end', () => !['running', 'waiting'].includes(host.runtime.store.get(run.runId)?.status ?? 'running'), 10_000);
  const next = await host.client();
  const node = next.store.agent(run.agentId)!;
  assert.equal(node.status, 'completed');
  assert.match(node.tools[0]!.resultSummary, /^Denied: nobody answered within 0 seconds: no VS Code window or terminal was connected to ask \(setting subagents\.host\.unattendedApprovalSeconds\)$/);
});

test('admission crosses the socket as the engine’s refusal, in its words; a malformed request is refused and runs nothing', async () => {
  const client = await host.client();
  await assert.rejects(client.start({ scope: host.scope('app'), agent: 'helper', prompt: 'x' }), (error: unknown) => {
    assert.ok(error instanceof AdmissionError);
    assert.equal(error.refusal.code, 'not-user-invocable');
    assert.equal(error.message, 'Agent "helper" is there for other agents to start (user-invocable: false in its file), not to be run by itself.');
    return true;
  });
  await assert.rejects(client.start({ scope: host.scope('app', { trust: { kind: 'window', trusted: false }, surface: 'vscode' }), agent: 'shell', prompt: 'x' }), /Agents cannot run in Restricted Mode/);
  const before = host.runtime.store.list().length;
  const raw = await host.connect();
  const lines: string[] = [];
  raw.setEncoding('utf8').on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
  raw.write(`${JSON.stringify({ kind: 'request', id: 1, method: 'hello', params: { protocol: { major: PROTOCOL_MAJOR, minor: 0 }, token: host.token, client: { kind: 'other', version: 't', build: 'dev', pid: 1 }, capabilities: [] } })}\n`);
  raw.write(`${JSON.stringify({ kind: 'request', id: 2, method: 'start', params: { agent: 5, prompt: 'x' } })}\n`);
  await until('both answers', () => lines.length >= 2);
  const answer = lines.map((line) => JSON.parse(line) as { id: number; ok: boolean; error: { code: string; message: string } }).find((a) => a.id === 2)!;
  assert.equal(answer.ok, false);
  assert.equal(answer.error.code, 'protocol');
  assert.match(answer.error.message, /scope|agent/);
  assert.equal(host.runtime.store.list().length, before, 'a malformed start ran something');
  raw.destroy();
});

test('an answer never overtakes the changes before it: the agent’s end reaches the client before the answer to a wait for it', async () => {
  const raw = await host.connect();
  const lines: Array<{ kind: string; id?: number; topic?: string; ops?: Array<{ op: string; event?: { type: string; agentId: string } }>; result?: { agentId?: string } }> = [];
  let buffer = '';
  raw.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const part of parts) if (part) lines.push(JSON.parse(part) as (typeof lines)[number]);
  });
  const request = (id: number, method: string, params: unknown) => raw.write(`${JSON.stringify({ kind: 'request', id, method, params })}\n`);
  try {
    request(1, 'hello', { protocol: { major: PROTOCOL_MAJOR, minor: 0 }, token: host.token, client: { kind: 'other', version: 't', build: 'dev', pid: 1 }, capabilities: [] });
    request(2, 'subscribe', {});
    request(3, 'start', { scope: host.scope('app'), agent: 'plain', prompt: 'quick' });
    const started = await until('the start answer', () => lines.find((l) => l.id === 3 && l.kind === 'response'));
    const agentId = started.result!.agentId!;
    request(4, 'waitFor', { agentId });
    await until('the wait answer', () => lines.some((l) => l.id === 4 && l.kind === 'response'));
    const answer = lines.findIndex((l) => l.id === 4 && l.kind === 'response');
    const ended = lines.findIndex((l) => l.topic === 'feed' && l.ops!.some((o) => o.event?.type === 'agent_finished' && o.event.agentId === agentId));
    assert.ok(ended >= 0 && ended < answer, `the answer (line ${answer}) came before the agent's end (line ${ended})`);
  } finally {
    raw.destroy();
  }
});

test('only the token’s holder is served: a wrong token, or a request before hello, is refused and the connection closed; another protocol major is told both versions', async () => {
  const hello = (token: string, major = PROTOCOL_MAJOR) => `${JSON.stringify({ kind: 'request', id: 1, method: 'hello', params: { protocol: { major, minor: 0 }, token, client: { kind: 'other', version: 't', build: 'dev', pid: 1 }, capabilities: [] } })}\n`;
  const exchange = async (first: string) => {
    const raw = await host.connect();
    let text = '';
    raw.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    const closed = new Promise((resolve) => raw.on('close', resolve));
    raw.write(first);
    await closed;
    return JSON.parse(text.split('\n')[0]!) as { ok: boolean; error: { code: string; message: string } };
  };
  const wrong = await exchange(hello('not-the-token'));
  assert.deepEqual([wrong.ok, wrong.error.code], [false, 'unauthorized']);
  const early = await exchange(`${JSON.stringify({ kind: 'request', id: 1, method: 'stopAll', params: { reason: 'x' } })}\n`);
  assert.deepEqual([early.ok, early.error.code], [false, 'unauthorized']);
  const other = await exchange(hello(host.token, PROTOCOL_MAJOR + 1));
  assert.equal(other.error.code, 'protocol');
  assert.match(other.error.message, new RegExp(`speaks protocol ${PROTOCOL_MAJOR}\\.\\d+, the client ${PROTOCOL_MAJOR + 1}\\.0`));
});

test('send reaches an agent at work directly; stop stops it; neither leaves anything in the mailbox', async () => {
  const window = await host.client({ identity: { kind: 'vscode' } });
  const terminal = await host.client({ identity: { kind: 'cli' } });
  const run = await window.start({ scope: host.scope('app'), agent: 'listener', prompt: 'wait for word' });
  await until('the listener at work', () => terminal.store.agent(run.agentId)?.status === 'running');
  const sent = await terminal.send({ agentId: run.agentId, text: 'the word', via: 'cli' });
  assert.equal(sent.delivery, 'queued');
  assert.equal((await run.result()).output, 'heard 1 message(s)');
  assert.deepEqual(await readdir(path.join(host.root, 'data', 'mailbox')).catch(() => []), [], 'a delivered message stayed in the mailbox');

  const second = await window.start({ scope: host.scope('app'), agent: 'listener', prompt: 'run long' });
  await until('it to work', () => terminal.store.agent(second.agentId)?.status === 'running');
  assert.equal(await terminal.stop({ agentId: second.agentId, reason: 'Stopped from a terminal.', via: 'cli' }), 'stopped');
  const stopped = await second.result();
  assert.equal(stopped.status, 'cancelled');
  assert.equal(await terminal.stop({ agentId: second.agentId, reason: 'again', via: 'cli' }), 'not running');
});

test('trust travels with each request: a folder trusted by one client runs its hooks; the same folder asked for by a client that does not trust it runs none', async () => {
  const project = path.join(host.root, 'hooked');
  await agentFile(host.root, 'hooked', 'worker');
  await mkdir(path.join(project, '.claude'), { recursive: true });
  const marker = path.join(host.root, 'hook-ran');
  await writeFile(path.join(project, '.claude', 'settings.json'), JSON.stringify({ hooks: { SubagentStart: [{ hooks: [{ type: 'command', command: `touch '${marker}'` }] }] } }));
  const trusting = await host.client();
  const wary = await host.client();
  // Both at once: one scope per trust, never one's trust in the other's run.
  // Sessions that began after the settings file was written: its hook is part of their baseline, run without asking.
  const session = Date.now() + 60_000;
  const [untrusted, trusted] = await Promise.all([
    wary.start({ scope: host.scope('hooked', { trust: { kind: 'folders', roots: [] }, session }), agent: 'worker', prompt: 'go' }),
    trusting.start({ scope: host.scope('hooked', { trust: { kind: 'folders', roots: [project] }, session }), agent: 'worker', prompt: 'go' }),
  ]);
  assert.equal((await trusted.result()).status, 'completed');
  assert.equal(existsSync(marker), true, 'the trusted request did not run the project hook');
  await rm(marker);
  assert.equal((await untrusted.result()).status, 'completed');
  const again = await wary.start({ scope: host.scope('hooked', { trust: { kind: 'folders', roots: [] }, session }), agent: 'worker', prompt: 'again' });
  assert.equal((await again.result()).status, 'completed');
  assert.equal(existsSync(marker), false, 'the untrusted request ran the project hook another client trusted');
});

test('the key travels with the request: without one, the engine’s refusal; with another, every request of that run uses it', async () => {
  const client = await host.client();
  const noKey = host.scope('app', { apiKey: '' });
  delete (noKey.credentials as { apiKey?: string }).apiKey;
  await assert.rejects(client.start({ scope: noKey, agent: 'shell', prompt: 'x' }), /No Anthropic API key/);
  model.requests.length = 0;
  const run = await client.start({ scope: host.scope('app', { apiKey: 'sk-ant-second-key' }), agent: 'listener', prompt: 'hi' });
  await client.send({ agentId: run.agentId, text: 'word', via: 'test' });
  await run.result();
  const mine = model.requests.filter((r) => r.system.includes('[agent:listener]') && texts(r.messages)[0] === 'hi');
  assert.ok(mine.length >= 1);
  assert.deepEqual([...new Set(mine.map((r) => r.headers.authorization))], ['Bearer sk-ant-second-key'], 'a request went out with another key');
});

test('a client that falls behind the feed gets the whole state again and ends equal to the host', async () => {
  const lagging = await inProcessHost({ baseUrl: model.url, lagLimit: 1024 });
  try {
    await agentFile(lagging.root, 'app', 'talker');
    let socket: Socket | undefined;
    const slow = await lagging.client({ onSocket: (s) => (socket = s) });
    const driver = await lagging.client();
    // The slow client stops reading: the host's writes to it (each answer streamed, then kept) pile up past the limit.
    socket!.pause();
    const runs = await Promise.all([1, 2, 3].map((i) => driver.start({ scope: lagging.scope('app'), agent: 'talker', prompt: `run ${i}` })));
    await Promise.all(runs.map((r) => r.result()));
    await until('the host to see the slow client behind', () => lagging.logs.some((line) => /fell behind the feed/.test(line)));
    socket!.resume();
    await until('the slow copy to equal the host', async () => JSON.stringify(slow.store.list()) === JSON.stringify(await lagging.wholeRuns()));
  } finally {
    await lagging.close();
  }
});

test("an MCP tool's approval crosses the socket with every argument whole, as the window shows it", async () => {
  await agentFile(host.root, 'app', 'noter', `tools: mcp__s__note\nmcpServers:\n  - s: ${yaml(stdioServer('--name', 's'))}\n`);
  const window = await host.client({ identity: { kind: 'vscode' } });
  const run = await window.start({ scope: host.scope('app', { surface: 'vscode', trust: { kind: 'window', trusted: true } }), agent: 'noter', prompt: 'note it' });
  await until('the approval in the window', () => window.approvals.pending.length === 1);
  const { request } = window.approvals.pending[0]!;
  assert.equal(request.kind, 'mcp');
  assert.deepEqual(request.preview, { kind: 'arguments', arguments: JSON.stringify({ text: LONG_NOTE }, null, 2) });
  assert.ok(!request.summary.includes('authorized_keys'), 'the one-line summary is cut before the path');
  assert.match(window.store.agent(run.agentId)?.approval?.detail ?? '', /\/home\/me\/\.ssh\/authorized_keys"\n}$/);
  assert.equal(await window.approvals.answer(request.id, { allow: false, reason: 'not that file', by: 'window' }), true);
  assert.match((await run.result()).output ?? '', /^noter: .*not that file/);
});

test("a window's editor storage reaches the host: Roo Code's global modes are agents a run can start", async () => {
  const editorStorage = path.join(host.root, 'globalStorage');
  await mkdir(path.join(editorStorage, 'rooveterinaryinc.roo-cline', 'settings'), { recursive: true });
  await writeFile(path.join(editorStorage, 'rooveterinaryinc.roo-cline', 'settings', 'custom_modes.yaml'), 'customModes:\n  - slug: global-docs\n    name: Global Docs\n    roleDefinition: You write docs. [agent:global-docs]\n    groups: [read]\n');
  const client = await host.client({ identity: { kind: 'vscode' } });
  model.requests.length = 0;
  const run = await client.start({ scope: { ...host.scope('app', { surface: 'vscode', trust: { kind: 'window', trusted: true } }), editorStorage }, agent: 'global-docs', prompt: 'document it' });
  assert.equal((await run.result()).status, 'completed');
  assert.ok(model.requests.some((r) => r.system.includes('You write docs. [agent:global-docs]')), 'the mode’s role definition was not its prompt');
});

test("an opencode prompt's {env:…} and ~/ files are the asking client's, not the host process's", async () => {
  const userHome = path.join(host.root, 'user-home');
  await mkdir(userHome, { recursive: true });
  await writeFile(path.join(userHome, 'notes.txt'), 'notes from the user home');
  await mkdir(path.join(host.root, 'oc', '.opencode', 'agents'), { recursive: true });
  await writeFile(path.join(host.root, 'oc', '.opencode', 'agents', 'envy.md'), '---\ndescription: Reads its environment\n---\nYou are envy. [agent:envy] Region: {env:SUBAGENTS_TEST_REGION}. {file:~/notes.txt}\n');
  assert.equal(process.env.SUBAGENTS_TEST_REGION, undefined);
  const client = await host.client();
  const scope = host.scope('oc', { trust: { kind: 'all' }, home: userHome });
  model.requests.length = 0;
  const run = await client.start({ scope: { ...scope, env: { ...scope.env, SUBAGENTS_TEST_REGION: 'from-the-shell' } }, agent: 'envy', prompt: 'where?' });
  assert.equal((await run.result()).status, 'completed');
  const system = model.requests.find((r) => r.system.includes('[agent:envy]'))?.system ?? '';
  assert.match(system, /Region: from-the-shell\./);
  assert.match(system, /notes from the user home/);
});

test("an agent file's allow rules are asked about in the window that started the run, rules and all", async () => {
  await mkdir(path.join(host.root, 'ruled', '.opencode', 'agents'), { recursive: true });
  await writeFile(path.join(host.root, 'ruled', '.opencode', 'agents', 'echoer.md'), '---\ndescription: Echoes\npermission:\n  bash:\n    "echo *": allow\n---\nYou echo. [agent:shell]\n');
  const asked: Array<{ by: string; rules?: string[]; runId?: string }> = [];
  const handler = (by: string) => ({ modeConsent: async (request: ModeWidening) => (asked.push({ by, rules: request.rules, runId: request.runId }), by === 'starter') });
  // The other window connects first: a question without its run would go to it.
  const other = await host.client({ identity: { kind: 'vscode' }, handlers: handler('other') });
  const starter = await host.client({ identity: { kind: 'vscode' }, handlers: handler('starter') });
  // Without consent the command would be asked about: refused here, so the run ends either way.
  for (const client of [other, starter]) client.approvals.addAsker((approval) => void client.approvals.answer(approval.request.id, { allow: false, reason: 'asked', by: 'test' }));
  const run = await starter.start({ scope: host.scope('ruled', { surface: 'vscode', trust: { kind: 'window', trusted: true } }), agent: 'echoer', prompt: 'echo' });
  const result = await run.result();
  assert.equal(result.output, 'shell saw: from-the-shell');
  assert.equal(asked.length, 1);
  assert.equal(asked[0]!.by, 'starter');
  assert.equal(asked[0]!.runId, run.runId);
  assert.match(asked[0]!.rules?.join(' ') ?? '', /echo \*/);
});

test('a window with a long history gets older ended runs as summaries first, then whole; changes to them meanwhile are kept', async () => {
  const long = await inProcessHost({ baseUrl: model.url });
  try {
    const store = long.runtime.store;
    // 30 ended runs of two agents with tool rows, and one at work.
    for (let r = 0; r < 31; r++) {
      const runId = `h${String(r).padStart(2, '0')}`;
      for (const a of ['a', 'b']) {
        const agentId = `${runId}${a}`;
        store.apply({ type: 'agent_started', ts: 1000 * r, runId, agentId, parentId: a === 'a' ? null : `${runId}a`, parentToolUseId: null, agentName: a === 'a' ? 'lead' : 'helper', description: 'd', prompt: 'p', model: 'm', depth: a === 'a' ? 0 : 1, cwd: long.root, background: false, filePath: null, resumed: false });
        store.apply({ type: 'text', ts: 1000 * r + 1, runId, agentId, text: 'thinking aloud' });
        for (let t = 0; t < 3; t++) store.apply({ type: 'tool_started', ts: 1000 * r + 2, runId, agentId, toolUseId: `${agentId}t${t}`, name: 'Read', inputSummary: `f${t}.ts` });
      }
      if (r === 30) break;
      for (const a of ['b', 'a']) store.apply({ type: 'agent_finished', ts: 1000 * r + 3, runId, agentId: `${runId}${a}`, status: 'completed', output: `answer ${r}`, error: null, usage: emptyUsage(), turns: 1, durationMs: 3, worktree: null });
    }
    const window = await long.client({ summaries: true });
    const copy = (runId: string) => window.store.get(runId)!;
    // At once: the run at work and the newest 20 ended runs whole; the 10 oldest as summaries that keep their agents, statuses and answers.
    assert.equal(window.store.list().length, 31);
    assert.equal(copy('h30').agents.h30a!.tools.length, 3);
    assert.equal(copy('h10').agents.h10b!.tools.length, 3);
    for (const runId of ['h00', 'h09']) {
      const run = copy(runId);
      assert.deepEqual(Object.keys(run.agents).sort(), [`${runId}a`, `${runId}b`]);
      assert.equal(run.agents[`${runId}a`]!.tools.length, 0);
      assert.equal(run.agents[`${runId}a`]!.output, `answer ${Number(runId.slice(1))}`);
      assert.equal(run.status, 'completed');
    }
    // A summarized run changes before its whole snapshot arrives (a follow-up): the change survives.
    store.apply({ type: 'agent_started', ts: 50_000, runId: 'h00', agentId: 'h00c', parentId: 'h00a', parentToolUseId: null, agentName: 'late', description: 'd', prompt: 'p', model: 'm', depth: 1, cwd: long.root, background: false, filePath: null, resumed: false });
    await window.whole;
    await until('the window’s copy to equal the host', async () => JSON.stringify(window.store.list()) === JSON.stringify(await long.wholeRuns()));
    assert.equal(copy('h00').agents.h00a!.tools.length, 3);
    assert.ok(copy('h00').agents.h00c);
    // A terminal that asks for no summaries gets every run whole at once.
    const terminal = await long.client();
    assert.equal(JSON.stringify(terminal.store.list()), JSON.stringify(await long.wholeRuns()));
  } finally {
    await long.close();
  }
});

test('the host keeps an ended run as its summary, its detail on disk: a client gets it whole, and a follow-up continues it whole', async () => {
  const window = await host.client({ identity: { kind: 'vscode' } });
  const asked = answering(window, 'allow');
  const run = await window.start({ scope: host.scope('app', { surface: 'vscode', trust: { kind: 'window', trusted: true } }), agent: 'shell', prompt: 'say it' });
  await asked;
  assert.equal((await run.result()).status, 'completed');
  const store = host.runtime.store;
  // Once its file has it whole, the host holds its summary: every agent, status and answer, no tool rows.
  await until('the host to hold the run as its summary', () => store.isSummary(run.runId));
  const held = store.get(run.runId)!;
  assert.equal(held.status, 'completed');
  assert.equal(held.agents[run.agentId]!.output, 'shell saw: from-the-shell');
  assert.deepEqual(held.agents[run.agentId]!.tools, []);
  // Asked for, it is read whole from its file: a window that connects now gets the rows the first one saw.
  const later = await host.client({ identity: { kind: 'vscode' }, summaries: true });
  assert.deepEqual(later.store.get(run.runId), window.store.get(run.runId));
  assert.equal(later.store.agent(run.agentId)!.tools[0]!.inputSummary, 'echo from-the-shell');
  assert.ok(store.isSummary(run.runId), 'serving it kept it whole in the host');
  // A follow-up continues the whole run (its earlier rows stay), which is a summary again once it ends.
  const next = await window.followUp({ scope: host.scope('app', { surface: 'vscode', trust: { kind: 'window', trusted: true } }), agentId: run.agentId, prompt: 'again' });
  await next.result();
  await until('the host to hold it as its summary again', () => store.isSummary(run.runId));
  const [whole] = (await host.wholeRuns()).filter((r) => r?.runId === run.runId);
  assert.equal(whole!.agents[run.agentId]!.tools[0]!.inputSummary, 'echo from-the-shell');
  await until('the window to see the follow-up end', () => window.store.get(run.runId)?.version === whole!.version);
  assert.deepEqual(window.store.get(run.runId), whole);
});
