import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { HostClient } from '../../../src/core/host/client';
import { connectOrLaunch, type LaunchOptions } from '../../../src/core/host/connect';
import { hostPaths } from '../../../src/core/host/paths';
import type { RunSnapshot } from '../../../src/protocol/runSnapshot';
import { teamView } from '../../../src/surfaces/views/viewModel';
import { runCliProcess, startCliProcess } from '../../support/cliProcess';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';
import { teamScript, writeTeamProject } from '../../support/teamScenario';
import { until } from '../../support/until';

// A team in the agent host (its own process, dist/host.js): `subagents run
// duo` in a terminal attaches to the host, and a window connected to the
// same host fills its team view from the host's snapshots as the team
// works (bob idle after his refused claim, the board, the messages); a
// window that connects afterwards (a reload) gets the team and its task
// list whole; the history has the tasks with their owners.

const SCRIPT = path.join(import.meta.dirname, '../../../dist/host.js');
const KEY = 'sk-ant-host-team-test-0123456789';

let model: ScriptedServer;
let root: string;
let env: NodeJS.ProcessEnv;
let project: string;
let aliceMayStart: () => void = () => undefined;
const clients: HostClient[] = [];

before(async () => {
  model = await startScriptedServer(teamScript({ aliceMayStart: new Promise<void>((resolve) => (aliceMayStart = resolve)) }));
  root = await mkdtemp(path.join(os.tmpdir(), 'subagents-hostteam-'));
  env = { PATH: process.env.PATH, HOME: root, XDG_RUNTIME_DIR: path.join(root, 'run'), XDG_DATA_HOME: path.join(root, 'data'), XDG_CONFIG_HOME: path.join(root, 'config'), XDG_CACHE_HOME: path.join(root, 'cache') };
  await mkdir(env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
  project = path.join(root, 'project');
  await mkdir(project, { recursive: true });
  await writeFile(path.join(project, 'README.md'), '# project\n');
  await writeTeamProject(project);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'team');
});

after(async () => {
  for (const client of clients.splice(0)) client.close();
  await stopHost();
  await model.close();
  await rm(root, { recursive: true, force: true });
});

function launch(): LaunchOptions {
  return { execPath: process.execPath, script: SCRIPT, env, settings: { idleExitSeconds: 600, unattendedApprovalSeconds: 1800 } };
}

async function windowClient(): Promise<HostClient> {
  const client = await HostClient.open({
    connect: () => connectOrLaunch(env, launch()),
    identity: { kind: 'vscode', version: 'test', build: 'dev', pid: process.pid, folders: [project] },
    reconnect: false,
    coalesceMs: 0,
    log: () => undefined,
  });
  clients.push(client);
  return client;
}

async function stopHost(): Promise<void> {
  let pid: number;
  try {
    pid = (JSON.parse(readFileSync(hostPaths(env).info, 'utf8')) as { pid: number }).pid;
  } catch {
    return;
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  await until('the host to be gone', () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  });
}

const teamRun = (client: HostClient): RunSnapshot | undefined => client.store.list().find((r) => r.team?.name === 'duo');

test('a team file runs in the agent host from the terminal; a window fills its team view from the host, live and after a reload', { timeout: 180_000 }, async (t) => {
  const window = await windowClient();
  const cliEnv = { ...env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: model.url };
  const started = startCliProcess(['run', 'duo', 'Write alpha and beta.', '--json', '--permission-mode', 'bypassPermissions'], { env: cliEnv, cwd: project });
  t.after(() => started.child.kill('SIGKILL'));

  // The window sees the team at work in the host: bob idle after his refused claim, #2 waiting for #1.
  const live = await until('the window to see bob idle', () => {
    const run = teamRun(window);
    const view = run && teamView(run);
    return view?.roster.find((r) => r.name === 'bob')?.state === 'idle' ? view : undefined;
  }, 90_000);
  assert.deepEqual(
    live.tasks.map((task) => [task.id, task.status, task.blockedBy]),
    [
      ['1', 'pending', []],
      ['2', 'pending', ['1']],
    ],
  );
  assert.equal(live.roster.find((r) => r.role === 'lead')?.state, 'working');
  aliceMayStart();

  const code = await started.exited;
  const { stdout, stderr } = started.output();
  assert.equal(code, 0, stderr);
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; runId: string };
  assert.equal(result.status, 'completed');
  assert.equal(teamRun(window)?.runId, result.runId, 'the run the window saw is the terminal’s, run by the host');

  // A window that connects now (a reload) gets the team whole from the host's snapshot.
  const reloaded = await windowClient();
  const snapshot = await until('the reloaded window to have the run', () => reloaded.store.get(result.runId));
  const view = teamView(snapshot)!;
  assert.deepEqual(
    view.tasks.map((task) => [task.id, task.status, task.owner]),
    [
      ['1', 'completed', 'alice'],
      ['2', 'completed', 'bob'],
    ],
  );
  assert.deepEqual(view.roster.filter((r) => r.role === 'member').map((r) => [r.name, r.state]).sort(), [
    ['alice', 'ended'],
    ['bob', 'ended'],
  ]);
  assert.ok(view.messages.some((m) => m.from === 'alice' && m.to === 'bob'), 'alice’s message to bob is in the view');

  // The shared history, as the terminal reads it.
  const runs = await runCliProcess(['runs', result.runId, '--json'], { env: cliEnv, cwd: project });
  assert.equal(runs.code, 0, runs.stderr);
  const history = JSON.parse(runs.stdout) as RunSnapshot;
  assert.deepEqual(history.tasks?.map((task) => [task.id, task.owner, task.status]), [
    ['1', 'alice', 'completed'],
    ['2', 'bob', 'completed'],
  ]);
  // Each change on its own branch; nothing in the user's tree.
  assert.equal(existsSync(path.join(project, 'alpha.txt')), false);
  assert.equal(execFileSync('git', ['status', '--porcelain'], { cwd: project, encoding: 'utf8' }).trim(), '');
});
