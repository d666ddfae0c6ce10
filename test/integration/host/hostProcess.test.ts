import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { defaultSettings } from '../../../src/core/config';
import { HostClient } from '../../../src/core/host/client';
import { connectOrLaunch, type LaunchOptions } from '../../../src/core/host/connect';
import { hostPaths } from '../../../src/core/host/paths';
import type { ScopeSpec } from '../../../src/core/runtime/scopeSpec';
import { PROTOCOL_MAJOR } from '../../../src/protocol/host';
import { isAgent } from '../../support/agents';
import { runCliProcess } from '../../support/cliProcess';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';
import { until } from '../../support/until';
import { branchExists, makeSandbox } from '../core/isolation/helpers';

// The agent host as its own process (dist/host.js, after `npm run build`),
// started on demand as the extension starts it, with a VS Code-like client
// and the real CLI in a terminal beside it.

const SCRIPT = path.join(import.meta.dirname, '../../../dist/host.js');
const KEY = 'sk-ant-host-test-secret-0123456789';

let model: ScriptedServer;
let root: string;
let env: NodeJS.ProcessEnv;
let project: string;
const clients: HostClient[] = [];

/** Opened when the finisher may give its first answer. */
let finishing: { wait: Promise<void>; open: () => void } | undefined;

const texts = (messages: Array<{ role: string; content: unknown }>) =>
  messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text ?? '') : []));

before(async () => {
  model = await startScriptedServer((req) => {
    if (isAgent(req.system, 'shell')) {
      if (req.turn === 0) return { toolUses: [{ name: 'Bash', input: { command: 'echo approved-and-ran' } }] };
      return { text: `shell: ${[...req.toolResults.values()][0]?.content.trim() ?? ''}` };
    }
    if (isAgent(req.system, 'listener')) {
      const heard = texts(req.messages).find((t) => t.includes('<message'));
      if (heard) return { text: `heard: ${/\n([^\n]*)\n<\/message>/.exec(heard)?.[1] ?? heard}` };
      return { delayMs: 100, toolUses: [{ name: 'LS', input: {} }] };
    }
    if (isAgent(req.system, 'finisher')) {
      if (req.turn === 0) return finishing!.wait.then(() => ({ text: 'first answer' }));
      return { text: `read ${texts(req.messages).filter((t) => t.includes('<message')).length} message(s)` };
    }
    if (isAgent(req.system, 'editor')) return req.turn === 0 ? { toolUses: [{ name: 'Write', input: { file_path: 'out.txt', content: 'from the editor\n' } }] } : { text: 'edited' };
    if (isAgent(req.system, 'sleeper')) return req.turn === 0 && !texts(req.messages).includes('wake up') ? { hang: true } : { text: `awake, remembering: ${texts(req.messages)[0]}` };
    return { text: `done: ${req.lastUserText}` };
  });
  root = await mkdtemp(path.join(os.tmpdir(), 'subagents-hostproc-'));
  env = { PATH: process.env.PATH, HOME: root, XDG_RUNTIME_DIR: path.join(root, 'run'), XDG_DATA_HOME: path.join(root, 'data'), XDG_CONFIG_HOME: path.join(root, 'config'), XDG_CACHE_HOME: path.join(root, 'cache') };
  await mkdir(env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
  project = path.join(root, 'project');
  for (const name of ['shell', 'listener', 'sleeper', 'plain', 'finisher']) {
    await mkdir(path.join(project, '.claude', 'agents'), { recursive: true });
    await writeFile(path.join(project, '.claude', 'agents', `${name}.md`), `---\nname: ${name}\ndescription: ${name}\n---\nYou are ${name}. [agent:${name}]\n`);
  }
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
});

after(async () => {
  await stopHost();
  await model.close();
  await rm(root, { recursive: true, force: true });
});

function launch(idleExitSeconds = 600, extraEnv: NodeJS.ProcessEnv = {}): LaunchOptions {
  return { execPath: process.execPath, script: SCRIPT, env: { ...env, ...extraEnv }, settings: { idleExitSeconds, unattendedApprovalSeconds: 1800 } };
}

/** A client as VS Code makes one: it starts the host when none runs, and reconnects (to a new host if need be). */
async function windowClient(options: { idleExitSeconds?: number; extraEnv?: NodeJS.ProcessEnv } = {}): Promise<HostClient> {
  const client = await HostClient.open({
    connect: () => connectOrLaunch(env, launch(options.idleExitSeconds, options.extraEnv)),
    identity: { kind: 'vscode', version: 'test', build: 'dev', pid: process.pid, folders: [project] },
    reconnect: true,
    coalesceMs: 0,
    log: () => undefined,
  });
  clients.push(client);
  return client;
}

function scope(): ScopeSpec {
  return {
    cwd: project,
    surface: 'vscode',
    settings: { ...defaultSettings(), permissionMode: 'default' },
    trust: { kind: 'window', trusted: true },
    credentials: { apiKey: KEY, baseUrl: model.url },
    env: { PATH: process.env.PATH ?? '', HOME: root },
    home: root,
    session: Date.now(),
  };
}

function hostPid(): number | null {
  try {
    return (JSON.parse(readFileSync(hostPaths(env).info, 'utf8')) as { pid: number }).pid;
  } catch {
    return null;
  }
}

/** Whether the process is alive (a zombie, exited but not reaped, whose every thread is gone, is not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return processState(pid) !== 'Z';
}

/** The process's one-letter state from /proc (`Z`: a zombie, once its last thread is gone); null where there is none. */
function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' && Number(fields[17]) > 1 ? 'dying' : fields[0]!;
  } catch {
    return null;
  }
}

