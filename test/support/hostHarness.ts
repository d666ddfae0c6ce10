// An agent host in this test process: the real HostServer and runtime,
// listening on a real Unix socket in a temporary folder, and real clients
// (HostClient) connected to it, as VS Code windows and terminals connect to
// the host process. What only a separate process can show (a crash, the
// socket's permissions, the environment) is in test/integration/host/.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { defaultSettings, type Settings } from '../../src/core/config';
import { HostClient, type ClientHandlers, type ClientIdentity } from '../../src/core/host/client';
import { HostServer } from '../../src/core/host/server';
import { openRuntime, type Runtime } from '../../src/core/runtime/runtime';
import type { ScopeSpec, TrustSpec } from '../../src/core/runtime/scopeSpec';
import type { HostSettings } from '../../src/protocol/host';
import type { RunSnapshot } from '../../src/protocol/runSnapshot';

export interface InProcessHost {
  root: string;
  socket: string;
  token: string;
  server: HostServer;
  runtime: Runtime;
  /** Why the host was told to exit, in order. */
  exits: string[];
  /** What the host logged. */
  logs: string[];
  client(options?: { identity?: Partial<ClientIdentity>; handlers?: ClientHandlers; reconnect?: boolean; summaries?: boolean; onSocket?: (socket: net.Socket) => void }): Promise<HostClient>;
  /** The host's runs whole, newest first: ended ones it holds as summaries read from their files, as a client gets them. */
  wholeRuns(): Promise<Array<RunSnapshot | undefined>>;
  /** Closes every client made so far (the host then has none). */
  disconnectAll(): void;
  /** A raw connection to the socket (for what a well-behaved client never sends). */
  connect(): Promise<net.Socket>;
  /** A scope in a folder of this host's root. */
  scope(folder: string, overrides?: { trust?: TrustSpec; settings?: Partial<Settings>; surface?: 'vscode' | 'cli'; apiKey?: string; home?: string; session?: number }): ScopeSpec;
  close(): Promise<void>;
}

export async function inProcessHost(options: { baseUrl: string; settings?: Partial<HostSettings>; lagLimit?: number } = { baseUrl: '' }): Promise<InProcessHost> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'subagents-host-'));
  const socket = path.join(root, 'host.sock');
  const token = 'test-token-'.padEnd(64, '0');
  const exits: string[] = [];
  const logs: string[] = [];
  const server = new HostServer({
    token,
    info: { version: 'test', build: 'dev', pid: process.pid, startedAt: Date.now() },
    socket,
    settings: { idleExitSeconds: 600, unattendedApprovalSeconds: 1800, ...options.settings },
    log: (level, message) => void logs.push(`${level}: ${message}`),
    exit: (reason) => void exits.push(reason),
    ...(options.lagLimit ? { lagLimit: options.lagLimit } : {}),
  });
  const runtime = await openRuntime({
    dataDir: path.join(root, 'data'),
    settings: defaultSettings,
    coalesceMs: 0,
    summarizeEndedRuns: true,
    mcpStatusFile: path.join(root, 'mcp.json'),
    recoverWorktrees: false,
    network: { baseDelayMs: 5 },
    modeConsent: (request, signal) => server.modeConsent(request, signal),
    askMcpInputs: (name, ids) => server.askMcpInputs(name, ids),
    editorTools: server.editorTools,
    log: () => undefined,
  });
  server.attach(runtime);
  const listener = net.createServer((s) => server.accept(s));
  await new Promise<void>((resolve) => listener.listen(socket, resolve));
  const clients: HostClient[] = [];
  const connect = () =>
    new Promise<net.Socket>((resolve, reject) => {
      const s = net.createConnection(socket, () => resolve(s));
      s.once('error', reject);
    });
  return {
    root,
    socket,
    token,
    server,
    runtime,
    exits,
    logs,
    connect,
    async client({ identity, handlers, reconnect, summaries, onSocket } = {}) {
      const client = await HostClient.open({
        connect: async () => {
          const s = await connect();
          onSocket?.(s);
          return { socket: s, token };
        },
        identity: { kind: 'other', version: 'test', build: 'dev', pid: process.pid, ...identity },
        handlers,
        reconnect: reconnect ?? false,
        summaries,
        coalesceMs: 0,
        log: () => undefined,
      });
      clients.push(client);
      return client;
    },
    scope(folder, overrides = {}) {
      return {
        cwd: path.join(root, folder),
        surface: overrides.surface ?? 'cli',
        settings: { ...defaultSettings(), permissionMode: 'default', ...overrides.settings },
        trust: overrides.trust ?? { kind: 'folders', roots: [] },
        credentials: { apiKey: overrides.apiKey ?? 'test-key', baseUrl: options.baseUrl },
        env: { PATH: process.env.PATH ?? '', HOME: overrides.home ?? root },
        home: overrides.home ?? root,
        // A client session that began now: settings files written before are its baseline.
        session: overrides.session ?? Date.now(),
      };
    },
    async wholeRuns() {
      const ids = runtime.store.list().map((run) => run.runId);
      const read = await runtime.history.readWhole(ids);
      return ids.map((id) => runtime.store.whole(id, read));
    },
    disconnectAll() {
      for (const client of clients.splice(0)) client.close();
    },
    async close() {
      for (const client of clients) client.close();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      await runtime.close({ graceMs: 100 });
      server.dispose();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Writes a Claude Code agent file into `<root>/<folder>/.claude/agents/`. */
export async function agentFile(root: string, folder: string, name: string, frontmatter = '', body = `You are ${name}. [agent:${name}]`): Promise<void> {
  const dir = path.join(root, folder, '.claude', 'agents');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${name}.md`), `---\nname: ${name}\ndescription: ${name}\n${frontmatter}---\n${body}\n`);
}
