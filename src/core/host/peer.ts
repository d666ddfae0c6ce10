import type { Duplex } from 'node:stream';
import type * as z from 'zod/mini';
import { cancelSchema, errorSchema, responseSchema, resultSchemas, type WireError } from '../../protocol/host';
import { AdmissionError } from '../engine/tree/admission';
import { EngineError } from '../engine/errors';

/**
 * One end of an agent-host connection: newline-delimited JSON over a
 * stream, requests with ids answered in any order, cancellation, and
 * notifications. Every message that arrives is checked against the side's
 * schema (src/protocol/host.ts) before anything acts on it; what does not
 * match is refused (a request) or dropped (anything else), and said in the
 * log. The same class serves both ends: the host's side of each client, and
 * a client's side of the host.
 */

/** A line longer than this is not a message of ours: the connection is closed rather than the memory spent. */
const MAX_LINE = 256 * 1024 * 1024;

type Method = keyof typeof resultSchemas;

/** An error that crosses the connection as what it is (admission refusal, engine error, …). */
export class HostError extends Error {
  override name = 'HostError';
  constructor(
    readonly wire: WireError,
    /** The connection ends once this error is answered (a bad token, another protocol). */
    readonly fatal = false,
  ) {
    super(wire.message);
  }
}

/** How an error thrown while handling a request is told to the other side. */
export function toWireError(error: unknown): WireError {
  if (error instanceof HostError) return error.wire;
  // By name: the host's runtime is another bundle (dist/engine.cjs), with its own copies of these classes.
  const name = error instanceof Error ? error.name : '';
  if (name === 'AdmissionError') return { code: 'admission', message: (error as Error).message, refusal: (error as AdmissionError).refusal };
  if (name === 'EngineError' || name === 'BusyElsewhereError') return { code: 'engine', message: (error as Error).message };
  if (name === 'AbortError') return { code: 'cancelled', message: 'The request was cancelled.' };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}

/** The error a request rejects with on the side that asked: the engine's own classes where they apply, so surfaces show them as they would in-process. */
export function fromWireError(wire: WireError): Error {
  if (wire.code === 'admission' && wire.refusal) return new AdmissionError(wire.refusal);
  if (wire.code === 'engine') return new EngineError(wire.message);
  return new HostError(wire);
}

/** What is wrong with a value, in words (zod/mini carries no messages of its own). */
function describeIssue(issue: { code?: string; message: string; expected?: unknown; values?: unknown[] }): string {
  if (issue.code === 'invalid_type') return `expected ${String(issue.expected)}`;
  if (issue.code === 'invalid_value' && issue.values) return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  if (issue.code === 'invalid_union') return 'matches none of the forms it may take';
  return issue.message;
}

/** A result encoded as JSON at the instant it is written (a snapshot that must match what was sent before it). */
export class Encoded {
  constructor(readonly encode: () => string) {}
}

/** What may arrive on one side, by kind of message: each a part of the protocol's one schema (hostMessageSchema). */
export interface IncomingSchemas {
  request: z.ZodMiniType;
  notify: z.ZodMiniType | null;
}

export interface PeerOptions {
  /** What may arrive on this side. */
  incoming: IncomingSchemas;
  /** Answers a request; `signal` aborts when the other side cancels it or the connection ends. */
  onRequest(method: string, params: unknown, signal: AbortSignal): Promise<unknown>;
  onNotification?(message: { topic: string } & Record<string, unknown>): void;
  onClose?(error: Error | null): void;
  /** Called just before an answer is written: what must arrive first goes out (the host's feed, so an answer never overtakes the changes before it). */
  beforeAnswer?(): void;
  log(level: 'warn' | 'error', message: string): void;
}

export class Peer {
  readonly #socket: Duplex;
  readonly #options: PeerOptions;
  readonly #pending = new Map<number, { method: Method; resolve(value: unknown): void; reject(error: Error): void; received?: (value: never) => void }>();
  readonly #handling = new Map<number, AbortController>();
  #nextId = 1;
  /** The start of a line still arriving, in pieces: joined once its newline comes, so a large message costs its length, not its length times its chunks. */
  #partial: string[] = [];
  #partialLength = 0;
  #closed = false;

  constructor(socket: Duplex, options: PeerOptions) {
    this.#socket = socket;
    this.#options = options;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.#data(chunk));
    socket.on('error', (error) => this.#close(error));
    socket.on('close', () => this.#close(null));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes written and not yet taken by the other side: how far behind it is. */
  get backlog(): number {
    return this.#socket.writableLength;
  }

  /**
   * Asks the other side. `received` sees the checked answer as it arrives, before any later message is handled (a
   * promise settles only after the rest of the chunk it came in): the place to apply a state a feed continues from.
   */
  request<M extends Method>(method: M, params: unknown, signal?: AbortSignal, received?: (result: z.infer<(typeof resultSchemas)[M]>) => void): Promise<z.infer<(typeof resultSchemas)[M]>> {
    if (this.#closed) return Promise.reject(new HostError({ code: 'unavailable', message: 'The connection to the agent host is closed.' }));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const abort = () => {
        if (!this.#pending.delete(id)) return;
        this.#write({ kind: 'cancel', id });
        reject(new HostError({ code: 'cancelled', message: 'The request was cancelled.' }));
      };
      if (signal?.aborted) return reject(new HostError({ code: 'cancelled', message: 'The request was cancelled.' }));
      signal?.addEventListener('abort', abort, { once: true });
      this.#pending.set(id, {
        method,
        ...(received ? { received } : {}),
        resolve: (value) => {
          signal?.removeEventListener('abort', abort);
          resolve(value as z.infer<(typeof resultSchemas)[M]>);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', abort);
          reject(error);
        },
      });
      this.#write({ kind: 'request', id, method, params });
    });
  }

