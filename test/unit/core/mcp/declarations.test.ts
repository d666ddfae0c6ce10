import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readAgentMcpServers } from '../../../../src/core/agents/mcpServers/agentField';
import { readServerEntry } from '../../../../src/core/agents/mcpServers/serverEntries';
import type { McpDeclaration, McpServerSpec } from '../../../../src/core/agents/mcpServers/spec';
import { parseAgentText } from '../../../../src/core/agents/parsing/parse';

function sink() {
  const messages: string[] = [];
  return { messages, warn: (m: string) => messages.push(m) };
}

/** The declarations by name: a server's spec, or 'ref' for a name referring to one configured elsewhere. */
function specs(declarations: McpDeclaration[]): Record<string, McpServerSpec | 'ref' | undefined> {
  return Object.fromEntries(declarations.map((d) => [d.name, 'spec' in d ? d.spec : 'ref']));
}

function inline(value: McpServerSpec | 'ref' | undefined): McpServerSpec {
  assert.ok(value && value !== 'ref', 'a server of the agent');
  return value;
}

test('Claude Code: names are references, one-key maps are servers of the agent; plugin agents cannot declare any', () => {
  const s = sink();
  const declared = readAgentMcpServers(['github', { browser: { command: 'npx', args: ['browser-mcp'] } }, { remote: { type: 'sse', url: 'https://x.example/sse' } }, 42], 'claude-code', 'project', s);
  const byName = specs(declared);
  assert.equal(byName.github, 'ref');
  const browser = inline(byName.browser);
  assert.deepEqual([browser.transport, browser.command, browser.args], ['stdio', 'npx', ['browser-mcp']]);
  const remote = inline(byName.remote);
  assert.deepEqual([remote.transport, remote.url, remote.sseFallback], ['sse', 'https://x.example/sse', false]);
  assert.match(s.messages.join('\n'), /neither a server name nor "name: \{ command … \}" \(42\)/);

  const plugin = sink();
  assert.deepEqual(readAgentMcpServers(['github'], 'claude-code', 'plugin', plugin), []);
  assert.match(plugin.messages[0]!, /plugin agents cannot declare MCP servers/);
});

test('Copilot: type local is stdio, the server-level tools list filters, `*` keeps all', () => {
  const s = sink();
  const byName = specs(
    readAgentMcpServers(
      {
        local: { type: 'local', command: 'some-command', args: ['--a'], tools: ['*'], env: { KEY: '${{ secrets.COPILOT_MCP_KEY }}' } },
        remote: { type: 'http', url: 'https://api.example/mcp', headers: { Authorization: 'Bearer $COPILOT_MCP_TOKEN' }, tools: ['search', 'fetch'] },
      },
      'copilot',
      'project',
      s,
    ),
  );
  assert.deepEqual(s.messages, []);
  const local = inline(byName.local);
  assert.deepEqual([local.transport, local.include, local.env, local.variables], ['stdio', null, { KEY: '${{ secrets.COPILOT_MCP_KEY }}' }, 'copilot']);
  const remote = inline(byName.remote);
  assert.deepEqual([remote.transport, remote.include, remote.sseFallback], ['http', ['search', 'fetch'], false]);
});

test('Gemini: httpUrl is Streamable HTTP, a url without type falls back to SSE, include/exclude and timeout in ms', () => {
  const s = sink();
  const byName = specs(
    readAgentMcpServers(
      {
        a: { httpUrl: 'https://a.example/mcp', timeout: 5000, include_tools: ['x', 'y'], exclude_tools: ['y'] },
        b: { url: 'https://b.example/mcp' },
        c: { command: 'node', args: ['server.js'], cwd: './tools' },
        d: { tcp: 'localhost:9000' },
      },
      'gemini',
      'project',
      s,
    ),
  );
  const a = inline(byName.a);
  assert.deepEqual([a.transport, a.url, a.callTimeoutMs, a.include, a.exclude], ['http', 'https://a.example/mcp', 5000, ['x', 'y'], ['y']]);
  const b = inline(byName.b);
  assert.deepEqual([b.transport, b.sseFallback], ['http', true]);
  const c = inline(byName.c);
  assert.equal(c.cwd, './tools');
  assert.equal(byName.d, undefined);
  assert.match(s.messages.join('\n'), /MCP server "d": WebSocket and TCP servers are not supported here/);
});

test('Codex: enabled = false drops the server; timeouts in seconds; env_vars, bearer token and env headers by variable name', () => {
  const s = sink();
  const byName = specs(
    readAgentMcpServers(
      {
        off: { command: 'x', enabled: false },
        tools: { command: 'tool-server', env_vars: ['HOME_TOKEN'], enabled_tools: ['a'], disabled_tools: ['b'], tool_timeout_sec: 2.5, startup_timeout_sec: 4, required: true },
        remote: { url: 'https://r.example/mcp', bearer_token_env_var: 'R_TOKEN', http_headers: { 'X-Team': 'core' }, env_http_headers: { 'X-Key': 'R_KEY' } },
      },
      'codex',
      'project',
      s,
    ),
  );
  assert.equal(byName.off, undefined);
  const tools = inline(byName.tools);
  assert.deepEqual([tools.forwardEnv, tools.include, tools.exclude, tools.callTimeoutMs, tools.startupTimeoutMs, tools.required], [['HOME_TOKEN'], ['a'], ['b'], 2500, 4000, true]);
  const remote = inline(byName.remote);
  // Codex reads a url as Streamable HTTP only.
  assert.deepEqual([remote.transport, remote.sseFallback, remote.bearerTokenEnv, remote.headers, remote.envHeaders], ['http', false, 'R_TOKEN', { 'X-Team': 'core' }, { 'X-Key': 'R_KEY' }]);
  assert.deepEqual(s.messages, []);
});

test('entries that cannot run say why and are dropped; the rest of the file loads', () => {
  const s = sink();
  assert.equal(readServerEntry('x', { type: 'http' }, 'claude', s), null);
  assert.equal(readServerEntry('y', { type: 'ws', url: 'ws://y' }, 'claude', s), null);
  assert.equal(readServerEntry('z', 'npx z', 'claude', s), null);
  assert.equal(readServerEntry('w', { type: 'pipe', command: 'w' }, 'claude', s), null);
  assert.deepEqual(s.messages, [
    'MCP server "x": it has no "url"; it is ignored',
    'MCP server "y": WebSocket and TCP servers are not supported here (stdio, Streamable HTTP and SSE are); it is ignored',
    'MCP server "z" must be a map of settings (command, args, url …), not "npx z"; it is ignored',
    'MCP server "w": "type" must be stdio, http or sse, not "pipe"; it is ignored',
  ]);

  const parsed = parseAgentText('---\nname: a\ndescription: d\nmcp-servers:\n  bad: { type: http }\n  good: { command: ok }\n---\nx', { filePath: '/r/.github/agents/a.agent.md', source: 'project', family: '.github' });
  assert.deepEqual(parsed.definition?.mcp?.map((d) => d.name), ['good']);
  assert.deepEqual(parsed.warnings.map((w) => w.message), ['MCP server "bad": it has no "url"; it is ignored']);
});
