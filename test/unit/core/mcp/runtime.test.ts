import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { NamedServer } from '../../../../src/core/mcp/configFiles';
import { LaunchProblem, resolveLaunch } from '../../../../src/core/mcp/launch';
import { MAX_TOOL_NAME, modelToolName, uniqueToolNames } from '../../../../src/core/mcp/naming';
import { planWithConfiguration, type PlannedServer } from '../../../../src/core/mcp/plan';
import { emptySpec, type McpServerSpec } from '../../../../src/core/agents/mcpServers/spec';
import { expandVariables } from '../../../../src/core/mcp/variables';
import { agent } from '../../../support/agents';

// The MCP runtime's pure parts: the names the model sees, each format's
// variables, what a server is started with, and which servers an agent gets.

const API_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

test('names: mcp__server__tool, API-valid, at most 64 characters, stable, unique', () => {
  assert.equal(modelToolName('mcp', 'github', 'create_issue'), 'mcp__github__create_issue');
  assert.equal(modelToolName('mcp', 'my server.v2', 'do/it'), 'mcp__my_server_v2__do_it');
  assert.equal(modelToolName('vscode', 'ms-python.python', 'getEnv'), 'vscode__ms-python_python__getEnv');
  const long = modelToolName('mcp', 'a-very-long-server-name-for-testing', 'and_an_even_longer_tool_name_that_goes_on');
  assert.equal(long.length, MAX_TOOL_NAME);
  assert.match(long, API_NAME);
  assert.equal(long, modelToolName('mcp', 'a-very-long-server-name-for-testing', 'and_an_even_longer_tool_name_that_goes_on'), 'the same every time');
  // Two servers whose names clean to the same: both get the hash, whichever comes first.
  const tools = [{ kind: 'mcp' as const, group: 'a.b', tool: 'x' }, { kind: 'mcp' as const, group: 'a_b', tool: 'x' }];
  const names = uniqueToolNames(tools, new Set());
  assert.notEqual(names[0], names[1]);
  assert.deepEqual(uniqueToolNames([...tools].reverse(), new Set()).reverse(), names, 'independent of the order');
  for (const name of names) assert.match(name, API_NAME);
  // A runtime tool's name is never taken.
  assert.notEqual(uniqueToolNames([{ kind: 'mcp', group: 'x', tool: 'y' }], new Set(['mcp__x__y']))[0], 'mcp__x__y');
});

test('variables: each format its home tool\'s syntax; ANTHROPIC_* is never read', () => {
  const context = { env: { TOKEN: 'abc', ANTHROPIC_API_KEY: 'sk-ant-secret' }, home: '/home/u', folder: '/work/p' };
  assert.equal(expandVariables('${TOKEN}-${MISSING:-dflt}-$TOKEN', 'claude', context).value, 'abc-dflt-$TOKEN');
  assert.equal(expandVariables('$TOKEN ${{ secrets.TOKEN }} ${env:TOKEN}', 'copilot', context).value, 'abc abc abc');
  assert.equal(expandVariables('${{ secrets.TOKEN }}', 'copilot', context).secret, true);
  assert.equal(expandVariables('$TOKEN', 'gemini', context).value, 'abc');
  assert.equal(expandVariables('${TOKEN}', 'codex', context).value, '${TOKEN}', 'Codex expands nothing');
  assert.equal(expandVariables('${workspaceFolder}/x ${userHome}', 'vscode', context).value, '/work/p/x /home/u');
  assert.equal(expandVariables('${CLAUDE_PROJECT_DIR}', 'claude', context).value, '/work/p');
  const refused = expandVariables('${ANTHROPIC_API_KEY}', 'claude', context);
  assert.deepEqual([refused.value, refused.refused], ['', ['${ANTHROPIC_API_KEY}']]);
  assert.deepEqual(expandVariables('${NOPE}', 'claude', context).missing, ['${NOPE}']);
  assert.deepEqual(expandVariables('${input:pat}', 'vscode', context).missing, ['${input:pat}']);
});

function planned(spec: Partial<McpServerSpec>, variables: McpServerSpec['variables'] = 'claude', folder = '/work/p'): PlannedServer {
  return { name: 's', spec: { ...emptySpec(variables), command: 'srv', ...spec }, source: 'agent', file: '/work/p/a.md', folder, projectFile: true };
}

