// A language client for tests and the benchmark: starts `node dist/server.js
// --stdio` and speaks LSP to it over its standard streams, as an editor does
// (initialize, answers workspace/configuration, opens and edits documents,
// collects published diagnostics).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  ErrorCodes,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type CodeAction,
  type CompletionItem,
  type CompletionList,
  type Diagnostic,
  type Hover,
  type Location,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';

export const SERVER_JS = path.resolve(import.meta.dirname, '../../dist/server.js');

export interface LspClientOptions {
  /** Workspace folders (absolute paths). */
  folders: string[];
  /** HOME of the server process: keeps the machine's own ~/.claude out of the test. */
  home: string;
  /** Answers to workspace/configuration for the `subagents` section. */
  settings?: Record<string, unknown>;
  initializationOptions?: Record<string, unknown>;
  /** Whether the client says it tracks workspace folders (default true; some editors do not). */
  workspaceFolders?: boolean;
  /** More environment for the server process (XDG_CACHE_HOME, where the MCP status cache is). */
  env?: NodeJS.ProcessEnv;
}

export function uriOf(filePath: string): string {
  return pathToFileURL(filePath).href;
}

export class LspClient {
  readonly published = new Map<string, PublishDiagnosticsParams[]>();
  private readonly waiters = new Set<() => void>();
  private versions = new Map<string, number>();
  private stderr = '';
  /** When set, workspace/configuration requests fail with this message (a busy or limited client). */
  configurationError: string | null = null;
  /** How many workspace/configuration requests the server has made. */
  configurationRequests = 0;

  private constructor(
    private readonly child: ChildProcess,
    readonly connection: ProtocolConnection,
    private settings: Record<string, unknown>,
  ) {
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      const list = this.published.get(params.uri) ?? [];
      list.push(params);
      this.published.set(params.uri, list);
      for (const wake of [...this.waiters]) wake();
    });
    connection.onRequest('workspace/configuration', (params: { items: unknown[] }) => {
      this.configurationRequests++;
      if (this.configurationError) throw new ResponseError(ErrorCodes.InternalError, this.configurationError);
      return params.items.map(() => this.settings);
    });
    connection.onRequest('client/registerCapability', () => null);
    connection.onNotification('window/logMessage', () => undefined);
    connection.listen();
  }

  static async start(options: LspClientOptions): Promise<LspClient> {
    const child = spawn(process.execPath, [SERVER_JS, '--stdio'], {
      env: { ...process.env, HOME: options.home, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const client = new LspClient(child, connection, options.settings ?? {});
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: options.folders[0] ? uriOf(options.folders[0]) : null,
      workspaceFolders: options.folders.map((f) => ({ uri: uriOf(f), name: path.basename(f) })),
      capabilities: {
        workspace: { configuration: true, workspaceFolders: options.workspaceFolders ?? true, didChangeConfiguration: { dynamicRegistration: true } },
        textDocument: {
          publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true },
          completion: { completionItem: { documentationFormat: ['markdown', 'plaintext'] } },
          hover: { contentFormat: ['markdown', 'plaintext'] },
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } },
        },
      },
      initializationOptions: options.initializationOptions,
    });
    await connection.sendNotification('initialized', {});
    return client;
  }

  /** Whether the server process is still running. */
  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get serverErrors(): string {
    return this.stderr;
  }

  /** Opens a file with the given text (by default what is on disk). */
  async open(filePath: string, text = readFileSync(filePath, 'utf8')): Promise<string> {
    const uri = uriOf(filePath);
    this.versions.set(uri, 1);
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'markdown', version: 1, text } });
    return uri;
  }

  /** Replaces the whole text of an open document. */
  async replace(uri: string, text: string): Promise<number> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
    return version;
  }

  /** An incremental edit: inserts `text` at a position. */
  async insert(uri: string, line: number, character: number, text: string): Promise<number> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    const at = { line, character };
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ range: { start: at, end: at }, text }] });
    return version;
  }

  async close(uri: string): Promise<void> {
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  async changeSettings(settings: Record<string, unknown>): Promise<void> {
    this.settings = settings;
    await this.connection.sendNotification('workspace/didChangeConfiguration', { settings: { subagents: settings } });
  }

  /** Waits for diagnostics of `uri` that satisfy `accept` (by default: any, for the latest version sent). */
  diagnostics(uri: string, accept: (d: Diagnostic[], p: PublishDiagnosticsParams) => boolean = () => true, timeoutMs = 30_000): Promise<Diagnostic[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const last = this.published.get(uri)?.at(-1);
        const current = this.versions.get(uri);
        if (last && (last.version === undefined || current === undefined || last.version === current) && accept(last.diagnostics, last)) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve(last.diagnostics);
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        const last = this.published.get(uri)?.at(-1);
        reject(new Error(`no matching diagnostics for ${uri} within ${timeoutMs} ms; last: ${JSON.stringify(last?.diagnostics.map((d) => d.message))}${this.stderr ? `\nserver stderr: ${this.stderr}` : ''}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  async completion(uri: string, line: number, character: number): Promise<CompletionItem[]> {
    const result = (await this.connection.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line, character } })) as CompletionItem[] | CompletionList | null;
    return Array.isArray(result) ? result : (result?.items ?? []);
  }

  hover(uri: string, line: number, character: number): Promise<Hover | null> {
    return this.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line, character } });
  }

  async definition(uri: string, line: number, character: number): Promise<Location[]> {
    const result = (await this.connection.sendRequest('textDocument/definition', { textDocument: { uri }, position: { line, character } })) as Location | Location[] | null;
    return result === null ? [] : Array.isArray(result) ? result : [result];
  }

  codeActions(uri: string, diagnostics: Diagnostic[]): Promise<CodeAction[]> {
    const range = diagnostics[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    return this.connection.sendRequest('textDocument/codeAction', { textDocument: { uri }, range, context: { diagnostics } });
  }

  /** shutdown + exit, then waits for the process to end (kills it after 5 s). */
  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      try {
        await Promise.race([this.connection.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 5000))]);
        await this.connection.sendNotification('exit');
      } catch {
        // the process may already be gone
      }
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    this.connection.dispose();
  }
}
