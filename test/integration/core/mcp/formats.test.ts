import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runEventSchema, type RunEvent } from '../../../../src/protocol/runEvents';
import { runCliProcess } from '../../../support/cliProcess';
import { recordedCalls, startHttpServer, stdioServer, yaml } from '../../../support/mcp/servers';
import { startScriptedServer, type ScriptedServer } from '../../../support/scriptedServer';

// Each format's own MCP field, read as its home tool reads it, with real MCP
// servers (stdio, Streamable HTTP and SSE) written with the official SDK,
// through the real CLI.

let model: ScriptedServer;
let project: string;
let home: string;
let calls: string;
const stopHttp: Array<() => void> = [];

function env(): NodeJS.ProcessEnv {
  return { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: model.url, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.data'), XDG_CACHE_HOME: path.join(home, '.cache') };
}

function server(name: string, ...flags: string[]) {
  return stdioServer('--name', name, '--calls', calls, ...flags);
}

async function write(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(project, file)), { recursive: true });
  await writeFile(path.join(project, file), text);
}

/** The model: on its first turn an agent calls `tool` with a text naming itself; then it answers with the result. */
function callOnce(tool: string) {
  model.setScript((req) => {
    if (req.turn === 0) return req.toolNames.includes(tool) ? { toolUses: [{ name: tool, input: { text: 'hello' } }] } : { text: `no ${tool} among ${req.toolNames.join(', ')}` };
    return { text: `result: ${[...req.toolResults.values()][0]?.content}` };
  });
}

async function run(agent: string): Promise<{ code: number | null; events: RunEvent[]; result: Record<string, unknown>; stderr: string }> {
  const r = await runCliProcess(['run', agent, 'go', '--json', '--trust-project', '--cwd', project], { env: env(), timeoutMs: 60_000 });
  const lines = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const result = lines.at(-1) ?? {};
  return { code: r.code, events: lines.slice(0, -1).map((l) => runEventSchema.parse(l)), result, stderr: r.stderr };
}

before(async () => {
  model = await startScriptedServer();
  project = await mkdtemp(path.join(os.tmpdir(), 'subagents-mcp-formats-'));
  home = await mkdtemp(path.join(os.tmpdir(), 'subagents-mcp-home-'));
  calls = path.join(project, 'calls.ndjson');
});

