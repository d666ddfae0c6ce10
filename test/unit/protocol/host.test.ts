import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientRequestSchema, hostMessageSchema, hostRequestSchema, notificationSchema, resultSchemas, storeOpSchema, type HostMessage } from '../../../src/protocol/host';

// The agent host's protocol is one schema: every message either side may
// send matches it, and what does not is refused.

const scope = { cwd: '/work/app', surface: 'vscode', settings: { maxTurns: 10 }, trust: { kind: 'window', trusted: true }, credentials: { apiKey: 'k' }, env: { PATH: '/bin' }, home: '/home/u', session: 1 };
const started = { type: 'agent_started', ts: 1, runId: 'r1', agentId: 'a1', parentId: null, parentToolUseId: null, agentName: 'worker', description: 'd', prompt: 'p', model: 'm', depth: 0, cwd: '/work/app', background: false, filePath: null, resumed: false };

const messages: HostMessage[] = [
  { kind: 'request', id: 1, method: 'hello', params: { protocol: { major: 1, minor: 0 }, token: 't', client: { kind: 'vscode', version: '0.1.0', build: 'dev', pid: 1, folders: ['/work/app'] }, capabilities: ['modeConsent'] } },
  { kind: 'request', id: 2, method: 'subscribe', params: {} },
  { kind: 'request', id: 3, method: 'start', params: { scope, agent: 'worker', prompt: 'go', askApprovals: true, context: 'c1' } } as HostMessage,
  { kind: 'request', id: 4, method: 'answer', params: { approvalId: 'ap1', decision: { allow: true, scope: 'run', by: 'terminal' } } },
  { kind: 'request', id: 5, method: 'modeConsent', params: { agentName: 'w', filePath: '/f.md', requested: 'bypassPermissions', current: 'default', runId: 'r1' } },
  { kind: 'response', id: 3, ok: true, result: { agentId: 'a1', runId: 'r1', agentName: 'worker' } },
  { kind: 'response', id: 4, ok: false, error: { code: 'admission', message: 'no', refusal: { code: 'disabled', message: 'no' } } },
  { kind: 'cancel', id: 2 },
  { kind: 'notify', topic: 'feed', seq: 1, ops: [{ op: 'event', event: started }, { op: 'remove', runId: 'r0' }, { op: 'limits', limits: { maxRuns: 50 } }] } as HostMessage,
  { kind: 'notify', topic: 'bye', reason: 'idle' },
];

test('every message either side sends matches the one schema', () => {
  for (const message of messages) assert.equal(hostMessageSchema.safeParse(message).success, true, JSON.stringify(message));
});

test('what does not match is refused: an unknown method, a missing scope, a trust that is not one of the three, an event that is not a run event', () => {
  const refused = [
    { kind: 'request', id: 1, method: 'format-disk', params: {} },
    { kind: 'request', id: 2, method: 'start', params: { agent: 'w', prompt: 'p' } },
    { kind: 'request', id: 3, method: 'start', params: { scope: { ...scope, trust: { kind: 'everyone' } }, agent: 'w', prompt: 'p' } },
    { kind: 'request', id: 4, method: 'start', params: { scope: { ...scope, cwd: '' }, agent: 'w', prompt: 'p' } },
    { kind: 'notify', topic: 'feed', seq: 1, ops: [{ op: 'event', event: { ...started, type: 'agent_exploded' } }] },
    { kind: 'response', id: 1, ok: false, error: { code: 'teapot', message: 'x' } },
  ];
  for (const message of refused) assert.equal(hostMessageSchema.safeParse(message).success, false, JSON.stringify(message));
  assert.equal(storeOpSchema.safeParse({ op: 'load', runs: [{ runId: 'r1' }] }).success, false);
});

test('every request either side can send has the schema its answer is checked against', () => {
  const methods = [...clientRequestSchema.def.options, ...hostRequestSchema.def.options].map((o) => o.def.shape.method.def.values[0] as string);
  assert.deepEqual(methods.filter((m) => !(m in resultSchemas)), []);
  assert.deepEqual(Object.keys(resultSchemas).filter((m) => !methods.includes(m)), []);
  assert.ok(notificationSchema.def.options.length >= 5);
});