async function stopHost(): Promise<void> {
  const pid = hostPid();
  if (pid === null) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
  await until('the host to be gone', () => !alive(pid));
}

const cli = (args: string[], script?: string) => runCliProcess(args, { env: { ...env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: model.url }, cwd: project, ...(script ? { cli: script } : {}) });

test('the host listens on a socket only its user can open; the key reaches it over the socket, never in its command line or environment', async () => {
  const client = await windowClient({ extraEnv: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_AUTH_TOKEN: KEY } });
  const paths = hostPaths(env);
  assert.equal(statSync(paths.dir).mode & 0o777, 0o700);
  assert.equal(statSync(paths.socket).mode & 0o777, 0o600);
  assert.equal(statSync(paths.token).mode & 0o777, 0o600);
  const pid = hostPid()!;
  assert.equal(client.host?.pid, pid);
  const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  assert.doesNotMatch(environ, /ANTHROPIC_|sk-ant-host-test/);
  assert.doesNotMatch(cmdline, /sk-ant-host-test/);
  assert.match(environ, /ELECTRON_RUN_AS_NODE=1/);
  const run = await client.start({ scope: scope(), agent: 'listener', prompt: 'hi' });
  await client.send({ agentId: run.agentId, text: 'over the socket', via: 'test' });
  assert.equal((await run.result()).output, 'heard: over the socket');
  assert.ok(model.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`));
});

test('two windows starting a host at the same moment end with one host', async () => {
  await stopHost();
  const [a, b] = await Promise.all([windowClient(), windowClient()]);
  assert.equal(a.host?.pid, b.host?.pid);
  assert.equal(hostPid(), a.host?.pid);
  const status = await a.status();
  assert.equal(status.clients.length, 2);
});

test('a terminal reaches a run a window started: runs lists it live, send reaches it at once, stop stops it', async () => {
  const window = await windowClient();
  const run = await window.start({ scope: scope(), agent: 'listener', prompt: 'listen' });
  await until('the listener at work', () => window.store.agent(run.agentId)?.status === 'running');
  const listed = await cli(['runs', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  const runs = (JSON.parse(listed.stdout) as { runs: Array<{ runId: string; status: string }> }).runs;
  assert.equal(runs.find((r) => r.runId === run.runId)?.status, 'running');

  const sent = await cli(['send', run.agentId, 'from the terminal']);
  assert.equal(sent.code, 0, sent.stderr);
  assert.match(sent.stdout, new RegExp(`^Sent to listener \\(${run.agentId}\\), at work in the agent host: it reads the message at its next turn\\.$`, 'm'));
  assert.equal((await run.result()).output, 'heard: from the terminal');

  const second = await window.start({ scope: scope(), agent: 'listener', prompt: 'listen again' });
  await until('it at work', () => window.store.agent(second.agentId)?.status === 'running');
  const stopped = await cli(['stop', second.agentId]);
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.match(stopped.stdout, new RegExp(`^Stopped listener \\(${second.agentId}\\) in the agent host\\.$`, 'm'));
  assert.equal((await second.result()).status, 'cancelled');
});

test('a terminal lists the approvals a window’s run waits for, and allows one by its id', async () => {
  const window = await windowClient();
  const run = await window.start({ scope: scope(), agent: 'shell', prompt: 'run it' });
  await until('the approval', () => window.approvals.pending.length === 1);
  const id = window.approvals.pending[0]!.request.id;
  const listed = await cli(['approvals']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`^${id}  shell wants to run a shell command · agent ${run.agentId} · run ${run.runId}`, 'm'));
  assert.match(listed.stdout, /^ {4}echo approved-and-ran$/m);
  const allowed = await cli(['approvals', 'allow', id]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout, new RegExp(`^Allowed ${id} for shell \\(${run.agentId}\\)\\.$`, 'm'));
  assert.equal((await run.result()).output, 'shell: approved-and-ran');
  const again = await cli(['approvals', 'deny', id]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /is not waiting: it was answered already/);
});

test('subagents run attaches to the running host: a window sees the run live; with --no-host it runs in the terminal’s own process', async () => {
  const window = await windowClient();
  const seen = new Set<string>();
  window.onEvent((event) => void seen.add(event.runId));
  const attached = await cli(['run', 'plain', 'a terminal run', '--json']);
  assert.equal(attached.code, 0, attached.stderr);
  const result = JSON.parse(attached.stdout.trim().split('\n').at(-1)!) as { type: string; status: string; runId: string; output: string };
  assert.deepEqual([result.type, result.status, result.output], ['result', 'completed', 'done: a terminal run']);
  assert.ok(seen.has(result.runId), 'the window did not see the terminal’s run live');
  assert.equal(window.store.get(result.runId)?.status, 'completed');

  const own = await cli(['run', 'plain', 'an own-process run', '--json', '--no-host']);
  assert.equal(own.code, 0, own.stderr);
  const ownResult = JSON.parse(own.stdout.trim().split('\n').at(-1)!) as { runId: string };
  assert.equal(seen.has(ownResult.runId), false, 'a --no-host run went through the host');
});

test('a run a terminal runs in its own process (--no-host) shows in a window through the host as it goes, and finished once it ends; `subagents runs` through the host says so too', async () => {
  let open!: () => void;
  finishing = { wait: new Promise<void>((resolve) => (open = resolve)), open: () => open() };
  const window = await windowClient();
  const running = cli(['run', 'finisher', 'in a terminal of its own', '--json', '--no-host']);
  const ofTerminal = () => window.store.list().find((r) => Object.values(r.agents).some((a) => a.prompt === 'in a terminal of its own'));
  await until('the window to see the terminal’s run at work', () => ofTerminal()?.status === 'running');
  finishing.open();
  const ran = await running;
  assert.equal(ran.code, 0, ran.stderr);
  const { runId } = JSON.parse(ran.stdout.trim().split('\n').at(-1)!) as { runId: string };
  assert.equal(ofTerminal()?.runId, runId);
  await until('the window to see it finished', () => window.store.get(runId)?.status === 'completed');
  assert.equal(window.store.get(runId)?.agents[window.store.get(runId)!.rootAgentId]?.output, 'first answer');
  const listed = await cli(['runs', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal((JSON.parse(listed.stdout) as { runs: Array<{ runId: string; status: string }> }).runs.find((r) => r.runId === runId)?.status, 'completed');
});

test('a host killed mid-run: its run is interrupted, the window reconnects to a new host by itself, and the agent resumes with its conversation', async () => {
  const window = await windowClient();
  const run = await window.start({ scope: scope(), agent: 'sleeper', prompt: 'remember the word banana' });
  await until('the sleeper to ask the model', () => model.requests.some((r) => isAgent(r.system, 'sleeper')));
  const first = window.host!.pid;
  process.kill(first, 'SIGKILL');
  await until('a new host', () => window.connected && window.host!.pid !== first);
  await until('the run marked interrupted', () => window.store.agent(run.agentId)?.status === 'interrupted');
  const resumed = await window.followUp({ scope: scope(), agentId: run.agentId, prompt: 'wake up' });
  const result = await resumed.result();
  assert.equal(result.status, 'completed');
  assert.equal(result.output, 'awake, remembering: remember the word banana');
});

test('a host killed while an approval waits, whose parent never reaps it: the new host still sees it gone, the run reads interrupted and its approval is withdrawn', { skip: process.platform !== 'linux' && 'zombies are read from /proc' }, async () => {
  // The host is detached from the window that started it. Once that window's process is gone (a reload, an
  // extension-host crash), whatever adopts orphans is the host's parent, and in a container that can be a PID 1 that
  // never reaps: a killed host then stays a zombie, a pid that still takes signals. Here a parent that never reaps
  // (`exec sleep`) stands in for it.
  const adopters = path.join(root, 'adopters');
  const wrapper = path.join(root, 'host-under-a-parent-that-never-reaps.sh');
  await writeFile(wrapper, `#!/bin/sh\necho $$ >> '${adopters}'\n'${process.execPath}' "$@" &\nexec sleep 3600\n`, { mode: 0o755 });
  await stopHost();
  const window = await HostClient.open({
    connect: () => connectOrLaunch(env, { ...launch(), execPath: wrapper }),
    identity: { kind: 'vscode', version: 'test', build: 'dev', pid: process.pid, folders: [project] },
    reconnect: true,
    coalesceMs: 0,
    log: () => undefined,
  });
  clients.push(window);
  try {
    const run = await window.start({ scope: scope(), agent: 'shell', prompt: 'run it' });
    await until('the approval', () => window.approvals.pending.length === 1);
    const approvalId = window.approvals.pending[0]!.request.id;
    const withdrawn = new Promise<string>((resolve) => window.approvals.onDidChange((change) => change.type === 'settled' && resolve(`${change.approval.request.id} ${change.decision.by}`)));
    const first = window.host!.pid;
    process.kill(first, 'SIGKILL');
    await until('the killed host to be a zombie', () => processState(first) === 'Z');
    await until('a new host', () => window.connected && window.host!.pid !== first);
    await until('the run marked interrupted', () => window.store.agent(run.agentId)?.status === 'interrupted');
    const agent = window.store.agent(run.agentId)!;
    assert.equal(agent.error, 'The process running this agent stopped before it finished.');
    assert.equal(agent.approval, null);
    assert.equal(await withdrawn, `${approvalId} stopped`, 'withdrawn because its host stopped, not answered elsewhere');
    assert.deepEqual(window.approvals.pending, []);
    assert.equal(window.store.get(run.runId)?.status, 'interrupted');
  } finally {
    window.close();
    await stopHost();
    for (const pid of (await readFile(adopters, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
});

test('with no client, no run and no approval, the host exits after its idle time; `subagents host status` then says none runs', async () => {
  await stopHost();
  const client = await windowClient({ idleExitSeconds: 1 });
  const pid = client.host!.pid;
  const status = await cli(['host', 'status']);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, new RegExp(`^The agent host runs: pid ${pid},`, 'm'));
  client.close();
  await until('the idle host to exit', () => !alive(pid));
  const none = await cli(['host', 'status']);
  assert.equal(none.code, 1);
  assert.match(none.stdout, /^No agent host runs\./);
});

test('ids are data through the host too: a terminal naming an Object member gets exit 2 and the known agents; a client asking for one gets a clear no, and the host goes on', async () => {
  const window = await windowClient();
  const known = await window.start({ scope: scope(), agent: 'plain', prompt: 'be known' });
  await known.result();
  for (const id of ['__proto__', 'constructor', 'toString']) {
    for (const args of [['send', id, 'hi'], ['stop', id], ['resume', id, 'again']]) {
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^subagents ${args[0]}: no agent "${id}" in the run history\\.\n`), args.join(' '));
      assert.match(r.stderr, new RegExp(`^  ${known.agentId}  plain `, 'm'), 'the known agents are named');
    }
    await assert.rejects(window.send({ agentId: id, text: 'hi', via: 'test' }), new RegExp(`No agent "${id}" in the history`));
    await assert.rejects(window.followUp({ scope: scope(), agentId: id, prompt: 'again' }));
    assert.equal(await window.stop({ agentId: id, reason: 'no', via: 'test' }), 'not running');
    assert.equal(window.store.agent(id), undefined);
  }
  const after = await window.start({ scope: scope(), agent: 'plain', prompt: 'still here' });
  assert.equal((await after.result()).output, 'done: still here');
});

test('sends timed around the end of a host run: every one exits 0, each message is read once, none is left in the mailbox, and the run files stay the host\'s', async () => {
  let open!: () => void;
  finishing = { wait: new Promise<void>((resolve) => (open = resolve)), open: () => open() };
  const window = await windowClient();
  const run = await window.start({ scope: scope(), agent: 'finisher', prompt: 'answer, then listen' });
  await until('its first request', () => model.requests.some((r) => isAgent(r.system, 'finisher')));
  const sends: Array<Promise<{ n: number; code: number | null; stdout: string; stderr: string }>> = [];
  // Through the host, and once (--no-host) from a terminal's own process while the agent works, which must leave it to the host.
  const send = (n: number, ...flags: string[]) => sends.push(cli(['send', run.agentId, `message ${n}`, ...flags]).then((r) => ({ n, ...r })));
  send(1);
  send(2, '--no-host');
  await Promise.all(sends);
  // As its last answer ends, and once it has ended.
  finishing.open();
  send(3);
  await until('the agent to finish', () => window.store.agent(run.agentId)?.status === 'completed');
  for (const n of [4, 5]) send(n);
  send(6);
  send(7);
  const results = await Promise.all(sends);
  for (const r of results) {
    assert.equal(r.code, 0, `send ${r.n}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /in use/, `send ${r.n}`);
  }
  // The terminal's own process queued its message for the host: it says so, by name.
  assert.match(results.find((r) => r.n === 2)!.stdout, new RegExp(`^Queued for finisher \\(${run.agentId}\\), at work in the agent host \\(pid ${hostPid()}\\): it reads the message at its next turn\\.$`, 'm'));
  // A message queued for the host as its agent ended continues it there, followed by no terminal: wait for the mailbox, then the host.
  const data = path.join(env.XDG_DATA_HOME!, 'subagents');
  await until('the mailbox to empty', async () => (await readdir(path.join(data, 'mailbox')).catch(() => [])).filter((n) => n.endsWith('.json')).length === 0);
  await until('nothing at work in the host', async () => (await window.status()).working === 0);
  const transcript = await readFile(path.join(data, 'transcripts', `${run.agentId}.ndjson`), 'utf8');
  for (let n = 1; n <= 7; n++) assert.equal(transcript.split(`\\nmessage ${n}\\n</message>`).length - 1, 1, `message ${n} in the transcript once`);
  // The persistence layer's files, written by the host (or a terminal that continued the agent), carry their version.
  const runFile = JSON.parse(await readFile(path.join(data, 'runs', `${run.runId}.json`), 'utf8')) as { version?: unknown };
  assert.equal(typeof runFile.version, 'number');
  assert.match(transcript.split('\n')[0]!, /"version":\d+/);
});

test('the host keeps the worktree pool for its clients: what a terminal discards is cleaned by the host, with no upkeep process of the terminal’s', async () => {
  await windowClient();
  const repo = path.join(root, 'repo');
  await mkdir(path.join(repo, '.claude', 'agents'), { recursive: true });
  await writeFile(path.join(repo, '.claude', 'agents', 'editor.md'), '---\nname: editor\ndescription: Edits\ntools: Write\n---\nEdit. [agent:editor]\n');
  await writeFile(path.join(repo, 'app.txt'), 'v1\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  const inRepo = (args: string[]) => runCliProcess(args, { env: { ...env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: model.url }, cwd: repo });
  const run = await inRepo(['run', 'editor', 'edit it', '--isolation', 'worktree', '--permission-mode', 'acceptEdits', '--json']);
  assert.equal(run.code, 0, run.stderr);
  const { agentId } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { agentId: string };
  // runCliProcess sets SUBAGENTS_NO_BACKGROUND: the terminal leaves the upkeep to nobody but the host.
  const discarded = await inRepo(['worktrees', 'discard', agentId]);
  assert.equal(discarded.code, 0, discarded.stderr);
  const poolDir = path.join(root, 'data', 'subagents', 'worktrees', 'state', 'pool');
  const entries = () => readdirSync(poolDir).filter((n) => n.endsWith('.json')).map((n) => JSON.parse(readFileSync(path.join(poolDir, n), 'utf8')) as { ready?: boolean; path: string });
  assert.deepEqual(entries().map((e) => e.ready), [false], 'the discard hands the worktree back to be cleaned');
  const [cleaned] = await until('the host to clean the handed-back worktree', () => entries().every((e) => e.ready !== false) && entries(), 120_000);
  assert.equal(execFileSync('git', ['status', '--porcelain', '--ignored'], { cwd: cleaned!.path, encoding: 'utf8' }), '', 'the pooled worktree holds nothing of the editor’s');
});

/**
 * A bundle with the protocol's next major version: the constant the host's paths take as their default (named
 * `PROTOCOL_MAJOR` in a development build, something short in a minified one) declared one higher.
 */
function nextMajor(bundle: string, file: string): string {
  const constant = /function [\w$]+\([\w$]+, ?[\w$]+ ?= ?([\w$]+)\) ?\{[^{}]*?`host-p\$\{/.exec(bundle)?.[1];
  assert.ok(constant, `${file}: no host paths named for the protocol's major version`);
  const declaration = new RegExp(`(?<![\\w$.])${constant.replace(/\$/g, '\\$')} ?= ?${PROTOCOL_MAJOR}(?![\\w.])`, 'g');
  assert.equal(bundle.match(declaration)?.length, 1, `${file}: ${constant} is not declared once as ${PROTOCOL_MAJOR}`);
  return bundle.replace(declaration, `${constant} = ${PROTOCOL_MAJOR + 1}`);
}

test('an update that changes the protocol starts a host of its own for new runs; the old host finishes its run, untouched', async () => {
  const window = await windowClient();
  const old = window.host!.pid;
  const run = await window.start({ scope: scope(), agent: 'listener', prompt: 'listen' });
  await until('the listener at work', () => window.store.agent(run.agentId)?.status === 'running');
  const live = new Set<string>();
  window.onEvent((event) => void live.add(event.runId));
  // The next version: this build with the protocol's next major version (its CLI and its host).
  const next = path.join(root, 'next');
  await cp(path.dirname(SCRIPT), next, { recursive: true, filter: (file) => !file.endsWith('.map') });
  // The host's paths are in one bundle, which the CLI, the host and the extension share (scripts/build.mjs).
  const holders = [];
  for (const file of await readdir(next)) {
    const text = /\.c?js$/.test(file) ? await readFile(path.join(next, file), 'utf8') : '';
    if (text.includes('`host-p${')) holders.push(file);
  }
  assert.equal(holders.length, 1, `the host's paths are in one bundle, not in: ${holders.join(', ')}`);
  await writeFile(path.join(next, holders[0]!), nextMajor(await readFile(path.join(next, holders[0]!), 'utf8'), holders[0]!));
  const nextCli = path.join(next, 'cli.js');
  try {
    const started = await cli(['host', 'start', '--json'], nextCli);
    assert.equal(started.code, 0, started.stderr);
    const newer = (JSON.parse(started.stdout) as { host: { pid: number }; protocol: { major: number } });
    assert.equal(newer.protocol.major, PROTOCOL_MAJOR + 1);
    assert.notEqual(newer.host.pid, old);
    // A new run goes to the new host; the old one never sees it.
    const fresh = await cli(['run', 'plain', 'after the update', '--json'], nextCli);
    assert.equal(fresh.code, 0, fresh.stderr);
    const result = JSON.parse(fresh.stdout.trim().split('\n').at(-1)!) as { status: string; runId: string };
    assert.equal(result.status, 'completed');
    assert.equal(live.has(result.runId), false);
    // The old host's run went on all along, and finishes there.
    assert.ok(alive(old));
    assert.equal(window.host!.pid, old);
    assert.equal(window.store.agent(run.agentId)?.status, 'running');
    await window.send({ agentId: run.agentId, text: 'still here', via: 'test' });
    const ended = await run.result();
    assert.deepEqual([ended.status, ended.output], ['completed', 'heard: still here']);
    // `host stop` stops the host it speaks to, and only that one.
    const stopped = await cli(['host', 'stop'], nextCli);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, new RegExp(`^Stopped the agent host \\(pid ${newer.host.pid}\\)\\.`));
    await until('the new host to exit', () => !alive(newer.host.pid));
    assert.ok(alive(old));
  } finally {
    await cli(['host', 'stop', '--force'], nextCli);
  }
});

test('a host killed while an isolated agent works: the next host settles its worktree as a killed CLI’s (unchanged: removed with its branch)', async () => {
  const sb = makeSandbox();
  try {
    await mkdir(path.join(sb.repo, '.claude', 'agents'), { recursive: true });
    await writeFile(path.join(sb.repo, '.claude', 'agents', 'sleeper.md'), '---\nname: sleeper\ndescription: sleeper\n---\nYou are sleeper. [agent:sleeper]\n');
    const window = await windowClient();
    const run = await window.start({ scope: { ...scope(), cwd: sb.repo }, agent: 'sleeper', prompt: 'sleep in a worktree', isolation: 'worktree' });
    const asked = model.requests.length;
    await until('the isolated sleeper to ask the model', () => model.requests.slice(asked).some((r) => isAgent(r.system, 'sleeper')));
    const worktree = window.store.agent(run.agentId)?.worktreePath;
    assert.ok(worktree && existsSync(worktree), 'the agent has no worktree');
    const records = async () => {
      const listed = await cli(['worktrees', 'list', '--json']);
      assert.equal(listed.code, 0, listed.stderr);
      return (JSON.parse(listed.stdout) as { worktrees: Array<{ agentId: string; state: string; branch: string }> }).worktrees.filter((w) => w.agentId === run.agentId);
    };
    const [record] = await records();
    assert.equal(record?.state, 'active');
    assert.ok(branchExists(sb, record.branch));
    const first = window.host!.pid;
    process.kill(first, 'SIGKILL');
    await until('a new host', () => window.connected && window.host!.pid !== first);
    await until('the run marked interrupted', () => window.store.agent(run.agentId)?.status === 'interrupted');
    // Settled by the new host as it started (before any command of the terminal's could).
    await until('the new host to settle the worktree', () => !branchExists(sb, record.branch));
    assert.deepEqual(await records(), [], 'the dead host’s worktree is still recorded');
  } finally {
    sb.cleanup();
  }
});
