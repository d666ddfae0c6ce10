/**
 * One process of the MCP benchmark's in-process part (bench/mcp.ts), run
 * fresh each time so its first measurement is really the first: an McpHost
 * as the CLI and the extension build it, then `rounds` new run trees one
 * after the other, each asking for one agent's tools (the first tree starts
 * the server: process, handshake, tools/list; later ones get the server the
 * tree before kept running) and, in the same tree, for a second agent's
 * tools (the shared connection); and a tree that gets no kept server (a
 * host that keeps none: what a second tree at work at the same time, or the
 * first tree after a while, gets), a new server with the SDK loaded. Prints
 * one JSON line of milliseconds.
 *
 * Run: node --import tsx bench/lib/mcpProbe.ts <rounds>
 */
import os from 'node:os';
import { McpHost } from '../../src/core/mcp/host';
import { mcpLimits } from '../../src/core/mcp/limits';
import { defaultSettings } from '../../src/core/config';
import { emptySpec } from '../../src/core/agents/mcpServers/spec';
import { agent } from '../../test/support/agents';
import { stdioServer } from '../../test/support/mcp/servers';

const rounds = Number(process.argv[2] ?? 10);
const host = new McpHost({
  trust: { isTrusted: () => true },
  trustHint: '',
  env: { PATH: process.env.PATH },
  home: os.tmpdir(),
  vscodeWorkspace: false,
  limits: () => mcpLimits(defaultSettings()),
  ownSecrets: () => [],
});
const keepsNone = new McpHost({ ...host.options, idleServerMs: 0 });
const declaration = { name: 'notes', spec: { ...emptySpec('claude'), ...stdioServer('--name', 'notes') } };
const definition = (name: string) => agent(name, { tools: ['Read', 'mcp__notes__echo'], mcp: [declaration], filePath: `/bench/${name}.md` });

async function main(): Promise<void> {
  const first: number[] = [];
  const shared: number[] = [];
  const fresh: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const tree = host.tree();
    let started = performance.now();
    const tools = await tree.toolsFor({ agentName: 'a', definition: definition('a'), cwd: os.tmpdir(), planMode: false });
    first.push(performance.now() - started);
    if (tools.tools.length !== 1 || tools.warnings.length) throw new Error(`expected one MCP tool: ${tools.warnings.join(' ')}`);
    started = performance.now();
    await tree.toolsFor({ agentName: 'b', definition: definition('b'), cwd: os.tmpdir(), planMode: false });
    shared.push(performance.now() - started);
    const other = keepsNone.tree();
    started = performance.now();
    await other.toolsFor({ agentName: 'c', definition: definition('c'), cwd: os.tmpdir(), planMode: false });
    fresh.push(performance.now() - started);
    await other.close();
    await tree.close();
  }
  await host.close();
  await keepsNone.close();
  process.stdout.write(`${JSON.stringify({ first, shared, fresh })}\n`);
}

void main();
