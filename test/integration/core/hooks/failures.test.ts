import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { agent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import { runShellCommand } from '../../../../src/core/shellCommand';
import { firstUserTexts, group, hookWorld, sleep } from './hookFixture';

/** Running, not merely a zombie waiting for init (outside our control) to reap it. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // Field 3 of /proc/<pid>/stat is the state; the name before it may hold spaces, so split after its ')'.
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true;
  }
}

async function waitUntilGone(pid: number, ms = 2000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (!isAlive(pid)) return true;
  return !isAlive(pid);
}

test('a failing hook, a hanging hook and a missing command are logged with their command and settings file; the run completes', async () => {
  // The default timeout is generous so that the hooks meant to finish do so on a loaded machine;
  // the hanging ones get short timeouts of their own.
  const w = await hookWorld({ timeoutMs: 20_000 });
  const failing = await w.script('failing.sh', `echo 'lint config missing' >&2; exit 1`);
  // The shell starts a child and waits: killing only the shell would leave the sleep behind.
  const hanging = (name: string) => w.script(`${name}.sh`, `echo $$ > "${w.out}/${name}.sh-pid"; sleep 30 & echo $! > "${w.out}/${name}.sleep-pid"; wait`);
  const settingsFile = await w.userSettings({
    SubagentStart: [group(['/no/such/hook-command --flag', failing, { command: await hanging('hang-start'), timeout: 0.3 }])],
    SubagentStop: [group([failing, { command: await hanging('hang-stop'), timeout: 0.3 }, `printf '{"decision": "block", '`])],
  });
  const h = await harness({ agents: [agent('worker')], script: () => ({ text: 'done anyway' }), engine: { trust: w.trust, hooks: w.hooks, log: w.log } });
  try {
    const started = Date.now();
    const result = await h.engine.run({ agent: 'worker', prompt: 'go', cwd: w.project });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.output, 'done anyway');
    assert.equal(h.server.requests.length, 1, 'no hook had an effect');
    assert.deepEqual(firstUserTexts(h.server.requests[0]!.messages), ['go']);
    // The hanging hooks sleep 30 s each: ending well before that shows the timeouts cut them short.
    assert.ok(Date.now() - started < 25_000, 'timeouts bound the run');

    const warnings = w.warnings();
    const expect = (pattern: RegExp) => assert.ok(warnings.some((m) => pattern.test(m)), `expected a warning like ${pattern}; got:\n${warnings.join('\n')}`);
    const from = `\\(from ${settingsFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`;
    expect(new RegExp(`^SubagentStart hook "/no/such/hook-command --flag" ${from} exited with code 127: .*not found\\.$`));
    expect(new RegExp(`^SubagentStart hook "'.+failing\\.sh'" ${from} exited with code 1: lint config missing\\.$`));
    expect(new RegExp(`^SubagentStart hook "'.+hang-start\\.sh'" ${from} timed out after \\d+ ms and was killed\\.$`));
    expect(new RegExp(`^SubagentStop hook "'.+failing\\.sh'" ${from} exited with code 1: lint config missing\\.$`));
    expect(new RegExp(`^SubagentStop hook "'.+hang-stop\\.sh'" ${from} timed out after \\d+ ms and was killed\\.$`));
    expect(new RegExp(`^SubagentStop hook "printf '\\{"decision": "block", '" ${from} printed invalid JSON \\(.+\\); ignored\\.$`));
    assert.equal(warnings.length, 6, warnings.join('\n'));

    for (const name of ['hang-start', 'hang-stop']) {
      for (const what of ['sh', 'sleep']) {
        const pid = Number((await w.read(`${name}.${what}-pid`)).trim());
        assert.ok(await waitUntilGone(pid), `the ${name} hook's ${what} (pid ${pid}) was killed with its process group`);
      }
    }
    const timings = w.logs.filter((l) => l.level === 'info' && /hang-start/.test(l.message)).map((l) => l.message);
    assert.match(timings[0] ?? '', /: timed out in \d+ ms$/);
  } finally {
    await h.close();
    await w.close();
  }
});

test('a hook that cannot be started at all is reported, not thrown', async () => {
  const result = await runShellCommand({ command: 'true', cwd: '/no/such/dir/for/hooks', env: {}, stdin: '{}', timeoutMs: 1000 });
  assert.equal(result.exitCode, null);
  assert.match(result.spawnError ?? '', /ENOENT/);
  const nul = await runShellCommand({ command: 'echo \0', cwd: '/', env: {}, stdin: '', timeoutMs: 1000 });
  assert.match(nul.spawnError ?? '', /null bytes/);
});

test('a hook that leaves a background process behind finishes with its shell, not with the straggler', async () => {
  const w = await hookWorld();
  try {
    const started = Date.now();
    const result = await runShellCommand({ command: `sleep 5 & echo $! > "${path.join(w.out, 'bg-pid')}"; echo ok`, cwd: w.root, env: process.env, stdin: '', timeoutMs: 4000 });
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout, 'ok\n');
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
    process.kill(Number((await w.read('bg-pid')).trim()), 'SIGKILL');
  } finally {
    await w.close();
  }
});

test('stopping an agent stops its running hooks with it, without waiting for their timeout', async () => {
  const w = await hookWorld({ timeoutMs: 60_000 });
  const hanging = await w.script('hang.sh', `echo $$ > "${w.out}/hang.sh-pid"; sleep 60 & echo $! > "${w.out}/hang.sleep-pid"; wait`);
  await w.userSettings({ SubagentStart: [group([hanging])] });
  const h = await harness({ agents: [agent('worker')], script: () => ({ text: 'never asked' }), engine: { trust: w.trust, hooks: w.hooks, log: w.log } });
  try {
    const run = await h.engine.start({ agent: 'worker', prompt: 'go', cwd: w.project });
    let sleepPid = 0;
    for (const end = Date.now() + 5000; !sleepPid && Date.now() < end; await sleep(20)) sleepPid = Number((await w.read('hang.sleep-pid').catch(() => '')).trim()) || 0;
    assert.ok(sleepPid, 'the hook started');
    const stoppedAt = Date.now();
    h.engine.cancel(run.id);
    const result = await run.done;
    assert.equal(result.status, 'cancelled');
    assert.ok(Date.now() - stoppedAt < 2000, `stopped in ${Date.now() - stoppedAt} ms`);
    assert.ok(await waitUntilGone(sleepPid), 'the hook’s process group was killed');
    assert.equal(h.server.requests.length, 0);
  } finally {
    await h.close();
    await w.close();
  }
});
