// The extension's Services, for tests of src/vscode/ code under the `vscode`
// fake (import test/support/installVscodeFake.ts first): workspace folders as
// FolderScope-shaped objects, and a real runtime (src/core/runtime, in this
// process, the history in a temporary folder) whose scopes run each folder's
// agents on a scripted model server.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach } from 'node:test';
import type { AgentDefinition } from '../../src/core/agents/definition';
import { defaultSettings, type Settings } from '../../src/core/config';
import { admit, type Invoker } from '../../src/core/engine/tree/admission';
import type { Budget } from '../../src/core/engine/tree/budget';
import { openRuntime, type Runtime } from '../../src/core/runtime/runtime';
import type { ScopeSpec } from '../../src/core/runtime/scopeSpec';
import type { RunStore } from '../../src/core/runs/runStore';
import type { ModeConsentHandler } from '../../src/core/tools/modeConsent';
import type { RunSnapshot } from '../../src/protocol/runSnapshot';
import type { FolderScope } from '../../src/vscode/scopes';
import { Services } from '../../src/vscode/services';
import type { RuntimeBackend } from '../../src/vscode/backends';
import { catalogOf } from './agents';
import type { TeamDefinition } from '../../src/core/agents/teams/teamFile';
import { teamStartOf } from '../../src/core/engine/team/leadBrief';
import { startScriptedServer, type Script, type ScriptedServer } from './scriptedServer';
import * as vscode from './vscodeFake';

export interface FakeFolder {
  name: string;
  dir: string;
  agents: AgentDefinition[];
  settings?: Partial<Settings>;
  /** Answers an agent file's wider permission mode. */
  ask?: ModeConsentHandler;
  /** The scripted model server's address. */
  baseUrl: string;
  /** Team files of the folder. */
  teams?: TeamDefinition[];
}

export interface FakeServices {
  services: Services;
  runtime: Runtime;
  store: RunStore;
  scopes: FolderScope[];
  logged: string[];
  /** The folder whose editor is active (`scopes.preferred()` puts it first). */
  activate(name: string | null): void;
}

/** Runtimes made for the tests of a file, closed after them. */
const opened: Runtime[] = [];

