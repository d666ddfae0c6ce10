import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runEventSchema, type RunEvent } from '../../../../src/protocol/runEvents';
import { runCliProcess } from '../../../support/cliProcess';
import { pidAlive, pidIn, recordedCalls, stdioServer, waitFor, yaml } from '../../../support/mcp/servers';
import { startScriptedServer, type ScriptedServer } from '../../../support/scriptedServer';

// How MCP servers live and die with a run, through the real CLI: a crash
// in the middle of a call, a server that never answers, one that fails to
// start or never finishes starting, and no process left behind however the
// CLI ends (a normal end, SIGTERM, SIGKILL), grandchildren included.

let model: ScriptedServer;
let root: string;
let home: string;

function env(): NodeJS.ProcessEnv {
  return { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: model.url, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.data'), XDG_CACHE_HOME: path.join(home, '.cache') };
}

let projects = 0;
/** A project with one agent whose inline server `s` is started with `flags`, and the given settings. */
async function project(tools: string, flags: string[], settings: Record<string, unknown> = {}): Promise<string> {
  const dir = path.join(root, `p${++projects}`);
  await mkdir(path.join(dir, '.claude/agents'), { recursive: true });
  await mkdir(path.join(dir, '.subagents'), { recursive: true });
  await writeFile(path.join(dir, '.subagents/settings.json'), JSON.stringify(settings));
  await writeFile(path.join(dir, '.claude/agents/worker.md'), `---\nname: worker\ndescription: d\ntools: ${tools}\nmcpServers:\n  - s: ${yaml(stdioServer('--name', 's', ...flags))}\n---\n[agent:worker]\n`);
  return dir;
}

function parse(stdout: string): { events: RunEvent[]; result: Record<string, unknown> } {
  const lines = stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  return { events: lines.filter((l) => l.type !== 'result').map((l) => runEventSchema.parse(l)), result: lines.find((l) => l.type === 'result') ?? {} };
}

function finished(events: RunEvent[]) {
  return events.filter((e): e is Extract<RunEvent, { type: 'tool_finished' }> => e.type === 'tool_finished');
}

before(async () => {
  model = await startScriptedServer();
  root = await mkdtemp(path.join(os.tmpdir(), 'subagents-mcp-life-'));
  home = await mkdtemp(path.join(os.tmpdir(), 'subagents-mcp-home-'));
});

after(async () => {
  await model.close();
  await rm(root, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

test('a server that dies mid-call is a tool error for that call, and is started again for the next one', async () => {
  const calls = path.join(root, 'crash-calls.ndjson');
  const dir = await project('mcp__s__crash, mcp__s__echo', ['--calls', calls]);
  model.setScript((req) => {
    if (req.turn === 0) return { toolUses: [{ name: 'mcp__s__crash', input: {} }] };
    if (req.turn === 1) return { toolUses: [{ name: 'mcp__s__echo', input: { text: 'again' } }] };
    return { text: 'done' };
  });
  const r = await runCliProcess(['run', 'worker', 'go', '--json', '--trust-project', '--cwd', dir], { env: env(), timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const [crash, echo] = finished(parse(r.stdout).events);
  assert.equal(crash?.ok, false);
  assert.match(crash!.resultSummary, /MCP server "s" stopped during the call to crash: the server exited with code 3/);
  assert.match(model.requests[1]!.toolResults.values().next().value!.content, /stderr: about to crash on purpose.*started again on the next call/s);
  assert.equal(echo?.ok, true);
  assert.equal(model.requests[2]!.toolResults.values().next().value!.content, 's echoes: again');
  const [first, second] = recordedCalls(calls);
  assert.notEqual(first!.pid, second!.pid, 'a new server process answered the second call');
});

test('a call the server never answers times out after subagents.mcp.callTimeoutSeconds, and the agent goes on', async () => {
  const dir = await project('mcp__s__hang', [], { 'mcp.callTimeoutSeconds': 1 });
  model.setScript((req) => (req.turn === 0 ? { toolUses: [{ name: 'mcp__s__hang', input: {} }] } : { text: 'gave up waiting' }));
  const started = Date.now();
  const r = await runCliProcess(['run', 'worker', 'go', '--json', '--trust-project', '--cwd', dir], { env: env(), timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const [hang] = finished(parse(r.stdout).events);
  assert.equal(hang?.ok, false);
  assert.match(hang!.resultSummary, /MCP server "s" did not answer hang within 1 s \(subagents\.mcp\.callTimeoutSeconds\); the call was cancelled/);
  assert.ok(Date.now() - started < 20_000);
});

test('a server that fails to start: one warning naming the agent, the server and the reason (its stderr); the agent runs without it', async () => {
  const dir = await project('Read, mcp__s__echo', ['--fail', 'missing GITHUB_TOKEN, cannot start']);
  model.setScript((req) => ({ text: `tools: ${req.toolNames.join(', ')}` }));
  const r = await runCliProcess(['run', 'worker', 'go', '--json', '--trust-project', '--cwd', dir], { env: env(), timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const { events, result } = parse(r.stdout);
  assert.equal(result.output, 'tools: Read');
  const notices = events.filter((e) => e.type === 'notice');
  assert.equal(notices.length, 1);
  assert.match(notices[0]!.type === 'notice' ? notices[0]!.message : '', /^MCP server "s" \(.*worker\.md\) could not be started for agent "worker": it exited with code 2; its stderr: missing GITHUB_TOKEN, cannot start\.$/);
  // Without --json the tree shows it under the agent.
  const tree = await runCliProcess(['run', 'worker', 'go', '--trust-project', '--cwd', dir], { env: env(), timeoutMs: 60_000 });
  assert.match(tree.stderr, /⚠ MCP server "s" \(.*\) could not be started for agent "worker": it exited with code 2/);
});

test('a server that never finishes its handshake is given up after subagents.mcp.startupTimeoutSeconds', async () => {
  const dir = await project('Read, mcp__s__echo', ['--silent'], { 'mcp.startupTimeoutSeconds': 1 });
  model.setScript(() => ({ text: 'ran anyway' }));
  const r = await runCliProcess(['run', 'worker', 'go', '--json', '--trust-project', '--cwd', dir], { env: env(), timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const notice = parse(r.stdout).events.find((e) => e.type === 'notice');
  assert.match(notice?.type === 'notice' ? notice.message : '', /could not be started for agent "worker": it did not finish starting within 1 s \(subagents\.mcp\.startupTimeoutSeconds\)/);
});

/** A project whose server ignores SIGTERM and leaves a grandchild; the model calls `hang` (or `echo`) first. */
async function stubborn(tool: 'hang' | 'echo'): Promise<{ dir: string; serverPid: string; grandchildPid: string }> {
  const serverPid = path.join(root, `server-${projects + 1}.pid`);
  const grandchildPid = path.join(root, `grandchild-${projects + 1}.pid`);
  const dir = await project(`mcp__s__${tool}`, ['--pidfile', serverPid, '--grandchild', grandchildPid, '--ignore-term']);
  model.setScript((req) => (req.turn === 0 ? { toolUses: [{ name: `mcp__s__${tool}`, input: { text: 'x' } }] } : { text: 'done' }));
  return { dir, serverPid, grandchildPid };
}

async function assertGone(serverPid: string, grandchildPid: string): Promise<void> {
  const server = pidIn(serverPid);
  const grandchild = pidIn(grandchildPid);
  await waitFor(() => !pidAlive(server) && !pidAlive(grandchild), 10_000, () => `left behind: server ${server} ${pidAlive(server) ? 'alive' : 'gone'}, grandchild ${grandchild} ${pidAlive(grandchild) ? 'alive' : 'gone'}`);
}

test('no process is left behind when the run ends: the server (deaf to SIGTERM) and what it started are stopped as a group', async () => {
  const { dir, serverPid, grandchildPid } = await stubborn('echo');
  const r = await runCliProcess(['run', 'worker', 'go', '--json', '--trust-project', '--cwd', dir], { env: env(), timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  await assertGone(serverPid, grandchildPid);
});

for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
  test(`no process is left behind when the CLI gets ${signal} in the middle of a call`, async () => {
    const { dir, serverPid, grandchildPid } = await stubborn('hang');
    let sent = false;
    const r = await runCliProcess(['run', 'worker', 'go', '--json', '--trust-project', '--cwd', dir], {
      env: env(),
      timeoutMs: 60_000,
      onStdout: (chunk, child) => {
        if (!sent && chunk.includes('"tool_started"')) {
          sent = true;
          child.kill(signal);
        }
      },
    });
    assert.ok(sent, r.stderr);
    assert.equal(r.signal ?? 'exited', signal === 'SIGKILL' ? 'SIGKILL' : r.signal ?? 'exited');
    await assertGone(serverPid, grandchildPid);
  });
}

test("a failing server's stderr is redacted wherever it is kept or shown, and the caches are the user's alone", async () => {
  const key = `sk-ant-api03-${'k3y'.repeat(14)}`;
  const token = `svc-${'t0ken'.repeat(8)}`;
  const leaked = path.join(root, 'leaked.env');
  await writeFile(leaked, `ANTHROPIC_API_KEY=${key}\n`);
  const dir = path.join(root, `p${++projects}`);
  await mkdir(path.join(dir, '.claude/agents'), { recursive: true });
  const server = { ...stdioServer('--name', 's', '--stderr-env', 'SERVICE_TOKEN', '--stderr-file', leaked, '--fail', 'cannot start'), env: { SERVICE_TOKEN: '${SERVICE_TOKEN}' } };
  await writeFile(path.join(dir, '.claude/agents/worker.md'), `---\nname: worker\ndescription: d\ntools: Read, mcp__s__echo\nmcpServers:\n  - s: ${yaml(server)}\n---\n[agent:worker]\n`);
  model.setScript(() => ({ text: 'ran without it' }));
  const withSecrets = { ...env(), ANTHROPIC_API_KEY: key, SERVICE_TOKEN: token };
  const r = await runCliProcess(['run', 'worker', 'go', '--json', '--trust-project', '--cwd', dir], { env: withSecrets, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const notice = parse(r.stdout).events.find((e) => e.type === 'notice');
  assert.match(notice?.type === 'notice' ? notice.message : '', /could not be started for agent "worker": it exited with code 2; its stderr: SERVICE_TOKEN=\[redacted\] ⏎ ANTHROPIC_API_KEY=\[redacted\] ⏎ cannot start/);

  const cacheDir = path.join(home, '.cache', 'subagents');
  const statusText = await readFile(path.join(cacheDir, 'mcp-servers.json'), 'utf8');
  assert.match(statusText, /SERVICE_TOKEN=\[redacted\]/);
  const listed = await runCliProcess(['agents', '--cwd', dir, '--trust-project'], { env: withSecrets });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /failed to start.*SERVICE_TOKEN=\[redacted\]/);
  const checked = await runCliProcess(['agents', '--cwd', dir, '--trust-project', '--check-mcp', '--json'], { env: withSecrets, timeoutMs: 60_000 });
  assert.equal(checked.code, 0, checked.stderr);
  for (const [what, text] of [['run output', r.stdout + r.stderr], ['status cache', statusText], ['listing', listed.stdout + listed.stderr], ['check', checked.stdout + checked.stderr]] as const) {
    assert.equal(text.includes(key.slice(13, 29)), false, `${what} shows the key`);
    assert.equal(text.includes(token.slice(4, 20)), false, `${what} shows the token`);
  }
  // Every cache file (server statuses, listings) is for the user alone.
  const files = await listFiles(cacheDir);
  assert.ok(files.some((f) => f.endsWith('mcp-servers.json')) && files.some((f) => f.includes('listings')), files.join('\n'));
  for (const file of files) {
    assert.equal((await stat(file)).mode & 0o777, 0o600, file);
    assert.equal((await readFile(file, 'utf8')).includes(token.slice(4, 20)), false, `${file} holds the token`);
  }
  assert.equal((await stat(cacheDir)).mode & 0o777, 0o700);
});

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return (await Promise.all(entries.map((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name)) : [path.join(dir, e.name)])))).flat();
}

test('a result larger than the stdio buffer takes fails that call at once (not at the call timeout), and the next call starts the server again', async () => {
  const calls = path.join(root, 'big-calls.ndjson');
  const dir = await project('mcp__s__big, mcp__s__echo', ['--calls', calls], { 'mcp.callTimeoutSeconds': 3600 });
  model.setScript((req) => {
    if (req.turn === 0) return { toolUses: [{ name: 'mcp__s__big', input: { chars: 12_000_000 } }] };
    if (req.turn === 1) return { toolUses: [{ name: 'mcp__s__echo', input: { text: 'after' } }] };
    return { text: 'done' };
  });
  const r = await runCliProcess(['run', 'worker', 'go', '--json', '--trust-project', '--cwd', dir], { env: env(), timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr);
  const [big, echo] = finished(parse(r.stdout).events);
  assert.equal(big?.ok, false);
  assert.match(big!.resultSummary, /MCP server "s" stopped during the call to big: the server sent a message larger than 10 MiB \(more than a tool result may be\) and was stopped during the call/);
  assert.equal(echo?.ok, true, 'the next call started the server again');
  assert.equal(parse(r.stdout).result.output, 'done');
});

test('a server that never answers its handshake and exits, leaving a child that holds its pipes: a clear startup failure, the run ends with its result, the child is stopped', async () => {
  const orphan = path.join(root, `orphan-${projects + 1}.pid`);
  // Time enough for the server to start and leave its child on a busy machine; the child then holds the pipes until the deadline.
  const dir = await project('Read, mcp__s__echo', ['--leave-child', orphan], { 'mcp.startupTimeoutSeconds': 5 });
  model.setScript(() => ({ text: 'ran anyway' }));
  const r = await runCliProcess(['run', 'worker', 'go', '--json', '--trust-project', '--cwd', dir], { env: env(), timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const { events, result } = parse(r.stdout);
  assert.equal(result.output, 'ran anyway', `a result line, not a silent exit: ${r.stdout}`);
  const notice = events.find((e) => e.type === 'notice');
  assert.match(notice?.type === 'notice' ? notice.message : '', /could not be started for agent "worker": it did not finish starting within 5 s \(subagents\.mcp\.startupTimeoutSeconds\)/);
  const child = pidIn(orphan);
  await waitFor(() => !pidAlive(child), 10_000, () => `the child ${child} the server left is still running`);
});
