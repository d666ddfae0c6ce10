import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { Reply, ScriptedRequest } from '../../../support/scriptedServer';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('cancelling a depth-3 tree stops every agent promptly and leaves no child process behind', async () => {
  const chain = (req: ScriptedRequest): Reply => {
    const next = isAgent(req.system, 'root') ? 'mid' : isAgent(req.system, 'mid') ? 'leaf' : null;
    if (next) return req.turn === 0 ? { toolUses: [{ name: 'Task', input: { subagent_type: next, description: `start ${next}`, prompt: 'work' } }] } : { text: 'unreachable' };
    return req.turn === 0 ? { toolUses: [{ name: 'Bash', input: { command: 'echo $$ > shell.pid; sleep 300 & echo $! > sleep.pid; wait' } }] } : { text: 'unreachable' };
  };
  const h = await harness({ agents: [agent('root'), agent('mid'), agent('leaf')], script: chain });
  try {
    const root = await h.engine.start({ agent: 'root', prompt: 'go', cwd: h.dir });
    const readPid = (f: string) => async () => {
      const text = (await readFile(path.join(h.dir, f), 'utf8')).trim();
      return text ? Number(text) : undefined;
    };
    const sleepPid = await waitFor(readPid('sleep.pid'));
    const shellPid = await waitFor(readPid('shell.pid'));
    assert.ok(alive(sleepPid) && alive(shellPid));

    const cancelledAt = Date.now();
    assert.equal(h.engine.cancel(root.id), true);
    const result = await root.done;
    const elapsed = Date.now() - cancelledAt;

    assert.equal(result.status, 'cancelled');
    assert.ok(elapsed < 2000, `cancellation took ${elapsed} ms`);
    const finished = h.events.filter((e) => e.type === 'agent_finished');
    assert.deepEqual(finished.map((e) => e.type === 'agent_finished' && e.status), ['cancelled', 'cancelled', 'cancelled']);
    await waitFor(async () => (!alive(sleepPid) && !alive(shellPid) ? true : undefined), 2000);
    assert.equal(h.engine.running.length, 0);
  } finally {
    await h.close();
  }
});

test('cancelling one child leaves its parent running: the parent gets a tool error and finishes', async () => {
  let childId = '';
  const h = await harness({
    agents: [agent('root'), agent('slow')],
    script: (req) => {
      if (isAgent(req.system, 'slow')) return { hang: true };
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'slow', description: 'hangs', prompt: 'x' } }] };
      return { text: `parent saw: ${[...req.toolResults.values()][0]!.content.split('\n')[0]}` };
    },
  });
  h.engine.onEvent((e) => {
    if (e.type === 'agent_started' && e.agentName === 'slow') {
      childId = e.agentId;
      setTimeout(() => h.engine.cancel(childId, 'Stopped from the sidebar.'), 50);
    }
  });
  try {
    const result = await h.engine.run({ agent: 'root', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed');
    assert.match(result.output ?? '', /^parent saw: Agent "slow" \(\w+\) cancelled: Stopped from the sidebar\./);
  } finally {
    await h.close();
  }
});

test('an aborted signal from the caller cancels the run', async () => {
  const h = await harness({ agents: [agent('root')], script: () => ({ hang: true }) });
  try {
    const controller = new AbortController();
    const run = await h.engine.start({ agent: 'root', prompt: 'go', cwd: h.dir, signal: controller.signal });
    await waitFor(async () => (h.server.requests.length ? true : undefined));
    controller.abort();
    const result = await run.done;
    assert.equal(result.status, 'cancelled');
  } finally {
    await h.close();
  }
});
