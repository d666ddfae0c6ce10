import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { HostClient } from '../../../src/core/host/client';
import { connectOrLaunch } from '../../../src/core/host/connect';
import { hostPaths } from '../../../src/core/host/paths';
import { runCliProcess } from '../../support/cliProcess';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';
import { until } from '../../support/until';

// `subagents run` where the agent host runs is the host's client: it must
// reach the host without loading the engine bundle (the SDK, the runtime),
// which is most of a fresh process's time to its first request.

const SCRIPT = path.join(import.meta.dirname, '../../../dist/host.js');
const TRACER = path.join(import.meta.dirname, '../../support/loadedBundles.mjs');
const KEY = 'sk-ant-run-client-test-0123456789';

let model: ScriptedServer;
let root: string;
let env: NodeJS.ProcessEnv;
let project: string;
let window: HostClient;

before(async () => {
  model = await startScriptedServer((req) => ({ text: `done: ${req.lastUserText}` }));
  root = await mkdtemp(path.join(os.tmpdir(), 'subagents-runclient-'));
  env = { PATH: process.env.PATH, HOME: root, XDG_RUNTIME_DIR: path.join(root, 'run'), XDG_DATA_HOME: path.join(root, 'data'), XDG_CONFIG_HOME: path.join(root, 'config'), XDG_CACHE_HOME: path.join(root, 'cache') };
  await mkdir(env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
  project = path.join(root, 'project');
  await mkdir(path.join(project, '.claude', 'agents'), { recursive: true });
  await writeFile(path.join(project, '.claude', 'agents', 'plain.md'), `---\nname: plain\ndescription: plain\n---\nYou are plain.\n`);
  // The host as VS Code starts it, and a window connected to it.
  window = await HostClient.open({
    connect: () => connectOrLaunch(env, { execPath: process.execPath, script: SCRIPT, env, settings: { idleExitSeconds: 600, unattendedApprovalSeconds: 1800 } }),
    identity: { kind: 'vscode', version: 'test', build: 'dev', pid: process.pid, folders: [project] },
    reconnect: false,
    coalesceMs: 0,
    log: () => undefined,
  });
});

after(async () => {
  window?.close();
  const pid = (() => {
    try {
      return (JSON.parse(readFileSync(hostPaths(env).info, 'utf8')) as { pid: number }).pid;
    } catch {
      return null;
    }
  })();
  if (pid !== null) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
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
  await model.close();
  await rm(root, { recursive: true, force: true });
});

/** `subagents run …` as a user runs it, with the bundles it loaded. */
async function tracedRun(args: string[], name: string) {
  const loadedFile = path.join(root, `${name}.loaded`);
  const run = await runCliProcess(['run', 'plain', 'hello', '--json', ...args], {
    cwd: project,
    env: { ...env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: model.url, NODE_OPTIONS: `--import=${TRACER}`, SUBAGENTS_TEST_LOADED: loadedFile },
  });
  if (!run.stdout.trim()) assert.fail(`no output (exit ${run.code}): ${run.stderr}`);
  const loaded = readFileSync(loadedFile, 'utf8').split('\n').filter(Boolean).map((file) => path.basename(file));
  return { ...run, loaded, result: JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { status: string; runId: string; output: string } };
}

test('`subagents run` through a running host loads the light bundle (the host client), never the engine bundle', async () => {
  const viaHost = await tracedRun([], 'host');
  assert.equal(viaHost.code, 0, viaHost.stderr);
  assert.equal(viaHost.result.status, 'completed');
  assert.equal(viaHost.result.output, 'done: hello');
  // The run was the host's: the window sees it.
  await until('the window to see the run', () => window.store.get(viaHost.result.runId));
  assert.ok(viaHost.loaded.includes('cli-run.cjs') && viaHost.loaded.includes('cli-agents.cjs'), viaHost.loaded.join(', '));
  assert.ok(!viaHost.loaded.includes('engine.cjs'), `the engine bundle was loaded: ${viaHost.loaded.join(', ')}`);

  // The same trace sees the engine where the run is this process's own.
  const inProcess = await tracedRun(['--no-host'], 'own');
  assert.equal(inProcess.code, 0, inProcess.stderr);
  assert.equal(inProcess.result.output, 'done: hello');
  // The terminal's own run: its file names the terminal's process, not the host (which only follows it for its windows).
  const file = JSON.parse(readFileSync(path.join(env.XDG_DATA_HOME!, 'subagents', 'runs', `${inProcess.result.runId}.json`), 'utf8')) as { owner: { pid: number; role?: string } };
  assert.notEqual(file.owner.pid, window.host?.pid);
  assert.equal(file.owner.role, undefined);
  assert.ok(inProcess.loaded.includes('engine.cjs'), inProcess.loaded.join(', '));
});

test('`subagents runs` lists and shows runs from the history without loading the engine bundle', async () => {
  const made = await tracedRun(['--no-host'], 'listed');
  assert.equal(made.code, 0, made.stderr);
  const traced = async (args: string[], name: string) => {
    const loadedFile = path.join(root, `${name}.loaded`);
    const result = await runCliProcess(['runs', ...args], { cwd: project, env: { ...env, NODE_OPTIONS: `--import=${TRACER}`, SUBAGENTS_TEST_LOADED: loadedFile } });
    assert.equal(result.code, 0, result.stderr);
    const loaded = readFileSync(loadedFile, 'utf8').split('\n').filter(Boolean).map((file) => path.basename(file));
    assert.ok(!loaded.includes('engine.cjs'), `the engine bundle was loaded: ${loaded.join(', ')}`);
    return result.stdout;
  };
  const list = JSON.parse(await traced(['--json'], 'runs-list')) as unknown;
  assert.ok(JSON.stringify(list).includes(made.result.runId), 'the run is listed');
  const one = await traced([made.result.runId, '--json'], 'runs-one');
  assert.match(one, /done: hello/);
});
