import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { defaultSettings } from '../../../../src/core/config';
import { emptySpec } from '../../../../src/core/agents/mcpServers/spec';
import { McpHost } from '../../../../src/core/mcp/host';
import { mcpLimits } from '../../../../src/core/mcp/limits';
import { McpStatusStore } from '../../../../src/core/mcp/status';
import { agent } from '../../../support/agents';
import { stdioServer } from '../../../support/mcp/servers';

// What servers did is kept in a status file for the listings and the
// language server; an agent that has no server has nothing to keep there,
// so its start (on the way to its first request) does not rewrite it.

test('an agent without MCP servers leaves the status file alone; one with a server records it', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-mcp-status-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'cache', 'mcp-status.json');
  const host = new McpHost({ trust: { isTrusted: () => true }, trustHint: '', env: { PATH: process.env.PATH }, home: dir, vscodeWorkspace: false, limits: () => mcpLimits(defaultSettings()), ownSecrets: () => [], status: new McpStatusStore(file) });
  t.after(() => host.close());
  const tree = host.tree();
  const plain = agent('plain', { tools: ['Read'], filePath: path.join(dir, 'plain.md') });
  const tools = await tree.toolsFor({ agentName: 'plain', definition: plain, cwd: dir, planMode: false });
  tools.dispose();
  assert.equal(existsSync(file), false, 'nothing written for an agent without servers');

  const withServer = agent('notes', { tools: ['mcp__notes__echo'], mcp: [{ name: 'notes', spec: { ...emptySpec('claude'), ...stdioServer('--name', 'notes') } }], filePath: path.join(dir, 'notes.md') });
  const served = await tree.toolsFor({ agentName: 'notes', definition: withServer, cwd: dir, planMode: false });
  served.dispose();
  await tree.close();
  assert.deepEqual(Object.values(new McpStatusStore(file).read()).map((s) => [s.name, s.ok]), [['notes', true]]);
});