after(async () => {
  for (const stop of stopHttp) stop();
  await model.close();
  await rm(project, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

test('Claude Code: an inline server in mcpServers, its tool named in tools as mcp__server__tool', async () => {
  await write('.claude/agents/claude-agent.md', `---\nname: claude-agent\ndescription: d\ntools: Read, mcp__notes__echo\nmcpServers:\n  - notes: ${yaml({ type: 'stdio', ...server('claude-notes') })}\n---\n[agent:claude-agent]\n`);
  callOnce('mcp__notes__echo');
  const { code, events, result, stderr } = await run('claude-agent');
  assert.equal(code, 0, stderr);
  assert.equal(result.output, 'result: claude-notes echoes: hello');
  const started = events.find((e) => e.type === 'tool_started');
  assert.deepEqual(started?.type === 'tool_started' && [started.name, started.server], ['mcp__notes__echo', 'notes']);
  // Only the tool the list names: `note`, `env` … of the same server are not offered.
  assert.deepEqual(model.requests.at(-2)?.toolNames, ['Read', 'mcp__notes__echo']);
});

test('GitHub Copilot: mcp-servers with type local and a tools filter, named as server/* in tools', async () => {
  await write(
    '.github/agents/copilot-agent.agent.md',
    `---\nname: copilot-agent\ndescription: d\ntools: ['read', 'notes/*']\nmcp-servers:\n  notes: ${yaml({ type: 'local', ...server('copilot-notes'), tools: ['echo', 'env'] })}\n---\n[agent:copilot-agent]\n`,
  );
  callOnce('mcp__notes__echo');
  const { code, result, stderr } = await run('copilot-agent');
  assert.equal(code, 0, stderr);
  assert.equal(result.output, 'result: copilot-notes echoes: hello');
  // `notes/*` within the server's own list: echo and env, not note, crash, hang …
  assert.deepEqual(model.requests.at(-2)?.toolNames.filter((n) => n.startsWith('mcp__')), ['mcp__notes__echo', 'mcp__notes__env']);
});

test('Gemini CLI: mcp_servers, its tools named mcp_server_tool, exclude_tools honoured', async () => {
  await write('.gemini/agents/gemini-agent.md', `---\nname: gemini-agent\ndescription: d\ntools: [read_file, mcp_notes_*]\nmcp_servers:\n  notes: ${yaml({ ...server('gemini-notes'), exclude_tools: ['crash', 'hang'] })}\n---\n[agent:gemini-agent]\n`);
  callOnce('mcp__notes__echo');
  const { code, result, stderr } = await run('gemini-agent');
  assert.equal(code, 0, stderr);
  assert.equal(result.output, 'result: gemini-notes echoes: hello');
  const offered = model.requests.at(-2)?.toolNames ?? [];
  assert.ok(offered.includes('mcp__notes__note') && !offered.includes('mcp__notes__crash') && !offered.includes('mcp__notes__hang'), offered.join(', '));
});

test('Codex: [mcp_servers.name] in the agent TOML, enabled_tools honoured', async () => {
  const { command, args } = server('codex-notes');
  await write(
    '.codex/agents/codex-agent.toml',
    `name = "codex-agent"\ndescription = "d"\ndeveloper_instructions = "[agent:codex-agent]"\n\n[mcp_servers.notes]\ncommand = ${JSON.stringify(command)}\nargs = ${JSON.stringify(args)}\nenabled_tools = ["echo"]\n`,
  );
  callOnce('mcp__notes__echo');
  const { code, result, stderr } = await run('codex-agent');
  assert.equal(code, 0, stderr);
  assert.equal(result.output, 'result: codex-notes echoes: hello');
  assert.deepEqual(model.requests.at(-2)?.toolNames.filter((n) => n.startsWith('mcp__')), ['mcp__notes__echo']);
});

test("oh-my-pi and Claude Code by name: a server of the project's .mcp.json, named in tools or in mcpServers", async () => {
  await write('.mcp.json', JSON.stringify({ mcpServers: { shared: { type: 'stdio', ...server('shared') } } }));
  await write('.omp/agents/omp-agent.md', `---\nname: omp-agent\ndescription: d\ntools: read, mcp__shared__echo\n---\n[agent:omp-agent]\n`);
  callOnce('mcp__shared__echo');
  const omp = await run('omp-agent');
  assert.equal(omp.code, 0, omp.stderr);
  assert.equal(omp.result.output, 'result: shared echoes: hello');

  await write('.claude/agents/by-name.md', `---\nname: by-name\ndescription: d\ntools: Read, mcp__shared\nmcpServers: [shared]\n---\n[agent:by-name]\n`);
  const byName = await run('by-name');
  assert.equal(byName.code, 0, byName.stderr);
  assert.equal(byName.result.output, 'result: shared echoes: hello');
});

test('Streamable HTTP and SSE servers, with headers and the variables of the format', async () => {
  const http = await startHttpServer(project, 'http', '--name', 'remote-http', '--token', 'sekret-token-123');
  const sse = await startHttpServer(project, 'sse', '--name', 'remote-sse');
  stopHttp.push(http.stop, sse.stop);
  await write(
    '.claude/agents/remote.md',
    `---\nname: remote\ndescription: d\ntools: mcp__web__echo, mcp__old__echo\nmcpServers:\n  - web: ${yaml({ type: 'http', url: http.url, headers: { Authorization: 'Bearer ${WEB_TOKEN}' } })}\n  - old: ${yaml({ type: 'sse', url: sse.url })}\n---\n[agent:remote]\n`,
  );
  model.setScript((req) => {
    if (req.turn === 0) return { toolUses: [{ name: 'mcp__web__echo', input: { text: 'a' } }, { name: 'mcp__old__echo', input: { text: 'b' } }] };
    return { text: [...req.toolResults.values()].map((r) => r.content).join(' | ') };
  });
  const r = await runCliProcess(['run', 'remote', 'go', '--json', '--trust-project', '--cwd', project], { env: { ...env(), WEB_TOKEN: 'sekret-token-123' }, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { output: string };
  // A server that did not start says why in a notice: shown with the failure.
  const notices = r.stdout.split('\n').filter((line) => line.includes('"notice"')).join('\n');
  assert.equal(result.output, 'remote-http echoes: a | remote-sse echoes: b', notices);
  // The token is a secret: it never shows, not even in the events of the run.
  assert.doesNotMatch(r.stdout + r.stderr, /sekret-token-123/);
});

test('a remote server that asks for sign-in: a start failure that says so, and the agent runs without it', async () => {
  const http = await startHttpServer(project, 'http', '--name', 'needs-sign-in', '--token', 'only-for-members');
  stopHttp.push(http.stop);
  await write('.claude/agents/signin.md', `---\nname: signin\ndescription: d\ntools: Read, mcp__locked__echo\nmcpServers:\n  - locked: ${yaml({ type: 'http', url: http.url })}\n---\n[agent:signin]\n`);
  callOnce('mcp__locked__echo');
  const r = await run('signin');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.result.output, 'no mcp__locked__echo among Read');
  const notice = r.events.find((e) => e.type === 'notice');
  assert.match(notice?.type === 'notice' ? notice.message : '', /MCP server "locked" .* could not be started for agent "signin": .*the server asks for sign-in, which subagents does not do/);
});

test('every call reached the server the row names', () => {
  const servers = new Set(recordedCalls(calls).map((c) => c.server));
  for (const name of ['claude-notes', 'copilot-notes', 'gemini-notes', 'codex-notes', 'shared']) assert.ok(servers.has(name), name);
});
