import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namesServer, selects, toolPattern } from '../../../../../src/core/agents/mcpServers/toolPatterns';

test("every format's spelling of an MCP tool, a server's tools and all MCP tools", () => {
  const cases: Array<[string, string | null, string | null]> = [
    ['mcp__github__create_issue', 'github', 'create_issue'],
    ['mcp__github', 'github', null],
    ['mcp__github__*', 'github', null],
    ['mcp__*', null, null],
    ['mcp_*', null, null],
    ['github/create_issue', 'github', 'create_issue'],
    ['github/*', 'github', null],
    ['ms-python.python/getPythonEnvironmentInfo', 'ms-python.python', 'getPythonEnvironmentInfo'],
  ];
  for (const [name, server, tool] of cases) {
    const pattern = toolPattern(name);
    assert.ok(pattern, name);
    assert.deepEqual([pattern.server, pattern.tool], [server, tool], name);
  }
  for (const name of ['Read', 'read/', '/x', 'a/b/c', 'mcp_', 'mcp__x y', '']) {
    assert.equal(toolPattern(name), null, name);
  }
});

test("Gemini's mcp_server_tool is split against the servers the agent has, whatever `_` they hold", () => {
  const pattern = toolPattern('mcp_my_server_list_items')!;
  assert.equal(namesServer(pattern, 'my_server'), true);
  assert.equal(namesServer(pattern, 'my'), true);
  assert.equal(selects(pattern, 'my_server', 'list_items'), true);
  assert.equal(selects(pattern, 'my', 'server_list_items'), true);
  assert.equal(selects(pattern, 'my_server', 'list'), false);
  const all = toolPattern('mcp_my_server_*')!;
  assert.equal(selects(all, 'my_server', 'anything'), true);
  assert.equal(selects(all, 'other', 'anything'), false);
});

test('server and tool names compare as Claude Code writes them in tool names', () => {
  assert.equal(selects(toolPattern('mcp__my_docs__search')!, 'my.docs', 'search'), true);
  assert.equal(selects(toolPattern('My.Docs/Search')!, 'my.docs', 'search'), true);
  assert.equal(selects(toolPattern('mcp__other__search')!, 'my.docs', 'search'), false);
  assert.equal(selects(toolPattern('mcp__*')!, 'anything', 'at-all'), true);
});