test('launch: secrets collected for redaction (env, envFile, headers), ANTHROPIC_* and the key refused', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-launch-'));
  try {
    writeFileSync(path.join(dir, '.env'), 'API_TOKEN="from-env-file-123"\nMODE=fast # comment\n');
    const env = { GH: 'ghp_from_environment_1' };
    const launch = resolveLaunch(planned({ env: { GITHUB_TOKEN: '${env:GH}', MODE: 'x' }, envFile: '.env' }, 'vscode', dir), { env, home: '/h' }, []);
    assert.deepEqual(launch.env, { API_TOKEN: 'from-env-file-123', MODE: 'x', GITHUB_TOKEN: 'ghp_from_environment_1' });
    assert.ok(launch.secrets.includes('ghp_from_environment_1'));
    assert.ok(!launch.secrets.includes('x'));
    assert.ok(launch.secrets.includes('from-env-file-123'), 'an envFile credential is redacted too');
    const remote = resolveLaunch(planned({ transport: 'http', command: null, url: 'https://x/mcp', headers: { Authorization: 'Bearer ${GH}' } }), { env, home: '/h' }, []);
    assert.equal(remote.headers.Authorization, 'Bearer ghp_from_environment_1');
    assert.ok(remote.secrets.includes('ghp_from_environment_1'));
    assert.throws(() => resolveLaunch(planned({ env: { ANTHROPIC_BASE_URL: 'http://x' } }), { env, home: '/h' }, []), LaunchProblem);
    assert.throws(() => resolveLaunch(planned({ args: ['--key', 'sk-ant-the-real-key'] }), { env, home: '/h' }, ['sk-ant-the-real-key']), /hold the API key/);
    // Codex passes variables by name; never an ANTHROPIC_* one.
    assert.deepEqual(resolveLaunch(planned({ forwardEnv: ['GH'] }, 'codex'), { env: { GH: 'v' }, home: '/h' }, []).env, { GH: 'v' });
    assert.throws(() => resolveLaunch(planned({ forwardEnv: ['ANTHROPIC_API_KEY'] }, 'codex'), { env: { ANTHROPIC_API_KEY: 'k' }, home: '/h' }, []), /no ANTHROPIC_\* variable/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function configured(name: string, source: NamedServer['source']): NamedServer {
  return { name, spec: { ...emptySpec('claude'), command: name }, source, file: `/cfg/${source}`, folder: '/work/p', projectFile: source.endsWith('project') };
}

test('plan: a Claude Code file without tools gets the session\'s servers; with a tools list only what it names', () => {
  const config = [configured('github', 'claude-project'), configured('notes', 'claude-user'), configured('search', 'gemini-project')];
  const base = { cwd: '/work/p', configured: config, editorSets: null, inheritClaudeSession: true };
  const toolless = planWithConfiguration({ ...base, definition: agent('a', { tools: null }) });
  assert.deepEqual(toolless.servers.map((s) => s.name), ['github', 'notes'], 'Claude Code session servers, not Gemini\'s');
  assert.deepEqual(planWithConfiguration({ ...base, inheritClaudeSession: false, definition: agent('a', { tools: null }) }).servers, []);
  const listed = planWithConfiguration({ ...base, definition: agent('a', { tools: ['Read', 'mcp__notes__x'] }) });
  assert.deepEqual(listed.servers.map((s) => s.name), ['notes']);
  const denied = planWithConfiguration({ ...base, definition: agent('a', { tools: null, disallowedTools: ['mcp__github'] }) });
  assert.deepEqual(denied.servers.map((s) => s.name), ['notes'], 'a whole server denied is never started');
  const unknown = planWithConfiguration({ ...base, definition: agent('a', { tools: ['mcp__ghost__x'] }) });
  assert.match(unknown.problems[0]!, /"mcp__ghost__x" in its tools names the MCP server "ghost", which is neither declared in its mcpServers nor configured .*outside VS Code/);
  const unused = planWithConfiguration({ ...base, definition: agent('a', { tools: ['Read'], mcp: [{ name: 'own', spec: { ...emptySpec('claude'), command: 'own' } }] }) });
  assert.deepEqual(unused.servers, []);
  assert.match(unused.problems[0]!, /MCP server "own" is declared but no tool of it is in "tools"/);
});

test('plan: a Copilot file looks names up in VS Code\'s tool sets first, then .vscode/mcp.json', () => {
  const config = [configured('github', 'claude-project'), configured('github', 'vscode-workspace')];
  const definition = agent('c', { format: 'copilot', tools: ['github/*'] });
  const inVsCode = planWithConfiguration({ definition, cwd: '/work/p', configured: config, editorSets: new Set(['github']), inheritClaudeSession: true });
  assert.deepEqual([inVsCode.servers.length, inVsCode.editorSets], [0, ['github']]);
  const inCli = planWithConfiguration({ definition, cwd: '/work/p', configured: config, editorSets: null, inheritClaudeSession: true });
  assert.deepEqual(inCli.servers.map((s) => s.source), ['vscode-workspace']);
  // A VS Code tool the Copilot table knows has its own warning in the CLI, not a second one here.
  const editorOnly = planWithConfiguration({ definition: agent('c', { format: 'copilot', tools: ['read/problems'] }), cwd: '/work/p', configured: [], editorSets: null, inheritClaudeSession: true });
  assert.deepEqual(editorOnly.problems, []);
});
