import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { HostClient } from '../../../../src/core/host/client';
import { Encoded, Peer } from '../../../../src/core/host/peer';
import { clientRequestSchema, HOST_CAPABILITIES, PROTOCOL_MAJOR, PROTOCOL_MINOR } from '../../../../src/protocol/host';
import { until } from '../../../support/until';

// The client's side of the host's feed: a connection takes the feed up from
// the sequence number of the state it was given (a later one than 1 is the
// rule, not a gap); only a number missing in between is told, and mended by
// taking the whole state again. The host here is a script on a real socket.

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const feed = (seq: number, ops: unknown[] = []) => `{"kind":"notify","topic":"feed","seq":${seq},"ops":${JSON.stringify(ops)}}`;

/** A change the client's copy shows: a run starting. */
const started = (runId: string) => ({
  op: 'event',
  event: { type: 'agent_started', ts: 1, runId, agentId: runId, parentId: null, parentToolUseId: null, agentName: 'w', description: 'd', prompt: 'p', model: 'm', depth: 0, cwd: '/', background: false, filePath: null, resumed: false },
});

/** A host that answers hello, and each subscribe with `states.shift()` (the state's JSON, as the real host encodes it). */
async function scriptedHost(states: string[]): Promise<{ socketPath: string; host: () => Peer; subscribes: () => number }> {
  const socketPath = path.join(mkdtempSync(path.join(os.tmpdir(), 'subagents-feed-')), 'h.sock');
  let peer: Peer | undefined;
  let subscribes = 0;
  const server = net.createServer((socket) => {
    peer = new Peer(socket, {
      incoming: { request: clientRequestSchema, notify: null },
      log: () => undefined,
      onRequest: async (method) => {
        if (method === 'hello') return { protocol: { major: PROTOCOL_MAJOR, minor: PROTOCOL_MINOR }, host: { version: 'test', build: 'dev', pid: 1, startedAt: 1 }, capabilities: [...HOST_CAPABILITIES], connection: 'c1' };
        subscribes++;
        const state = states.shift()!;
        return new Encoded(() => state);
      },
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  closers.push(() => server.close());
  return { socketPath, host: () => peer!, subscribes: () => subscribes };
}

async function client(socketPath: string, warnings: string[]): Promise<HostClient> {
  const c = await HostClient.open({
    connect: async () => ({ socket: net.createConnection(socketPath), token: 't' }),
    identity: { kind: 'cli', version: 'test', build: 'dev', pid: process.pid },
    reconnect: false,
    coalesceMs: 0,
    log: (level, message) => level !== 'info' && warnings.push(message),
  });
  closers.push(() => c.close());
  return c;
}

test('a fresh connection takes the feed up from its state’s number, even with the next change in the same chunk: nothing is told', async () => {
  // The state (seq 8) and the change after it (9) arrive in one write, as they do from a busy host.
  const { socketPath, host } = await scriptedHost([`{"seq":8,"runs":[],"approvals":[]}}\n${feed(9).slice(0, -1)}`]);
  const warnings: string[] = [];
  const c = await client(socketPath, warnings);
  host().sendLine(feed(10));
  host().sendLine(feed(11, [started('r1')]));
  await until('the change to reach the copy', () => c.store.get('r1'));
  assert.deepEqual(warnings, []);
});

test('a number missing in the feed is told once, and the client takes the whole state again', async () => {
  const { socketPath, host, subscribes } = await scriptedHost(['{"seq":3,"runs":[],"approvals":[]}', '{"seq":7,"runs":[],"approvals":[]}']);
  const warnings: string[] = [];
  const c = await client(socketPath, warnings);
  host().sendLine(feed(4));
  host().sendLine(feed(7));
  await until('the client to take the state again', () => subscribes() === 2);
  // The feed goes on from the new state: a change after it reaches the copy, and nothing more is told.
  host().sendLine(feed(8, [started('r2')]));
  await until('the change after the new state', () => c.store.get('r2'));
  assert.deepEqual(warnings, ["The agent host's feed skipped from 4 to 7; taking its whole state again."]);
});
