import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTree } from '../../../../src/cli/render/tree';
import { emptyUsage } from '../../../../src/protocol/runEvents';
import type { AgentNode, RunSnapshot } from '../../../../src/protocol/runSnapshot';
import { toolLabel } from '../../../../src/protocol/tools';

test('a call to an MCP server is labelled with the server first; built-ins keep their names', () => {
  assert.equal(toolLabel({ name: 'mcp__github__create_issue', server: 'github' }), 'github › create_issue');
  assert.equal(toolLabel({ name: 'mcp__my_docs__search', server: 'my.docs' }), 'my.docs › search');
  assert.equal(toolLabel({ name: 'vscode__ms-python_python__getEnv', server: 'ms-python.python' }), 'ms-python.python › getEnv');
  // A name shortened with a hash keeps it whole, after the server.
  assert.equal(toolLabel({ name: 'mcp__x__a_1234abcd', server: 'other' }), 'other › mcp__x__a_1234abcd');
  assert.equal(toolLabel({ name: 'Read' }), 'Read');
});

test('the CLI tree shows the server of each MCP call and the agent’s notices', () => {
  const node: AgentNode = {
    agentId: 'a1', runId: 'a1', parentId: null, parentToolUseId: null, agentName: 'triager', description: '', prompt: 'p', model: 'm', depth: 0, cwd: '/', background: false,
    filePath: null, color: null, status: 'completed', startedAt: 0, endedAt: 1000, text: '', output: 'ok', error: null, usage: emptyUsage(), turns: 1, retries: 0, retryWait: null,
    tools: [{ toolUseId: 't1', name: 'mcp__github__search_issues', inputSummary: 'q="crash"', status: 'ok', resultSummary: '3 issues', startedAt: 10, durationMs: 200, childAgentId: null, server: 'github' }],
    foldedTools: 0, children: [], worktree: null, worktreePath: null, approval: null,
    notices: ['MCP server "slack" (/p/.mcp.json) could not be started for agent "triager": it exited with code 1.'],
  };
  const run: RunSnapshot = { runId: 'a1', rootAgentId: 'a1', status: 'completed', startedAt: 0, endedAt: 1000, usage: emptyUsage(), agents: { a1: node }, version: 1 };
  const text = renderTree(run, { now: 1000, width: 200 }).join('\n');
  assert.match(text, /⚠ MCP server "slack" \(\/p\/\.mcp\.json\) could not be started for agent "triager"/);
  assert.match(text, /github › search_issues q="crash" · 3 issues/);
});
