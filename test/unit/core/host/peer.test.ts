import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { AdmissionError } from '../../../../src/core/engine/tree/admission';
import { EngineError } from '../../../../src/core/engine/errors';
import { Encoded, HostError, Peer } from '../../../../src/core/host/peer';
import { clientRequestSchema, hostRequestSchema, notificationSchema } from '../../../../src/protocol/host';

// One end of an agent-host connection against the other, over an in-memory
// stream: requests and answers in any order, errors that keep their class,
// cancellation, and messages that do not match the protocol.

const open: net.Socket[] = [];
afterEach(() => {
  for (const socket of open.splice(0)) socket.destroy();
});

/** Both ends of a real Unix socket. */
async function sockets(): Promise<[net.Socket, net.Socket]> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'subagents-peer-')), 's.sock');
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(file, resolve));
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const b = net.createConnection(file);
  const a = await accepted;
  server.close();
  open.push(a, b);
  return [a, b];
}

async function pair(onRequest: (method: string, params: unknown, signal: AbortSignal) => Promise<unknown>) {
  const [a, b] = await sockets();
  const logged: string[] = [];
  const log = (level: string, message: string) => void logged.push(`${level}: ${message}`);
  const host = new Peer(a, { incoming: { request: clientRequestSchema, notify: null }, onRequest, log });
  const notes: unknown[] = [];
  const client = new Peer(b, { incoming: { request: hostRequestSchema, notify: notificationSchema }, onRequest: async () => null, onNotification: (m) => void notes.push(m), log });
  return { host, client, logged, notes, a, b };
}

const refusal = { code: 'disabled' as const, message: 'Agent "x" is disabled (setting disabledAgents). Remove it from that list to run it.' };

test('answers come back by id, checked against the result schema; errors keep their class and words', async () => {
  const { client } = await pair(async (method, params) => {
    if (method === 'stopAll') return (params as { reason: string }).reason.length;
    if (method === 'stop') throw new EngineError('No agent "nope" in the history.');
    if (method === 'start') throw new AdmissionError(refusal);
    if (method === 'status') return { not: 'a status' };
    return null;
  });
  assert.equal(await client.request('stopAll', { reason: 'abcd' }), 4);
  await assert.rejects(client.request('stop', { agentId: 'nope', reason: 'x', via: 'cli' }), (e: unknown) => e instanceof EngineError && e.message === 'No agent "nope" in the history.');
  await assert.rejects(client.request('start', { scope: scope(), agent: 'x', prompt: 'p' }), (e: unknown) => e instanceof AdmissionError && e.refusal.code === 'disabled' && e.message === refusal.message);
  await assert.rejects(client.request('status', {}), (e: unknown) => e instanceof HostError && e.wire.code === 'protocol' && /status answer does not match/.test(e.message));
});

test('a request that does not match the protocol is answered with what is wrong, and its handler never runs', async () => {
  let ran = false;
  const { b, logged } = await pair(async () => {
    ran = true;
    return null;
  });
  const lines: string[] = [];
  b.setEncoding('utf8').on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
  b.write(`${JSON.stringify({ kind: 'request', id: 7, method: 'stopAll', params: { reason: 42 } })}\n`);
  b.write('not json at all\n');
  b.write(`${JSON.stringify({ kind: 'gossip' })}\n`);
  await until(() => lines.length >= 1 && logged.length >= 3);
  assert.equal(ran, false);
  const answer = JSON.parse(lines[0]!) as { id: number; ok: boolean; error: { code: string; message: string } };
  assert.deepEqual([answer.id, answer.ok, answer.error.code], [7, false, 'protocol']);
  assert.match(answer.error.message, /params\.reason: expected string/);
  assert.equal(logged.filter((l) => l.startsWith('warn: Dropped')).length, 3);
});

test('cancel reaches the handler as an aborted signal; the requester hears it was cancelled', async () => {
  let aborted = false;
  const { client } = await pair(
    (_method, _params, signal) =>
      new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => {
          aborted = true;
          reject(new HostError({ code: 'cancelled', message: 'stopped waiting' }));
        }),
      ),
  );
  const stop = new AbortController();
  const waiting = client.request('waitFor', { agentId: 'a1' }, stop.signal);
  setImmediate(() => stop.abort());
  await assert.rejects(waiting, (e: unknown) => e instanceof HostError && e.wire.code === 'cancelled');
  await until(() => aborted);
});

test('the end of the connection rejects what waits, and aborts what is being handled', async () => {
  let aborted = false;
  let handling = false;
  const { client, a } = await pair((_m, _p, signal) => {
    handling = true;
    return new Promise((resolve) => signal.addEventListener('abort', () => ((aborted = true), resolve(null))));
  });
  const waiting = client.request('waitFor', { agentId: 'a1' });
  await until(() => handling);
  a.destroy();
  await assert.rejects(waiting, (e: unknown) => e instanceof HostError && e.wire.code === 'unavailable');
  await until(() => aborted);
  await assert.rejects(client.request('status', {}), /closed/);
});

test('a result encoded ahead goes out as it is; a fatal error is answered, then the connection ends', async () => {
  const { client, b } = await pair(async (method) => {
    if (method === 'stopRun') return new Encoded(() => '3');
    throw new HostError({ code: 'unauthorized', message: 'no' }, true);
  });
  assert.equal(await client.request('stopRun', { runId: 'r', reason: 'x' }), 3);
  const closed = new Promise((resolve) => b.on('close', resolve));
  await assert.rejects(client.request('stopAll', { reason: 'x' }), (e: unknown) => e instanceof HostError && e.wire.code === 'unauthorized');
  await closed;
});

/** Resolves once `check` holds, looking at every turn of the event loop (what arrives over a socket takes some). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

function scope() {
  return { cwd: '/w', surface: 'cli', settings: {}, trust: { kind: 'all' }, credentials: {}, env: {}, home: '/h', session: 1 };
}

test('an answer is seen before the messages that follow it in the same chunk; a message split over many chunks arrives whole', async () => {
  const [a, b] = await sockets();
  const order: string[] = [];
  const client = new Peer(b, { incoming: { request: hostRequestSchema, notify: notificationSchema }, onRequest: async () => null, onNotification: (m) => void order.push(`notify ${m.topic}`), log: () => undefined });
  const requests: string[] = [];
  a.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n').filter(Boolean)) {
      const { id } = JSON.parse(line) as { id: number };
      requests.push(line);
      const state = JSON.stringify({ kind: 'response', id, ok: true, result: { seq: 4, runs: [], approvals: [], pad: 'x'.repeat(3_000_000) } });
      const feed = JSON.stringify({ kind: 'notify', topic: 'feed', seq: 5, ops: [] });
      // The answer in slices, its last one together with the feed that continues from it.
      const whole = `${state}\n${feed}\n`;
      for (let i = 0; i < whole.length; i += 50_000) a.write(whole.slice(i, i + 50_000));
    }
  });
  const answered = client.request('subscribe', {}, undefined, (state) => void order.push(`received seq ${state.seq}`));
  const state = await answered;
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.equal(state.seq, 4);
  assert.deepEqual(order, ['received seq 4', 'notify feed']);
  assert.equal(requests.length, 1);
});
