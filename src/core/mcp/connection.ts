import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { childEnv } from '../childEnv';
import type { ResolvedLaunch } from './launch';
import { GroupStdioTransport } from './stdioTransport';
import type * as SdkModule from './sdk';
import { shareZod } from './sharedZod';

/**
 * One connection to one MCP server, through the official SDK client:
 * started on first need (the handshake, then `tools/list`), shared by every
 * agent of a run tree that asks for the same server, kept current when the
 * server announces `tools/list_changed`, restarted on the next call after
 * the server died, and stopped with the tree.
 */

type Sdk = typeof SdkModule;
let sdk: Promise<Sdk> | null = null;

/** The SDK, evaluated the first time a server starts. */
export function loadSdk(): Promise<Sdk> {
  if (!sdk) {
    shareZod();
    sdk = import('./sdk');
  }
  return sdk;
}

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The server says the tool changes nothing (`annotations.readOnlyHint: true`). */
  readOnly: boolean;
  title: string | null;
}

export interface ConnectionOptions {
  /** How long the start (process, handshake, first tool list) may take. */
  startupTimeoutMs: number;
  /** The product's name and version, sent in the handshake. */
  clientInfo: { name: string; version: string };
}

/** A start that failed: the message says why, with the server's last stderr lines when it has any. */
export class McpStartError extends Error {
  override name = 'McpStartError';
}

/** The server died or disconnected during a call. */
export class McpConnectionLost extends Error {
  override name = 'McpConnectionLost';
}

const CLIENT_CAPABILITIES = {};

function stderrTail(text: string, max = 600): string {
  const trimmed = text.trim();
  if (!trimmed) return '';
  const tail = trimmed.length > max ? `…${trimmed.slice(-max)}` : trimmed;
  return tail.replace(/\s*\n\s*/g, ' ⏎ ');
}

function toolInfo(tool: Tool): McpToolInfo {
  return {
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: (tool.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} },
    readOnly: tool.annotations?.readOnlyHint === true,
    title: tool.title ?? tool.annotations?.title ?? null,
  };
}

export class McpConnection {
  #client: InstanceType<Sdk['Client']> | null = null;
  #transport: Transport | null = null;
  #starting: Promise<void> | null = null;
  #closing = false;
  /** Why the last connection ended without being closed (the server exited, the stream broke). */
  #lost: string | null = null;
  #tools: McpToolInfo[] = [];
  /** A tool list being fetched after the server announced a change. */
  #refreshing: Promise<void> | null = null;
  readonly #listeners = new Set<(tools: McpToolInfo[]) => void>();
  /** Starts so far (1 after the first; each restart adds one). */
  starts = 0;

  constructor(
    readonly name: string,
    readonly launch: ResolvedLaunch,
    private readonly options: ConnectionOptions,
  ) {}

  get tools(): readonly McpToolInfo[] {
    return this.#tools;
  }

  get connected(): boolean {
    return this.#client !== null;
  }

  /** Running or starting, and not being stopped: worth keeping for another run tree. */
  get live(): boolean {
    return !this.#closing && (this.#client !== null || this.#starting !== null);
  }

