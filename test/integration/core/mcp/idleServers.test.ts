import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { defaultSettings } from '../../../../src/core/config';
import { McpHost, type McpHostOptions } from '../../../../src/core/mcp/host';
import { mcpLimits } from '../../../../src/core/mcp/limits';
import { emptySpec } from '../../../../src/core/agents/mcpServers/spec';
import { agent } from '../../../support/agents';
import { pidAlive, pidIn, stdioServer, waitFor } from '../../../support/mcp/servers';

// Servers outlive their run tree for a while in a long-lived process, so the
// next tree starts with them running; a process that knows its agent starts
// them ahead; two trees at work at once never share one.

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-mcp-idle-'));
});
after(() => rm(dir, { recursive: true, force: true }));

function host(opts: Partial<McpHostOptions> = {}): McpHost {
  const h = new McpHost({ trust: { isTrusted: () => true }, trustHint: '', env: { PATH: process.env.PATH }, home: dir, vscodeWorkspace: false, limits: () => mcpLimits(defaultSettings()), ownSecrets: () => [], ...opts });
  after(() => h.close());
  return h;
}

/** An agent whose inline server writes its pid to `pidfile` when it starts. */
function withServer(name: string, pidfile: string) {
  const declaration = { name: 'notes', spec: { ...emptySpec('claude'), ...stdioServer('--name', 'notes', '--pidfile', pidfile) } };
  return agent(name, { tools: ['Read', 'mcp__notes__echo'], mcp: [declaration], filePath: path.join(dir, `${name}.md`) });
}

const request = (definition: ReturnType<typeof withServer>) => ({ agentName: definition.name, definition, cwd: dir, planMode: false });

test('a finished tree\'s server keeps running for the next tree; two trees at work at once each have their own; closing the host stops them', async () => {
  const pidfile = path.join(dir, 'shared.pid');
  const h = host();
  const definition = withServer('a', pidfile);
  const first = h.tree();
  assert.equal((await first.toolsFor(request(definition))).tools.length, 1);
  const started = pidIn(pidfile);
  await first.close();
  assert.ok(pidAlive(started), 'kept running once its tree ended');
  assert.equal(h.idle.size, 1);

  const second = h.tree();
  assert.equal((await second.toolsFor(request(definition))).tools.length, 1);
  assert.equal(pidIn(pidfile), started, 'the next tree got the running server: no new start');
  assert.equal(h.idle.size, 0, 'held by that tree alone');

  const third = h.tree();
  assert.equal((await third.toolsFor(request(definition))).tools.length, 1);
  const other = pidIn(pidfile);
  assert.notEqual(other, started, 'a tree at work at the same time starts its own');
  await second.close();
  await third.close();
  assert.equal(h.idle.size, 2);

  await h.close();
  await waitFor(() => !pidAlive(started) && !pidAlive(other), 10_000, () => 'the kept servers were not stopped');
});

test('prestart: the agent\'s tree finds its server already running', async () => {
  const pidfile = path.join(dir, 'early.pid');
  const h = host();
  const definition = withServer('b', pidfile);
  h.prestart(request(definition));
  const early = await waitFor(() => existsSync(pidfile) && pidIn(pidfile), 10_000, () => 'the server was not started ahead');
  const tree = h.tree();
  assert.equal((await tree.toolsFor(request(definition))).tools.length, 1);
  assert.equal(pidIn(pidfile), early, 'the same process');
  await tree.close();
});

test('a kept server stops once unused for the linger time, and with none it stops with its tree', async () => {
  for (const idleServerMs of [50, 0]) {
    const pidfile = path.join(dir, `linger-${idleServerMs}.pid`);
    const h = host({ idleServerMs });
    const tree = h.tree();
    await tree.toolsFor(request(withServer('c', pidfile)));
    const pid = pidIn(pidfile);
    await tree.close();
    await waitFor(() => !pidAlive(pid), 10_000, () => `the server kept ${idleServerMs} ms is still running`);
    assert.equal(h.idle.size, 0);
  }
});
