import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runEventSchema, type RunEvent } from '../../../../src/protocol/runEvents';
import { runCliProcess } from '../../../support/cliProcess';
import { recordedCalls, stdioServer, yaml } from '../../../support/mcp/servers';
import { isAgent } from '../../../support/agents';
import { startScriptedServer, type ScriptedServer } from '../../../support/scriptedServer';

// Who gets which MCP tools, and what a server may do: scoping between the
// agents of one tree (and sharing where they ask for the same server), the
// permission gate, project trust, the environment a server gets, secrets,
// result caps, tool lists that change, and what a Claude Code file without
// a tools list inherits.

let model: ScriptedServer;
let root: string;
let home: string;

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ANTHROPIC_API_KEY: 'test-key-0123456789', ANTHROPIC_BASE_URL: model.url, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.data'), XDG_CACHE_HOME: path.join(home, '.cache'), ...extra };
}

let count = 0;
async function project(files: Record<string, string>): Promise<string> {
  const dir = path.join(root, `p${++count}`);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

function agentFile(name: string, fields: string): string {
  return `---\nname: ${name}\ndescription: ${name}\n${fields}\n---\n[agent:${name}]\n`;
}

async function run(dir: string, agent: string, flags: string[] = ['--trust-project'], extraEnv: NodeJS.ProcessEnv = {}) {
  const r = await runCliProcess(['run', agent, 'go', '--json', '--cwd', dir, ...flags], { env: env(extraEnv), timeoutMs: 60_000 });
  const lines = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const events: RunEvent[] = lines.filter((l) => l.type !== 'result').map((l) => runEventSchema.parse(l));
  return { ...r, events, result: lines.find((l) => l.type === 'result') ?? {} };
}

function firstResult(turn = 1): string {
  const req = model.requests.filter((r) => r.turn === turn).at(-1);
  return req?.toolResults.values().next().value?.content ?? '';
}

before(async () => {
  model = await startScriptedServer();
  root = await mkdtemp(path.join(os.tmpdir(), 'subagents-mcp-scope-'));
  home = await mkdtemp(path.join(os.tmpdir(), 'subagents-mcp-home-'));
});

after(async () => {
  await model.close();
  await rm(root, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

test('each agent sees only its own servers; agents of one tree asking for the same server share its process', async () => {
  const calls = path.join(root, 'scope-calls.ndjson');
  const a = yaml(stdioServer('--name', 'a', '--calls', calls));
  const dir = await project({
    '.claude/agents/lead.md': agentFile('lead', `tools: Task, mcp__a\nmcpServers:\n  - a: ${a}`),
    '.claude/agents/helper.md': agentFile('helper', `tools: mcp__b\nmcpServers:\n  - b: ${yaml(stdioServer('--name', 'b', '--calls', calls))}`),
    '.claude/agents/twin.md': agentFile('twin', `tools: mcp__a__echo\nmcpServers:\n  - a: ${a}`),
  });
  const offered = new Map<string, string[]>();
  model.setScript((req) => {
    for (const name of ['lead', 'helper', 'twin']) if (isAgent(req.system, name) && req.turn === 0) offered.set(name, req.toolNames);
    if (isAgent(req.system, 'lead')) {
      if (req.turn === 0) return { toolUses: [{ name: 'mcp__a__echo', input: { text: 'lead' } }, { name: 'Task', input: { subagent_type: 'helper', description: 'h', prompt: 'go' } }, { name: 'Task', input: { subagent_type: 'twin', description: 't', prompt: 'go' } }] };
      return { text: 'lead done' };
    }
    const own = isAgent(req.system, 'helper') ? 'mcp__b__echo' : 'mcp__a__echo';
    return req.turn === 0 ? { toolUses: [{ name: own, input: { text: 'child' } }] } : { text: 'child done' };
  });
  const r = await run(dir, 'lead');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(offered.get('lead')!.filter((n) => n.startsWith('mcp__')), ['mcp__a__big', 'mcp__a__crash', 'mcp__a__echo', 'mcp__a__env', 'mcp__a__fails', 'mcp__a__grow', 'mcp__a__hang', 'mcp__a__note']);
  assert.deepEqual(offered.get('helper')!.filter((n) => n.startsWith('mcp__')).every((n) => n.startsWith('mcp__b__')), true);
  assert.deepEqual(offered.get('twin'), ['mcp__a__echo']);
  const recorded = recordedCalls(calls);
  const ofA = recorded.filter((c) => c.server === 'a');
  assert.equal(ofA.length, 2);
  assert.equal(new Set(ofA.map((c) => c.pid)).size, 1, 'lead and twin called one process of server a');
  assert.equal(recorded.filter((c) => c.server === 'b').length, 1);
  // Tool rows say which server each call went to.
  const servers = r.events.filter((e) => e.type === 'tool_started' && e.name.startsWith('mcp__')).map((e) => (e.type === 'tool_started' ? e.server : ''));
  assert.deepEqual(servers.sort(), ['a', 'a', 'b']);
});

test("an untrusted project's servers do not start, and a notice says how to trust it; a user's own agent's servers do", async () => {
  const dir = await project({ '.claude/agents/local.md': agentFile('local', `tools: Read, mcp__s__echo\nmcpServers:\n  - s: ${yaml(stdioServer('--name', 's'))}`) });
  await mkdir(path.join(home, '.claude/agents'), { recursive: true });
  await writeFile(path.join(home, '.claude/agents/mine.md'), agentFile('mine', `tools: mcp__u__echo\nmcpServers:\n  - u: ${yaml(stdioServer('--name', 'u'))}`));
  model.setScript((req) => ({ text: req.toolNames.join(',') }));
  const untrusted = await run(dir, 'local', []);
  assert.equal(untrusted.code, 0, untrusted.stderr);
  assert.equal(untrusted.result.output, 'Read');
  const notice = untrusted.events.find((e) => e.type === 'notice');
  assert.match(notice?.type === 'notice' ? notice.message : '', /MCP server "s" \(.*local\.md\) was not started for agent "local": it is declared in a project file and this folder is not trusted \(pass --trust-project, or add the folder to "trustedProjects"/);
  // The trust warning of the run names it too.
  assert.match(untrusted.stderr, /MCP server "s"/);
  const mine = await run(dir, 'mine', []);
  assert.equal(mine.result.output, 'mcp__u__echo');
});

test('no ANTHROPIC_* variable reaches a server, whatever its settings ask for; settings holding secrets are redacted everywhere', async () => {
  const dir = await project({
    '.claude/agents/probe.md': agentFile('probe', `tools: mcp__s__env\nmcpServers:\n  - s: ${yaml({ ...stdioServer('--name', 's'), env: { SERVICE_TOKEN: 'literal-secret-value-9', PLAIN: 'visible' } })}`),
    '.claude/agents/greedy.md': agentFile('greedy', `tools: Read, mcp__g__env\nmcpServers:\n  - g: ${yaml({ ...stdioServer('--name', 'g'), env: { KEY: '${ANTHROPIC_API_KEY}' } })}`),
  });
  model.setScript((req) => {
    if (req.turn === 0) return { toolUses: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'SERVICE_TOKEN', 'PLAIN'].map((variable, i) => ({ id: `toolu_${i}`, name: 'mcp__s__env', input: { variable } })) };
    return { text: [...req.toolResults.values()].map((r) => r.content).join('; ') };
  });
  const probe = await run(dir, 'probe');
  assert.equal(probe.result.output, 'ANTHROPIC_API_KEY is unset; ANTHROPIC_BASE_URL is unset; SERVICE_TOKEN=[redacted]; PLAIN=visible');
  assert.doesNotMatch(probe.stdout + probe.stderr, /literal-secret-value-9/);

  model.setScript((req) => ({ text: req.toolNames.join(',') }));
  const greedy = await run(dir, 'greedy');
  assert.equal(greedy.result.output, 'Read');
  const notice = greedy.events.find((e) => e.type === 'notice');
  assert.match(notice?.type === 'notice' ? notice.message : '', /"g" .* was not started for agent "greedy": its settings ask for \$\{ANTHROPIC_API_KEY\}; no ANTHROPIC_\* variable or the API key is ever given to an MCP server/);
});

test('the permission gate: a tool the server marks read-only runs; any other is a write, denied with nobody to ask, allowed by bypassPermissions, absent in plan mode', async () => {
  const pidfile = path.join(root, `plan-server-${count + 1}.pid`);
  const dir = await project({ '.claude/agents/writer.md': agentFile('writer', `tools: mcp__s__note, mcp__s__echo\nmcpServers:\n  - s: ${yaml(stdioServer('--name', 's', '--pidfile', pidfile))}`) });
  const script = () =>
    model.setScript((req) => {
      if (req.turn === 0) {
        const uses = [{ id: 'toolu_echo', name: 'mcp__s__echo', input: { text: 'r' } }];
        if (req.toolNames.includes('mcp__s__note')) uses.push({ id: 'toolu_note', name: 'mcp__s__note', input: { text: 'w' } });
        return { toolUses: uses };
      }
      return { text: [...req.toolResults.values()].map((r) => `${r.isError ? 'ERROR ' : ''}${r.content}`).join(' | ') };
    });
  script();
  const asked = await run(dir, 'writer');
  assert.match(String(asked.result.output), /^s echoes: r \| ERROR mcp__s__note needs approval \(an MCP tool that may change things \(its server does not mark it read-only\)\), and nobody can approve it here\. The user can allow it with the permission mode bypassPermissions/);
  const accepting = await run(dir, 'writer', ['--trust-project', '--permission-mode', 'acceptEdits']);
  assert.match(String(accepting.result.output), /ERROR mcp__s__note needs approval/);
  const bypass = await run(dir, 'writer', ['--trust-project', '--permission-mode', 'bypassPermissions']);
  assert.equal(bypass.result.output, 's echoes: r | s noted: w');
  // Plan mode starts no process: the server is not started, and the agent is told why.
  await rm(pidfile, { force: true });
  model.setScript((req) => ({ text: `tools: ${req.toolNames.filter((t) => t.startsWith('mcp__')).join(',') || 'none'}` }));
  const plan = await run(dir, 'writer', ['--trust-project', '--permission-mode', 'plan']);
  assert.equal(plan.code, 0, plan.stderr);
  assert.equal(plan.result.output, 'tools: none');
  assert.equal(existsSync(pidfile), false, 'no server process was started');
  const notice = plan.events.find((e) => e.type === 'notice');
  assert.equal(
    notice?.type === 'notice' && notice.message,
    'Agent "writer" runs in plan mode, where nothing starts a process: its MCP server "s" was not started (subagents.mcp.startInPlanMode starts them there, offering only their read-only tools).',
  );
  // Allowed by the user for plan mode: started, with its read-only tools only.
  const userSettings = path.join(home, '.config', 'subagents', 'settings.json');
  await mkdir(path.dirname(userSettings), { recursive: true });
  await writeFile(userSettings, JSON.stringify({ 'mcp.startInPlanMode': true }));
  try {
    script();
    const allowed = await run(dir, 'writer', ['--trust-project', '--permission-mode', 'plan']);
    assert.equal(allowed.result.output, 's echoes: r');
    assert.equal(existsSync(pidfile), true);
  } finally {
    await rm(userSettings);
  }
});

test('a huge result is capped like any tool output; a tool that reports an error is a tool error', async () => {
  const dir = await project({ '.claude/agents/big.md': agentFile('big', `tools: mcp__s__big, mcp__s__fails\nmcpServers:\n  - s: ${yaml(stdioServer('--name', 's'))}`) });
  model.setScript((req) => (req.turn === 0 ? { toolUses: [{ name: 'mcp__s__big', input: { chars: 250_000 } }, { name: 'mcp__s__fails', input: {} }] } : { text: 'ok' }));
  const r = await run(dir, 'big');
  assert.equal(r.code, 0, r.stderr);
  const [big, fails] = [...model.requests.at(-1)!.toolResults.values()];
  assert.ok(big!.content.length < 100_100, `${big!.content.length} characters`);
  assert.ok(big!.content.endsWith('\n[result truncated: 150000 more characters]'), big!.content.slice(-80));
  assert.equal(fails!.isError, true);
  assert.equal(fails!.content, 'fails (MCP server "s") reported an error: the widget is broken');
});

test('tools/list_changed is followed: a tool the server adds is offered from the next turn', async () => {
  const dir = await project({ '.claude/agents/grower.md': agentFile('grower', `mcpServers:\n  - s: ${yaml(stdioServer('--name', 's'))}`) });
  model.setScript((req) => {
    if (req.turn === 0) return { toolUses: [{ name: 'mcp__s__grow', input: {} }] };
    if (req.turn === 1) return req.toolNames.includes('mcp__s__fresh') ? { toolUses: [{ name: 'mcp__s__fresh', input: {} }] } : { text: 'no fresh tool' };
    return { text: firstResult(2) };
  });
  const r = await run(dir, 'grower', ['--trust-project', '--permission-mode', 'bypassPermissions']);
  assert.equal(r.result.output, 's fresh tool');
});

test('a Claude Code file without a tools list also gets the Claude Code session’s servers (.mcp.json, ~/.claude.json), unless the setting is off', async () => {
  const dir = await project({
    '.mcp.json': JSON.stringify({ mcpServers: { project: stdioServer('--name', 'project') } }),
    '.claude/agents/open.md': agentFile('open', `mcpServers:\n  - own: ${yaml(stdioServer('--name', 'own'))}`),
    '.github/agents/copilot-open.agent.md': agentFile('copilot-open', `mcp-servers:\n  own: ${yaml(stdioServer('--name', 'own'))}`),
  });
  await writeFile(path.join(home, '.claude.json'), JSON.stringify({ mcpServers: { personal: stdioServer('--name', 'personal') } }));
  model.setScript((req) => ({ text: [...new Set(req.toolNames.filter((n) => n.startsWith('mcp__')).map((n) => n.split('__')[1]))].sort().join(',') }));
  assert.equal((await run(dir, 'open')).result.output, 'own,personal,project');
  // Other formats get what they declare.
  assert.equal((await run(dir, 'copilot-open')).result.output, 'own');
  await writeFile(path.join(dir, '.subagents/settings.json'), JSON.stringify({ 'mcp.inheritClaudeCodeServers': false })).catch(async () => {
    await mkdir(path.join(dir, '.subagents'));
    await writeFile(path.join(dir, '.subagents/settings.json'), JSON.stringify({ 'mcp.inheritClaudeCodeServers': false }));
  });
  assert.equal((await run(dir, 'open')).result.output, 'own');
  await rm(path.join(home, '.claude.json'));
});