  /** Told whenever the server's tool list changes (`tools/list_changed`, or a restart that lists other tools). */
  onToolsChanged(listener: (tools: McpToolInfo[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Connects and lists the tools; once for any number of callers. Rejects with McpStartError. */
  start(): Promise<void> {
    if (this.#client) return Promise.resolve();
    this.#starting ??= this.#start().finally(() => {
      this.#starting = null;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    if (this.#closing) throw new McpStartError('the run that used it has ended');
    // A stdio server is spawned before the SDK is evaluated (the first time, tens of milliseconds): its start overlaps that.
    const sdkLoading = loadSdk();
    const framing = sdkLoading.then(({ ReadBuffer, serializeMessage }) => ({ ReadBuffer, serializeMessage }));
    const stdio = () => new GroupStdioTransport({ command: this.launch.command!, args: this.launch.args, cwd: this.launch.cwd, env: { ...childEnv(), ...this.launch.env } }, framing);
    let early: GroupStdioTransport | null = null;
    if (this.launch.transport === 'stdio') {
      early = stdio();
      // A spawn that fails is reported by connect(), which waits for the same spawn.
      early.spawn().catch(() => undefined);
    }
    const { Client, acceptingValidator } = await sdkLoading;
    const deadline = Date.now() + this.options.startupTimeoutMs;
    const left = () => Math.max(1, deadline - Date.now());
    // The SDK's own request timeouts are set past ours, so the message a user sees names the setting.
    const sdkTimeout = () => left() + 1000;
    const attempts = this.launch.transport === 'http' && this.launch.sseFallback ? ['http', 'sse'] : [this.launch.transport];
    let failure: McpStartError | null = null;
    for (const transportKind of attempts) {
      const client = new Client(this.options.clientInfo, {
        capabilities: CLIENT_CAPABILITIES,
        jsonSchemaValidator: acceptingValidator,
        listChanged: {
          // Listed here, not by the SDK, so a call that made the server change its tools returns after the new list is in.
          tools: { autoRefresh: false, debounceMs: 0, onChanged: () => this.#refreshTools(client) },
        },
      });
      const transport = transportKind === 'stdio' ? (early ?? stdio()) : await this.#remoteTransport(transportKind as 'http' | 'sse');
      early = null;
      try {
        await withTimeout(client.connect(transport, { timeout: sdkTimeout() }), left(), () => this.#timeoutMessage());
        const tools = await withTimeout(this.#listAll(client, sdkTimeout), left(), () => this.#timeoutMessage());
        this.#client = client;
        this.#transport = transport;
        this.#lost = null;
        this.starts++;
        client.onclose = () => this.#onClosed(client, transport);
        this.#setTools(tools);
        return;
      } catch (error) {
        await client.close().catch(() => undefined);
        await transport.close().catch(() => undefined);
        failure = new McpStartError(this.#startFailure(error, transport));
      }
    }
    throw failure ?? new McpStartError('it could not be started');
  }

  async #remoteTransport(kind: 'http' | 'sse'): Promise<Transport> {
    const { StreamableHTTPClientTransport, SSEClientTransport } = await loadSdk();
    const url = new URL(this.launch.url!);
    const requestInit: RequestInit = { headers: this.launch.headers };
    return kind === 'http' ? new StreamableHTTPClientTransport(url, { requestInit }) : new SSEClientTransport(url, { requestInit });
  }

  async #listAll(client: InstanceType<Sdk['Client']>, left: () => number): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: left() });
      tools.push(...page.tools.map(toolInfo));
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  #timeoutMessage(): string {
    return `it did not finish starting within ${Math.round(this.options.startupTimeoutMs / 1000)} s (subagents.mcp.startupTimeoutSeconds)`;
  }

  #startFailure(error: unknown, transport: Transport): string {
    let message = error instanceof Error ? error.message : String(error);
    if (transport instanceof GroupStdioTransport) {
      // After a timeout the exit is ours (we stopped it); otherwise it is the reason.
      const exit = error instanceof StartTimeout ? null : transport.exit;
      if (exit) message = exit.signal ? `it was ended by ${exit.signal}` : `it exited with code ${exit.code}`;
      if (/connection closed/i.test(message) && !exit) message = 'it closed its output before answering';
      const tail = stderrTail(transport.stderrTail);
      if (tail) message += `; its stderr: ${tail}`;
    } else if (this.launch.url) {
      message = `${this.launch.url}: ${message}`;
      if ((error as { code?: unknown }).code === 401 || /\b401\b|unauthorized/i.test(message)) {
        message += ' (the server asks for sign-in, which subagents does not do: give its token in the file\'s headers, or in VS Code declare the server in .vscode/mcp.json, whose sign-in VS Code handles)';
      }
    }
    return message;
  }

  #onClosed(client: InstanceType<Sdk['Client']>, transport: Transport): void {
    if (this.#client !== client) return;
    this.#client = null;
    this.#transport = null;
    if (this.#closing) return;
    let why = 'the connection closed';
    if (transport instanceof GroupStdioTransport) {
      const exit = transport.exit;
      why = exit ? (exit.signal ? `the server was ended by ${exit.signal}` : `the server exited with code ${exit.code}`) : 'the server closed its output';
      const tail = stderrTail(transport.stderrTail, 300);
      if (tail) why += ` (stderr: ${tail})`;
      // What it started may still run in its group.
      void transport.close();
    }
    this.#lost = why;
  }

  /** A `tools/list_changed` notification: lists again (the calls in flight wait for it, see call()). */
  #refreshTools(client: InstanceType<Sdk['Client']>): void {
    if (this.#client !== client) return;
    const limit = () => this.options.startupTimeoutMs;
    const refresh = this.#listAll(client, limit)
      .then((tools) => {
        if (this.#client === client) this.#setTools(tools);
      })
      .catch(() => undefined)
      .finally(() => {
        if (this.#refreshing === refresh) this.#refreshing = null;
      });
    this.#refreshing = refresh;
  }

  #setTools(tools: McpToolInfo[]): void {
    const before = JSON.stringify(this.#tools);
    this.#tools = tools;
    if (JSON.stringify(tools) === before) return;
    for (const listener of this.#listeners) listener(tools);
  }

  /**
   * Calls a tool; a connection the server dropped is started again first.
   * Rejects with McpConnectionLost when the server dies during the call, and
   * with the SDK's McpError for a timeout or a protocol error.
   */
  async call(tool: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<CallToolResult> {
    if (!this.#client) {
      const why = this.#lost;
      try {
        await this.start();
      } catch (error) {
        throw new McpStartError(`${why ? `${why}, and restarting it failed: ` : 'it could not be started: '}${(error as Error).message}`);
      }
    }
    const client = this.#client!;
    try {
      const result = (await client.callTool({ name: tool, arguments: args }, undefined, { signal: options.signal, timeout: options.timeoutMs })) as CallToolResult;
      // The server announces a change before it answers: the agent's next turn sees the new tools.
      await this.#refreshing;
      return result;
    } catch (error) {
      if (this.#client !== client && !options.signal.aborted) throw new McpConnectionLost(`${this.#lost ?? 'the connection closed'} during the call`);
      throw error;
    }
  }

  /** Stops the server (and whatever it started); idempotent. */
  async close(): Promise<void> {
    this.#closing = true;
    const starting = this.#starting;
    if (starting) await starting.catch(() => undefined);
    const client = this.#client;
    const transport = this.#transport;
    this.#client = null;
    this.#transport = null;
    if (client) await client.close().catch(() => undefined);
    if (transport) await transport.close().catch(() => undefined);
  }
}

class StartTimeout extends Error {
  override name = 'StartTimeout';
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StartTimeout(message())), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
