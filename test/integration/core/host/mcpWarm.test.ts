import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import { agentFile, inProcessHost } from '../../../support/hostHarness';
import { pidIn, stdioServer, yaml } from '../../../support/mcp/servers';
import { startScriptedServer } from '../../../support/scriptedServer';
import { until } from '../../../support/until';

// Each `subagents run` the agent host serves is a scope of its own (its
// session, its settings): the MCP servers a run's tree kept are there for the
// next run's tree whatever scope it comes from.

test('a terminal run served by the host gets the MCP server the previous terminal run kept', async () => {
  const model = await startScriptedServer((req) => ({ text: `tools: ${req.tools.map((t) => String(t.name)).join(', ')}` }));
  after(() => model.close());
  const host = await inProcessHost({ baseUrl: model.url });
  after(() => host.close());
  const pidfile = path.join(host.root, 'notes.pid');
  await agentFile(host.root, 'app', 'noter', `tools: Read, mcp__notes__echo\nmcpServers: ${yaml({ notes: stdioServer('--name', 'notes', '--pidfile', pidfile) })}\n`);
  const trust = { kind: 'folders' as const, roots: [path.join(host.root, 'app')] };
  const terminal = await host.client();

  const first = await terminal.start({ scope: host.scope('app', { trust, session: 1 }), agent: 'noter', prompt: 'one' });
  assert.match((await first.result()).output ?? '', /mcp__notes__echo/);
  const started = pidIn(pidfile);
  const [scope] = await host.runtime.scopes();
  await until('the ended tree to keep its server', () => scope!.mcp.idle.size === 1);

  const second = await terminal.start({ scope: host.scope('app', { trust, session: 2 }), agent: 'noter', prompt: 'two' });
  assert.match((await second.result()).output ?? '', /mcp__notes__echo/);
  assert.equal((await host.runtime.scopes()).length, 2, 'each run a scope of its own');
  assert.equal(pidIn(pidfile), started, 'the second run got the running server: no new start');
});
