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
 * then SIGKILL, a short grace between each; the waits keep this process
 * alive (a run waits for them), and a group whose leader is gone while
 * what it started still holds the pipes is stopped all the same.
 *
 * A server that breaks the framing beyond repair (a message larger than the
 * SDK's buffer takes) is stopped at once, with the reason as its `fault`:
 * the calls waiting for it fail, rather than waiting for an answer that
 * was thrown away.
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
/** The SDK's read buffer holds at most this much of one message. */
const MAX_MESSAGE_MIB = 10;
const CLOSE_GRACE_MS = 1000;

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #child: ChildProcess | null = null;
  #stderr = '';
  /** How the server's own process ended (what it started may live on, holding its pipes). */
  #exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  #exited: Promise<void> | null = null;
  /** Its pipes closed: nothing more can come from it. */
  #closed = false;
  #fault: string | null = null;
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

  /** Why the transport stopped the server itself (it broke the framing), as "the server …" goes on; null if it did not. */
  get fault(): string | null {
    return this.#fault;
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
    if (this.#fault) return;
    if (chunk) this.#early.push(chunk);
    if (!this.#framing) return;
    const buffer = (this.#buffer ??= new this.#framing.ReadBuffer());
    for (const next of this.#early.splice(0)) {
      try {
        buffer.append(next);
      } catch {
        // More than the buffer takes without a line end: the message is lost, and with it the framing.
        this.#broken(`sent a message larger than ${MAX_MESSAGE_MIB} MiB (more than a tool result may be) and was stopped`);
        return;
      }
      try {
        for (let message = buffer.readMessage(); message; message = buffer.readMessage()) this.onmessage?.(message);
      } catch (error) {
        // A line that is not JSON-RPC: the server broke the protocol (the lines after it still frame).
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
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
      this.#exited = new Promise((done) => child.once('exit', () => done()));
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
      child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
      });
      child.once('close', (code, signal) => {
        // Still watched: what the server started may live on in its group until close() stops it.
        this.#exit ??= { code, signal };
        this.#closed = true;
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

  /** Stops a server that broke the framing; its connection closes, failing what waits for it. */
  #broken(reason: string): void {
    this.#fault = reason;
    this.#early.length = 0;
    this.#buffer?.clear();
    this.onerror?.(new Error(`the server ${reason}`));
    void this.close();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (!stdin || this.#closed || this.#fault || stdin.destroyed) {
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
    // Not unref'd: the run that closes the server waits for this, and nothing else may be keeping the process alive.
    const waitExit = (ms: number) => {
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([this.#exited!.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)))]).finally(() => clearTimeout(timer));
    };
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
      await new Promise((r) => setTimeout(r, 200));
      signalGroup(pid, 'SIGKILL');
    }
    if (pid) unwatchGroup(pid);
    // Whatever still holds the pipes (outside the group) no longer keeps them, or this process, open.
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
  }
}
