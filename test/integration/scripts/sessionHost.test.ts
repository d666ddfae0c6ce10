// `npm start` runs VS Code on the user's own folders, where the agent host is
// the user's (a terminal may use it). Ctrl+C ends the session: a host its
// window started goes with it once no agent is at work; a host that ran
// before the session is the user's, and stays. Real hosts (dist/host.js,
// after `npm run build`), stopped as the script stops them.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { launchHost } from '../../../src/core/host/connect';
import { agentHostPids, stopAgentHostsStartedSince } from '../../../scripts/code-server.mjs';
import { productServerOptions } from '../../../scripts/product.mjs';
import { until } from '../../support/until';

const SCRIPT = path.join(import.meta.dirname, '../../../dist/host.js');
const roots: string[] = [];

after(async () => {
  for (const root of roots) {
    const env = await userEnv(root);
    for (const pid of agentHostPids(env)) process.kill(pid, 'SIGKILL');
    await rm(root, { recursive: true, force: true });
  }
});

async function userEnv(root: string): Promise<NodeJS.ProcessEnv> {
  const env = { PATH: process.env.PATH, HOME: root, XDG_RUNTIME_DIR: path.join(root, 'run'), XDG_DATA_HOME: path.join(root, 'data'), XDG_CONFIG_HOME: path.join(root, 'config') };
  await mkdir(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  return env;
}

async function user(): Promise<NodeJS.ProcessEnv> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'subagents-session-host-'));
  roots.push(root);
  return userEnv(root);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const startHost = (env: NodeJS.ProcessEnv) => launchHost({ execPath: process.execPath, script: SCRIPT, env, settings: { idleExitSeconds: 600, unattendedApprovalSeconds: 1800 } });

test('a host the session’s window started stops with the session', async () => {
  // `npm start`'s server stops what its window started (startCodeServer's stop()).
  assert.equal(productServerOptions({ workspace: '/w', vsixPath: '/v.vsix' }).stopOwnHost, true);
  const env = await user();
  const before = agentHostPids(env);
  assert.deepEqual(before, []);
  await startHost(env);
  const [pid] = agentHostPids(env);
  assert.ok(pid && alive(pid));
  const said = await stopAgentHostsStartedSince(env, before);
  assert.equal(said, `Stopped the agent host (pid ${pid}).`);
  await until('the host to be gone', () => !alive(pid));
  assert.deepEqual(agentHostPids(env), []);
});

test('a host that ran before the session is the user’s: it stays', async () => {
  const env = await user();
  await startHost(env);
  const before = agentHostPids(env);
  assert.equal(before.length, 1);
  assert.equal(await stopAgentHostsStartedSince(env, before), null);
  assert.ok(alive(before[0]!), 'the user’s host was stopped');
});