  notify(message: Record<string, unknown>): void {
    this.#write({ kind: 'notify', ...message });
  }

  /** A message already encoded (the feed, encoded once for every client). */
  sendLine(line: string): void {
    if (this.#closed) return;
    this.#socket.write(`${line}\n`);
  }

  /** Resolves once what was written so far has been taken by the other side. */
  drained(): Promise<void> {
    if (this.#closed || this.#socket.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#socket.off('close', done);
        this.#socket.off('drain', done);
        resolve();
      };
      this.#socket.once('drain', done);
      this.#socket.once('close', done);
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#socket.end();
    this.#close(null);
  }

  #write(message: Record<string, unknown>): void {
    if (this.#closed) return;
    this.#socket.write(`${JSON.stringify(message)}\n`);
  }

  #data(chunk: string): void {
    let start = 0;
    for (let newline = chunk.indexOf('\n'); newline >= 0 && !this.#closed; newline = chunk.indexOf('\n', start)) {
      let line = chunk.slice(start, newline);
      if (this.#partial.length) {
        line = this.#partial.join('') + line;
        this.#partial = [];
        this.#partialLength = 0;
      }
      start = newline + 1;
      if (line.trim()) this.#message(line);
    }
    if (start >= chunk.length || this.#closed) return;
    this.#partial.push(start ? chunk.slice(start) : chunk);
    this.#partialLength += chunk.length - start;
    if (this.#partialLength > MAX_LINE) {
      this.#options.log('error', `A message of more than ${MAX_LINE} characters arrived; the connection is closed.`);
      this.#partial = [];
      this.#socket.destroy();
    }
  }

  #message(line: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.#options.log('warn', `Dropped a message that is not JSON: ${line.slice(0, 120)}`);
      return;
    }
    const kind = (raw as { kind?: unknown } | null)?.kind;
    const schema = kind === 'request' ? this.#options.incoming.request : kind === 'notify' ? this.#options.incoming.notify : kind === 'response' ? responseSchema : kind === 'cancel' ? cancelSchema : null;
    const parsed = schema ? schema.safeParse(raw) : ({ success: false, error: { issues: [{ path: ['kind'], message: `no such kind of message: ${String(kind)}` }] } } as const);
    if (!parsed.success) {
      const id = (raw as { kind?: unknown; id?: unknown })?.kind === 'request' ? (raw as { id?: unknown }).id : undefined;
      const what = `${String((raw as { kind?: unknown })?.kind)} ${String((raw as { method?: unknown; topic?: unknown })?.method ?? (raw as { topic?: unknown })?.topic ?? '')}`.trim();
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${describeIssue(i)}`).join('; ');
      this.#options.log('warn', `Dropped a message that does not match the protocol (${what}): ${issues}`);
      if (typeof id === 'number') this.#write({ kind: 'response', id, ok: false, error: { code: 'protocol', message: `Not a valid ${what} message: ${issues}` } });
      return;
    }
    const message = parsed.data as { kind: string; id?: number; method?: string; params?: unknown; ok?: boolean; result?: unknown; error?: unknown; topic?: string };
    switch (message.kind) {
      case 'request':
        return this.#handle(message.id!, message.method!, message.params);
      case 'response':
        return this.#settle(message.id!, message.ok === true, message.ok ? message.result : message.error);
      case 'cancel':
        this.#handling.get(message.id!)?.abort();
        return;
      case 'notify':
        try {
          this.#options.onNotification?.(message as { topic: string } & Record<string, unknown>);
        } catch (error) {
          this.#options.log('error', `Handling ${message.topic} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        }
        return;
    }
  }

  #handle(id: number, method: string, params: unknown): void {
    const controller = new AbortController();
    this.#handling.set(id, controller);
    void this.#options
      .onRequest(method, params, controller.signal)
      .then(
        (result) => ({ kind: 'response', id, ok: true as const, result: result ?? null }),
        (error: unknown) => ({ kind: 'response', id, ok: false as const, error: toWireError(error), fatal: error instanceof HostError && error.fatal }),
      )
      .then((response) => {
        this.#handling.delete(id);
        this.#options.beforeAnswer?.();
        if (response.ok && response.result instanceof Encoded) this.sendLine(`{"kind":"response","id":${id},"ok":true,"result":${response.result.encode()}}`);
        else this.#write(response.ok ? response : { kind: response.kind, id: response.id, ok: false, error: response.error });
        if (!response.ok && response.fatal) this.close();
      });
  }

  #settle(id: number, ok: boolean, value: unknown): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if (!ok) return pending.reject(fromWireError(errorSchema.parse(value)));
    const checked = resultSchemas[pending.method].safeParse(value);
    if (!checked.success) return pending.reject(new HostError({ code: 'protocol', message: `The ${pending.method} answer does not match the protocol: ${checked.error.issues[0]?.message ?? 'invalid'}` }));
    try {
      pending.received?.(checked.data as never);
    } catch (error) {
      return pending.reject(error instanceof Error ? error : new Error(String(error)));
    }
    pending.resolve(checked.data);
  }

  #close(error: Error | null): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const controller of this.#handling.values()) controller.abort();
    this.#handling.clear();
    const gone = new HostError({ code: 'unavailable', message: 'The connection to the agent host ended.' });
    for (const pending of this.#pending.values()) pending.reject(gone);
    this.#pending.clear();
    this.#options.onClose?.(error);
  }
}
