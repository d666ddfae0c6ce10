import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { HOST_CAPABILITIES } from '../../../../src/protocol/host';
import { inProcessHost } from '../../../support/hostHarness';

// A client newer than the host it reaches (an older host keeps serving until
// no agent is at work in it): a team must not reach a host that would drop
// the team and run its lead alone. The host here is the real one, made to
// offer what a host of protocol 1.0 offered: everything but `teams`.

test('a team is refused, with what to do, by a client whose host cannot run teams; the host is never asked', async (t) => {
  const offered = HOST_CAPABILITIES as unknown as string[];
  const at = offered.indexOf('teams');
  assert.ok(at >= 0, 'this host offers teams');
  offered.splice(at, 1);
  t.after(() => void offered.splice(at, 0, 'teams'));
  const host = await inProcessHost({ baseUrl: 'http://127.0.0.1:9' });
  t.after(() => host.close());
  const client = await host.client();
  const team = {
    info: { name: 'duo', description: '', filePath: path.join(host.root, 'p/.subagents/teams/duo.md'), lead: 'general-purpose', members: [{ name: 'alice', agent: 'general-purpose' }], isolation: 'worktree' as const },
    brief: 'Split the work.',
    tasks: [],
  };
  await assert.rejects(
    client.start({ scope: host.scope('p'), agent: 'general-purpose', prompt: 'Write alpha.', team }),
    /The agent host running now \(test\) cannot run teams\. Let it exit once no agent is at work in it \(`subagents host stop --when-idle`\), then run the team again\./,
  );
  assert.deepEqual(host.runtime.store.list(), [], 'nothing ran in the host');
});
