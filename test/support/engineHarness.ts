import Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AgentDefinition } from '../../src/core/agents/definition';
import type { Settings } from '../../src/core/config';
import { Engine, type EngineOptions } from '../../src/core/engine/engine';
import type { RunEvent } from '../../src/protocol/runEvents';
import { catalogOf, settings as makeSettings } from './agents';
import { startScriptedServer, type Script, type ScriptedServer } from './scriptedServer';

export interface Harness {
  server: ScriptedServer;
  engine: Engine;
  events: RunEvent[];
  dir: string;
  catalog: ReturnType<typeof catalogOf>;
  close(): Promise<void>;
}

/** An engine wired to a scripted server with the real SDK client, in a temp working dir. */
export async function harness(opts: {
  agents: AgentDefinition[];
  script: Script;
  settings?: Partial<Settings>;
  engine?: Partial<EngineOptions>;
}): Promise<Harness> {
  const server = await startScriptedServer(opts.script);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-engine-'));
  const catalog = catalogOf(...opts.agents);
  const client = new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 3 });
  const engine = new Engine({
    client,
    catalog,
    settings: makeSettings(opts.settings),
    network: { baseDelayMs: 5 },
    ...opts.engine,
  });
  const events: RunEvent[] = [];
  engine.onEvent((e) => events.push(e));
  return {
    server,
    engine,
    events,
    dir,
    catalog,
    close: async () => {
      engine.cancelAll();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
