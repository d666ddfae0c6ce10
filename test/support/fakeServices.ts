// The extension's Services, for unit tests of src/vscode/ code under the
// `vscode` fake (import test/support/installVscodeFake.ts first): workspace folders
// as FolderScope-shaped objects, each with a real Engine and catalog, all
// feeding one real RunStore.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type { AgentDefinition } from '../../src/core/agents/definition';
import { defaultSettings, type Settings } from '../../src/core/config';
import { Engine } from '../../src/core/engine/engine';
import { RunStore } from '../../src/core/runs/runStore';
import { ModeConsents, type ModeConsentHandler } from '../../src/core/tools/modeConsent';
import type { RunSnapshot } from '../../src/protocol/runSnapshot';
import type { FolderScope } from '../../src/vscode/scopes';
import { MemoryMailbox } from '../../src/core/engine/mail';
import { Services } from '../../src/vscode/services';
import { catalogOf } from './agents';
import type { TeamDefinition } from '../../src/core/agents/teams/teamFile';
import { teamStartOf } from '../../src/core/engine/team/leadBrief';
import { startScriptedServer, type Script, type ScriptedServer } from './scriptedServer';
import * as vscode from './vscodeFake';

export interface FakeFolder {
  name: string;
  dir: string;
  agents: AgentDefinition[];
  engine: Engine;
  settings?: Partial<Settings>;
  /** Team files of the folder. */
  teams?: TeamDefinition[];
}

export interface FakeServices {
  services: Services;
  store: RunStore;
  scopes: FolderScope[];
  logged: string[];
  /** The folder whose editor is active (`scopes.preferred()` puts it first). */
  activate(name: string | null): void;
}

export function fakeServices(folders: FakeFolder[]): FakeServices {
  const store = new RunStore({ coalesceMs: 0 });
  const logged: string[] = [];
  const log = Object.fromEntries(['trace', 'debug', 'info', 'warn', 'error'].map((level) => [level, (message: string) => logged.push(`${level}: ${message}`)]));
  vscode.workspace.workspaceFolders = folders.map((f, index) => ({ name: f.name, uri: vscode.Uri.file(f.dir), index }));
  const scopes = folders.map((f, index) => {
    f.engine.onEvent((event) => store.apply(event));
    const settings = { ...defaultSettings(), ...f.settings };
    return {
      folder: vscode.workspace.workspaceFolders[index]!,
      key: vscode.Uri.file(f.dir).toString(),
      settings,
      agents: f.agents,
      find: (name: string) => f.agents.find((a) => a.name === name),
      catalog: { agents: f.agents, shadowed: [], warnings: [] },
      teams: { teams: f.teams ?? [], shadowed: [], problems: [], find: (name: string) => f.teams?.find((t) => t.name === name) },
      findTeam: (name: string) => f.teams?.find((t) => t.name === name),
      // As the real scope: an agent of the same name wins.
      teamStart: (name: string) => {
        const team = f.agents.some((a) => a.name === name) ? undefined : f.teams?.find((t) => t.name === name);
        return team ? teamStartOf(team, settings['teams.isolation']) : undefined;
      },
      engine: f.engine,
    } as unknown as FolderScope;
  });
  let active: FolderScope | undefined;
  const scopeOf = (run: RunSnapshot) => scopes.find((s) => s.engine.find(run.rootAgentId));
  const services = {
    log,
    store,
    keys: { key: 'sk-ant-test', demo: false },
    scopes: {
      get all() {
        return scopes;
      },
      preferred: () => (active ? [active, ...scopes.filter((s) => s !== active)] : scopes),
      get: (key: string) => scopes.find((s) => s.key === key || s.folder.name === key),
    },
    agentNode: (agentId: string) => store.agent(agentId),
    runOf: (agentId: string) => {
      const node = store.agent(agentId);
      return node ? store.get(node.runId) : undefined;
    },
    folderOf: scopeOf,
    runningAgent: (agentId: string) => scopes.find((s) => s.engine.find(agentId)?.ended === false),
    // No history on disk here: nothing runs in another process, so a stop never goes through the mailbox.
    history: { load: () => Promise.resolve(null), mailbox: new MemoryMailbox() },
    sendMessage: Services.prototype.sendMessage,
    stopAgent: Services.prototype.stopAgent,
    stopRunOf: Services.prototype.stopRunOf,
  } as unknown as Services;
  return {
    services,
    store,
    scopes,
    logged,
    activate: (name) => (active = scopes.find((s) => s.folder.name === name)),
  };
}

/**
 * For a test file: a scripted model server and a temporary directory, made
 * before its tests and removed after; the vscode fake is reset before each
 * test. `folder` makes a workspace folder whose engine talks to that server
 * (permission mode `default`; `ask` answers an agent file's wider mode).
 */
export function scriptedWorkspace(script: Script): { readonly server: ScriptedServer; folder(name: string, agents: AgentDefinition[], ask?: ModeConsentHandler): FakeFolder } {
  let server: ScriptedServer | undefined;
  let dir = '';
  before(async () => {
    server = await startScriptedServer(script);
    dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-vscode-'));
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    vscode.resetFake();
    if (server) server.requests.length = 0;
  });
  return {
    get server() {
      if (!server) throw new Error('the scripted server has not started');
      return server;
    },
    folder(name, agents, ask) {
      const folder = path.join(dir, name);
      mkdirSync(folder, { recursive: true });
      const engine = new Engine({
        client: new Anthropic({ apiKey: 'test-key', baseURL: this.server.url, maxRetries: 0 }),
        catalog: catalogOf(...agents),
        settings: () => ({ ...defaultSettings(), permissionMode: 'default' }),
        modeConsents: new ModeConsents({ ask }),
        network: { baseDelayMs: 5 },
      });
      return { name, dir: folder, agents, engine };
    },
  };
}

/** The mode-consent dialog, answered "allow" 200 ms after it opens: time for a test to cancel meanwhile. */
export function slowConsent(): { ask: ModeConsentHandler; asking: Promise<void> } {
  let opened!: () => void;
  const asking = new Promise<void>((resolve) => (opened = resolve));
  const ask: ModeConsentHandler = () => {
    opened();
    return new Promise((resolve) => setTimeout(() => resolve(true), 200));
  };
  return { ask, asking };
}
