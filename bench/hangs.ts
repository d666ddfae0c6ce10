/**
 * How long each kind of network hang takes to show and to give up, with
 * the default `subagents.network.*` settings: the real engine
 * and SDK client against the scripted server (or a closed port). For each
 * case: when the first `retry` event came (what a surface shows), and when
 * the agent ended, with its status and error. The cases run side by side;
 * each has its own server, so they do not share attempts.
 *
 * Run: node_modules/.bin/node --import tsx bench/hangs.ts   (about 10 minutes)
 */
import { createServer } from 'node:net';
import { createClient } from '../src/core/engine/loop/client';
import { Engine } from '../src/core/engine/engine';
import { defaultSettings } from '../src/core/config';
import { agent, catalogOf } from '../test/support/agents';
import { startScriptedServer, type Reply } from '../test/support/scriptedServer';
import { writeResults } from './lib/results';

interface Case {
  name: string;
  reply?: Reply;
  baseURL?: () => Promise<string>;
}

/** A port that was free a moment ago: connections to it are refused. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

const CASES: Case[] = [
  { name: 'accepts the connection, never answers', reply: { hang: true } },
  { name: 'sends headers, then stalls', reply: { stall: { afterEvents: 2 } } },
  { name: 'endless trickle of text (a byte every 200 ms)', reply: { trickle: { everyMs: 200 } } },
  { name: '429 with retry-after: 3600, every time', reply: { error: { status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after': '3600', 'retry-after-ms': '' } } } },
  { name: '529 overloaded, every time', reply: { error: { status: 529, type: 'overloaded_error', message: 'Overloaded', headers: { 'retry-after-ms': '' } } } },
  { name: 'connection refused (nothing listens)', baseURL: closedPort },
];

async function measure(c: Case) {
  const server = c.reply ? await startScriptedServer(() => c.reply!) : null;
  const baseUrl = server?.url ?? (await c.baseURL!());
  const settings = defaultSettings();
  const engine = new Engine({
    client: createClient({ apiKey: 'bench-key', baseUrl, env: {} }),
    catalog: catalogOf(agent('solo')),
    settings: () => ({ ...settings, permissionMode: 'bypassPermissions' }),
  });
  const started = Date.now();
  let firstRetryMs: number | null = null;
  const retries: string[] = [];
  engine.onEvent((e) => {
    if (e.type !== 'retry') return;
    firstRetryMs ??= Date.now() - started;
    retries.push(`${Math.round((Date.now() - started) / 1000)} s: ${e.reason}, waiting ${e.delayMs} ms`);
  });
  const result = await engine.run({ agent: 'solo', prompt: 'hi', cwd: process.cwd() });
  const endedMs = Date.now() - started;
  await server?.close();
  const row = { case: c.name, firstRetryS: firstRetryMs === null ? null : firstRetryMs / 1000, gaveUpS: endedMs / 1000, status: result.status, attempts: retries.length + 1, error: result.error, retries };
  console.log(JSON.stringify(row));
  return row;
}

async function main() {
  const settings = defaultSettings();
  const rows = await Promise.all(CASES.map(measure));
  await writeResults('hangs', {
    settings: Object.fromEntries(Object.entries(settings).filter(([k]) => k.startsWith('network.'))),
    cases: rows,
  });
}

void main();
