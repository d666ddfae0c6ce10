import { spawn, type ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { processGroups, signalGroup, unwatchGroup, watchGroup } from './reaper';

/**
 * The stdio transport of an MCP server: the SDK's own framing and message
 * parsing (`ReadBuffer`, `serializeMessage`), around a process started the
 * way this runtime must start it, which the SDK's StdioClientTransport does
 * not allow: in a process group of its own (stopped as a whole, registered
 * with the watchdog in reaper.ts), with stderr kept (its tail explains a
 * server that fails), and an exit that reports its code and signal.
 * Stopping: close stdin (the protocol's way), then SIGTERM to the group,
 * then SIGKILL, a short grace between each.
 */

export interface StdioLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The SDK's stdio framing, loaded with the SDK (see sdk.ts). */
export interface StdioFraming {
  ReadBuffer: new () => { append(chunk: Buffer): void; readMessage(): JSONRPCMessage | null; clear(): void };
  serializeMessage(message: JSONRPCMessage): string;
}

const STDERR_TAIL = 4000;
const CLOSE_GRACE_MS = 1000;

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #child: ChildProcess | null = null;
  #stderr = '';
  #exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  #exited: Promise<void> | null = null;
  #spawned: Promise<void> | null = null;
  #framing: StdioFraming | null = null;
  #buffer: InstanceType<StdioFraming['ReadBuffer']> | null = null;
  /** Output that came before the framing did (never, in practice: a server speaks when spoken to). */
  readonly #early: Buffer[] = [];

  /**
   * `framing` may still be loading (the SDK, evaluated the first time a
   * server starts): the process is spawned at once, so its own start
   * overlaps that evaluation.
   */
  constructor(
    private readonly launch: StdioLaunch,
    private readonly framing: StdioFraming | Promise<StdioFraming>,
  ) {}

  /** The last few thousand characters the server wrote to stderr. */
  get stderrTail(): string {
    return this.#stderr;
  }

  /** How the process ended, once it has. */
  get exit(): { code: number | null; signal: NodeJS.Signals | null } | null {
    return this.#exit;
  }

  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /** Starts the process (once); start() waits for it and for the framing. */
  spawn(): Promise<void> {
    this.#spawned ??= this.#spawn();
    return this.#spawned;
  }

  async start(): Promise<void> {
    await this.spawn();
    this.#framing = await this.framing;
    this.#read();
  }

  /** Frames what the server wrote so far into messages. */
  #read(chunk?: Buffer): void {
    if (chunk) this.#early.push(chunk);
    if (!this.#framing) return;
    this.#buffer ??= new this.#framing.ReadBuffer();
    try {
      for (const early of this.#early.splice(0)) this.#buffer.append(early);
      for (let message = this.#buffer.readMessage(); message; message = this.#buffer.readMessage()) this.onmessage?.(message);
    } catch (error) {
      // A line that is not JSON-RPC: the server broke the protocol.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #spawn(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.launch.command, this.launch.args, {
        cwd: this.launch.cwd,
        env: this.launch.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: processGroups,
        shell: false,
        windowsHide: true,
      });
      this.#child = child;
      let spawned = false;
      this.#exited = new Promise((done) => child.once('close', () => done()));
      child.once('error', (error: NodeJS.ErrnoException) => {
        const message = error.code === 'ENOENT' ? `command not found: ${this.launch.command}` : error.code === 'EACCES' ? `not allowed to run ${this.launch.command}` : error.message;
        const failure = new Error(message);
        if (!spawned) reject(failure);
        else this.onerror?.(failure);
      });
      child.once('spawn', () => {
        spawned = true;
        if (child.pid) watchGroup(child.pid);
        resolve();
      });
      child.once('close', (code, signal) => {
        // Still watched: what the server started may live on in its group until close() stops it.
        this.#exit = { code, signal };
        this.#buffer?.clear();
        this.onclose?.();
      });
      child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk));
      child.stderr?.setEncoding('utf8').on('data', (text: string) => {
        this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL);
      });
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on('error', (error) => this.onerror?.(error));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (!stdin || this.#exit || stdin.destroyed) {
        reject(new Error('the server is not running'));
        return;
      }
      if (!this.#framing) {
        reject(new Error('the server is not started'));
        return;
      }
      if (stdin.write(this.#framing.serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (!child || !this.#exited) return;
    const pid = child.pid;
    const waitExit = (ms: number) => Promise.race([this.#exited!.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // Already closed.
    }
    if (pid && !this.#exit) {
      if (!(await waitExit(CLOSE_GRACE_MS))) {
        signalGroup(pid, 'SIGTERM');
        if (!(await waitExit(CLOSE_GRACE_MS))) {
          signalGroup(pid, 'SIGKILL');
          await waitExit(CLOSE_GRACE_MS);
        }
      }
    }
    // The leader may be gone while what it started lives on in its group.
    if (pid && processGroups && signalGroup(pid, 'SIGTERM')) {
      await new Promise((r) => setTimeout(r, 200).unref());
      signalGroup(pid, 'SIGKILL');
    }
    if (pid) unwatchGroup(pid);
  }
}