export async function fakeServices(folders: FakeFolder[]): Promise<FakeServices> {
  const logged: string[] = [];
  const log = Object.fromEntries(['trace', 'debug', 'info', 'warn', 'error'].map((level) => [level, (message: string) => logged.push(`${level}: ${message}`)]));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'subagents-services-'));
  const byDir = new Map(folders.map((f) => [f.dir, f]));
  const runtime = await openRuntime({
    dataDir,
    settings: defaultSettings,
    coalesceMs: 0,
    mcpStatusFile: path.join(dataDir, 'mcp-servers.json'),
    recoverWorktrees: false,
    network: { baseDelayMs: 5 },
    log: (level, message) => logged.push(`${level}: ${message}`),
    catalogs: async (spec) => ({ ...catalogOf(...(byDir.get(spec.cwd)?.agents ?? [])), warnings: [], dispose: () => undefined }),
    // Each folder answers for its own agent files.
    modeConsent: (request, signal) => {
      const owner = folders.find((f) => f.ask && f.agents.some((a) => a.name === request.agentName));
      return owner?.ask ? owner.ask(request, signal) : Promise.resolve(false);
    },
  });
  opened.push(runtime);
  vscode.workspace.workspaceFolders = folders.map((f, index) => ({ name: f.name, uri: vscode.Uri.file(f.dir), index }));
  const scopes = folders.map((f, index) => {
    const settings = { ...defaultSettings(), permissionMode: 'default' as const, ...f.settings };
    const spec = (): ScopeSpec => ({
      cwd: f.dir,
      surface: 'vscode',
      settings,
      trust: { kind: 'window', trusted: true },
      credentials: { apiKey: 'test-key', baseUrl: f.baseUrl },
      env: {},
      home: dataDir,
      session: 1,
    });
    return {
      folder: vscode.workspace.workspaceFolders[index]!,
      key: vscode.Uri.file(f.dir).toString(),
      settings,
      agents: f.agents,
      find: (name: string) => f.agents.find((a) => a.name === name),
      catalog: { agents: f.agents, shadowed: [], warnings: [] },
      mcpServers: new Map(),
      refreshMcpServers: () => undefined,
      spec,
      admission: (name: string, invoker: Invoker = 'user', budget?: Budget) =>
        admit({ name, definition: f.agents.find((a) => a.name === name), available: f.agents.map((a) => a.name), settings, invoker, budget, context: { runsAllowed: true, hasKey: true } }),
      teams: { teams: f.teams ?? [], shadowed: [], problems: [], find: (name: string) => f.teams?.find((t) => t.name === name) },
      findTeam: (name: string) => f.teams?.find((t) => t.name === name),
      // As the real scope: an agent of the same name wins.
      teamStart: (name: string) => {
        const team = f.agents.some((a) => a.name === name) ? undefined : f.teams?.find((t) => t.name === name);
        return team ? teamStartOf(team, settings['teams.isolation']) : undefined;
      },
    } as unknown as FolderScope;
  });
  let active: FolderScope | undefined;
  const runFolders = new Map<string, FolderScope>();
  const folderScopes = {
    get all() {
      return scopes;
    },
    preferred: () => (active ? [active, ...scopes.filter((s) => s !== active)] : scopes),
    get: (key: string) => scopes.find((s) => s.key === key || s.folder.name === key),
    noteRun: (runId: string, scope: FolderScope) => runFolders.set(runId, scope),
    folderOfRun: (runId: string, cwds: readonly string[]) =>
      runFolders.get(runId) ?? scopes.find((s) => cwds.some((cwd) => cwd === s.folder.uri.fsPath || cwd.startsWith(`${s.folder.uri.fsPath}${path.sep}`))),
  };
  const backend: RuntimeBackend = {
    kind: 'window',
    runtime,
    worktrees: runtime.worktrees,
    transcripts: runtime.history.transcripts,
    applyUserSettings: (s) => runtime.applySettings(s),
    editorToolsChanged: () => undefined,
    recoverWorktrees: () => runtime.recoverWorktrees(),
    onPoolChange: (listener) => runtime.onPoolChange(listener),
    close: () => runtime.close(),
  };
  const services = Object.assign(Object.create(Services.prototype) as Services, {
    log,
    keys: { key: 'sk-ant-test', demo: false },
    scopes: folderScopes,
    backend,
    keptWorktrees: [],
  });
  return {
    services,
    runtime,
    store: runtime.store,
    scopes,
    logged,
    activate: (name) => (active = scopes.find((s) => s.folder.name === name)),
  };
}

/** The snapshot of the run the agent belongs to. */
export function runOf(store: RunStore, agentId: string): RunSnapshot | undefined {
  const node = store.agent(agentId);
  return node ? store.get(node.runId) : undefined;
}

/**
 * For a test file: a scripted model server and a temporary directory, made
 * before its tests and removed after; the vscode fake is reset before each
 * test. `folder` makes a workspace folder whose agents run on that server
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
    await Promise.all(opened.splice(0).map((runtime) => runtime.close({ graceMs: 100 })));
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
      return { name, dir: folder, agents, ask, baseUrl: this.server.url };
    },
  };
}

/** The mode-consent dialog, answered "allow" 200 ms after it opens: time for a test to cancel meanwhile. */
export function slowConsent(): { ask: ModeConsentHandler; asking: Promise<void> } {
  let opened!: () => void;
  const asking = new Promise<void>((resolve) => (opened = resolve));
  const ask: ModeConsentHandler = () => {
    opened();
    return new Promise((resolve) => setTimeout(resolve, 200, true));
  };
  return { ask, asking };
}
