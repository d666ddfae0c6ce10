import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { describeSeconds, HostLifetime } from '../../../../src/core/host/lifetime';

// When the agent host exits, and what becomes of an approval nobody is
// there to answer, on a clock the test moves.

function world(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const state = { clients: 0, busy: false, pending: [] as string[] };
  const exits: string[] = [];
  const denials: Array<[string, string]> = [];
  const lifetime = new HostLifetime({
    settings: () => ({ idleExitSeconds: 60, unattendedApprovalSeconds: 300 }),
    clients: () => state.clients,
    busy: () => state.busy,
    pending: () => state.pending,
    deny: (id, reason) => {
      denials.push([id, reason]);
      state.pending = state.pending.filter((p) => p !== id);
      lifetime.approvalSettled(id);
    },
    exit: (reason) => void exits.push(reason),
  });
  t.after(() => lifetime.dispose());
  return { state, exits, denials, lifetime, tick: (s: number) => t.mock.timers.tick(s * 1000) };
}

test('with nothing keeping it, the host exits after the idle time; a client or a run that comes first keeps it', (t) => {
  const { state, exits, lifetime, tick } = world(t);
  lifetime.changed();
  assert.notEqual(lifetime.idleExitAt, null);
  tick(59);
  state.clients = 1;
  lifetime.clientsChanged();
  assert.equal(lifetime.idleExitAt, null);
  tick(120);
  assert.deepEqual(exits, [], 'it exited with a client connected');
  state.clients = 0;
  state.busy = true;
  lifetime.clientsChanged();
  tick(120);
  assert.deepEqual(exits, [], 'it exited with a run at work');
  state.busy = false;
  lifetime.changed();
  tick(59);
  assert.deepEqual(exits, []);
  tick(1);
  assert.deepEqual(exits, ['nothing kept it for 1 minute']);
});

test('an approval asked with nobody connected is denied after the set time, saying why; one a client sees in time is not', (t) => {
  const { state, denials, exits, lifetime, tick } = world(t);
  state.busy = true;
  state.pending = ['ap1'];
  lifetime.approvalRequested('ap1');
  tick(200);
  // A window connects and shows it: no more countdown while it is there.
  state.clients = 1;
  lifetime.clientsChanged();
  tick(600);
  assert.deepEqual(denials, []);
  // It leaves: the wait starts again, whole.
  state.clients = 0;
  lifetime.clientsChanged();
  tick(299);
  assert.deepEqual(denials, []);
  tick(1);
  assert.equal(denials.length, 1);
  assert.equal(denials[0]![0], 'ap1');
  assert.equal(denials[0]![1], 'nobody answered within 5 minutes: no VS Code window or terminal was connected to ask (setting subagents.host.unattendedApprovalSeconds)');
  assert.deepEqual(exits, [], 'an approval waiting kept the host up until it was settled');
});

test('durations read as a person says them', () => {
  assert.equal(describeSeconds(0.3), '0 seconds');
  assert.equal(describeSeconds(1), '1 second');
  assert.equal(describeSeconds(90), '1 minute 30 seconds');
  assert.equal(describeSeconds(1800), '30 minutes');
});
