/**
 * A scripted Anthropic Messages API server for the project's own tests and
 * benchmarks: real HTTP + SSE on 127.0.0.1, so the real SDK client runs
 * against it through its `baseURL`. Scripts decide what the "model" answers
 * from the request they get (system prompt, tools, history), which keeps them
 * stateless and makes retries and parallel agents deterministic.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';

export interface ToolUseSpec {
  name: string;
  input: unknown;
  id?: string;
  /** Streamed verbatim as the call's `partial_json` instead of `input` (to send input that is not valid JSON). */
  rawInput?: string;
}

/** What the model answers for one request. */
export type Reply =
  | {
      text?: string;
      toolUses?: ToolUseSpec[];
      /** Defaults to `tool_use` when there are tool uses, else `end_turn`. */
      stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence';
      /** Thinking text emitted before the answer. */
      thinking?: string;
      /** Delay before the response starts (simulated latency). */
      delayMs?: number;
      /** Delay between stream events. */
      chunkDelayMs?: number;
    }
  | { error: { status: number; type: string; message: string; headers?: Record<string, string> }; delayMs?: number }
  /** Start streaming, send `afterEvents` SSE events, then cut the connection. */
  | { drop: { afterEvents: number }; delayMs?: number }
  /** Start streaming, then send an in-stream `error` event (as the API does when overloaded mid-stream). */
  | { streamError: { type: string; message: string; afterEvents: number } }
  /** Never answer (until the client aborts). */
  | { hang: true }
  /** Send the headers and `afterEvents` SSE events, then nothing more, keeping the connection open. */
  | { stall: { afterEvents: number } }
  /** Send the headers, then a text delta every `everyMs` for ever (until the client aborts). */
  | { trickle: { everyMs: number } };

export interface ScriptedRequest {
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  model: string;
  /** All system text blocks joined. */
  system: string;
  toolNames: string[];
  tools: Array<Record<string, unknown>>;
  messages: Array<{ role: string; content: unknown }>;
  /** Number of assistant messages in the history: 0 for the first turn. */
  turn: number;
  /** Text of the last user message (text blocks only). */
  lastUserText: string;
  /** Tool results in the last user message, by tool_use_id. */
  toolResults: Map<string, { content: string; isError: boolean }>;
  /** How many times a request with the same system prompt and turn was seen before (for fault injection). */
  attempt: number;
  stream: boolean;
}

export type Script = (req: ScriptedRequest) => Reply | Promise<Reply>;

export interface ScriptedServer {
  url: string;
  requests: ScriptedRequest[];
  /** Most requests in flight at the same time since start (or since resetStats). */
  maxInFlight: number;
  inFlight: number;
  setScript(script: Script): void;
  resetStats(): void;
  close(): Promise<void>;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: string }) => (b?.type === 'text' ? (b.text ?? '') : ''))
    .filter(Boolean)
    .join('\n');
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return textOf(content);
}

/** A rough token count: what the tests need is a stable, size-proportional number. */
function tokensOf(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? '').length / 4));
}

/**
 * Prompt caching the way the API does it, simplified: each `cache_control`
 * breakpoint names a prefix (tools, system, messages up to that block). A
 * prefix seen before is a cache read; the part up to the last breakpoint that
 * was not cached is a cache write; the rest is plain input.
 */
class PromptCache {
  #seen = new Set<string>();

  account(body: Record<string, unknown>): { input: number; cacheRead: number; cacheWrite: number } {
    const prefixes: Array<{ hash: string; tokens: number }> = [];
    const hash = createHash('sha1');
    let chars = 0;
    const tools = (body.tools as Array<Record<string, unknown>> | undefined) ?? [];
    const system = body.system;
    const messages = (body.messages as Array<{ role: string; content: unknown }>) ?? [];
    // One pass: a running hash and length; each breakpoint digests a copy.
    // The cache keys on content, not on where the markers sit: they are stripped.
    const mark = (part: unknown, hasBreakpoint: boolean) => {
      const json = JSON.stringify(part ?? null, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
      hash.update(json);
      chars += json.length;
      if (hasBreakpoint) prefixes.push({ hash: hash.copy().digest('hex'), tokens: Math.ceil(chars / 4) });
    };
    for (const tool of tools) mark(tool, Boolean(tool.cache_control));
    if (Array.isArray(system)) for (const block of system) mark(block, Boolean(block?.cache_control));
    else if (system) mark(system, false);
    for (const message of messages) {
      if (Array.isArray(message.content)) {
        for (const block of message.content) mark([message.role, block], Boolean(block?.cache_control));
      } else mark([message.role, message.content], false);
    }
    const total = Math.max(1, Math.ceil(chars / 4));
    let cacheRead = 0;
    for (const prefix of prefixes) if (this.#seen.has(prefix.hash)) cacheRead = prefix.tokens;
    const last = prefixes.at(-1);
    const cacheWrite = last && last.tokens > cacheRead ? last.tokens - cacheRead : 0;
    for (const prefix of prefixes) this.#seen.add(prefix.hash);
    return { input: Math.max(0, total - cacheRead - cacheWrite), cacheRead, cacheWrite };
  }
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ScriptedServerOptions {
  record?: boolean;
  port?: number;
  /**
   * The only keys it takes (bearer token or `x-api-key`), as the API does: any other gets a
   * 401 `authentication_error` on every route. Unset: any key.
   */
  acceptKeys?: readonly string[];
}

export async function startScriptedServer(initial?: Script, options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  let script: Script = initial ?? (() => ({ text: 'ok' }));
  const attempts = new Map<string, number>();
  const cache = new PromptCache();
  const sockets = new Set<Socket>();

  const state: ScriptedServer = {
    url: '',
    requests: [],
    maxInFlight: 0,
    inFlight: 0,
    setScript(s) {
      script = s;
    },
    resetStats() {
      state.requests.length = 0;
      state.maxInFlight = state.inFlight;
      attempts.clear();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    // The SDK sends the key as a bearer token; older clients as x-api-key.
    const apiKey = String(req.headers['x-api-key'] ?? req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (options.acceptKeys && !options.acceptKeys.includes(apiKey)) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
      return;
    }
    // The models listing (what a key check asks for): no models of its own, so callers keep their configured ones.
    if (req.method === 'GET' && req.url?.startsWith('/v1/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [], has_more: false, first_id: null, last_id: null }));
      return;
    }
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${req.url}` } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const messages = (body.messages as ScriptedRequest['messages']) ?? [];
    const system = Array.isArray(body.system) ? textOf(body.system) : String(body.system ?? '');
    const tools = (body.tools as Array<Record<string, unknown>>) ?? [];
    const last = messages.at(-1);
    const toolResults = new Map<string, { content: string; isError: boolean }>();
    if (last && Array.isArray(last.content)) {
      for (const block of last.content as Array<Record<string, unknown>>) {
        if (block.type === 'tool_result') {
          toolResults.set(String(block.tool_use_id), { content: toolResultText(block.content), isError: block.is_error === true });
        }
      }
    }
    const turn = messages.filter((m) => m.role === 'assistant').length;
    const key = `${createHash('sha1').update(system).digest('hex')}:${turn}:${JSON.stringify(last ?? null).length}`;
    const attempt = attempts.get(key) ?? 0;
    attempts.set(key, attempt + 1);
    const request: ScriptedRequest = {
      body,
      headers: req.headers,
      model: String(body.model),
      system,
      tools,
      toolNames: tools.map((t) => String(t.name ?? t.type)),
      messages,
      turn,
      lastUserText: last?.role === 'user' ? textOf(last.content) : '',
      toolResults,
      attempt,
      stream: body.stream === true,
    };
    if (options.record !== false) state.requests.push(request);

    const reply = await script(request);
    if ('delayMs' in reply && reply.delayMs) await sleep(reply.delayMs);
    if ('hang' in reply) {
      await new Promise<void>((resolve) => req.socket.once('close', resolve));
      return;
    }
    if ('error' in reply) {
      res.writeHead(reply.error.status, { 'content-type': 'application/json', 'retry-after-ms': '5', ...reply.error.headers });
      res.end(JSON.stringify({ type: 'error', error: { type: reply.error.type, message: reply.error.message } }));
      return;
    }

    const usage = cache.account(body);
    const id = `msg_${randomBytes(8).toString('hex')}`;
    const blocks: Array<Record<string, unknown>> = [];
    const spec = 'drop' in reply || 'streamError' in reply || 'stall' in reply || 'trickle' in reply ? { text: 'partial answer that never finishes' } : reply;
    if (spec.thinking) blocks.push({ type: 'thinking', thinking: spec.thinking, signature: 'sig' });
    if (spec.text) blocks.push({ type: 'text', text: spec.text });
    for (const use of spec.toolUses ?? []) {
      blocks.push({ type: 'tool_use', id: use.id ?? `toolu_${randomBytes(8).toString('hex')}`, name: use.name, input: use.input, rawInput: use.rawInput });
    }
    const stopReason = spec.stopReason ?? (spec.toolUses?.length ? 'tool_use' : 'end_turn');
    const outputTokens = tokensOf(blocks);
    const message = {
      id,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: blocks.map(({ rawInput: _, ...block }) => block),
      stop_reason: stopReason,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        output_tokens: outputTokens,
        cache_creation_input_tokens: usage.cacheWrite,
        cache_read_input_tokens: usage.cacheRead,
      },
    };

    if (!request.stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${id}` });
      res.end(JSON.stringify(message));
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` });
    const events: Array<[string, unknown]> = [];
    events.push(['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } }]);
    blocks.forEach((block, index) => {
      if (block.type === 'text') {
        events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
        const text = String(block.text);
        for (let i = 0; i < text.length; i += 24) {
          events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: text.slice(i, i + 24) } }]);
        }
      } else if (block.type === 'thinking') {
        events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }]);
        events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } }]);
        events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'sig' } }]);
      } else {
        events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }]);
        const json = (block.rawInput as string | undefined) ?? JSON.stringify(block.input ?? {});
        for (let i = 0; i < json.length; i += 32) {
          events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(i, i + 32) } }]);
        }
      }
      events.push(['content_block_stop', { type: 'content_block_stop', index }]);
    });
    events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } }]);
    events.push(['message_stop', { type: 'message_stop' }]);

    if ('trickle' in reply) {
      for (const [event, data] of events.slice(0, 2)) sse(res, event, data);
      while (!res.destroyed) {
        sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '.' } });
        await sleep(reply.trickle.everyMs);
      }
      return;
    }
    if ('stall' in reply) {
      for (const [event, data] of events.slice(0, reply.stall.afterEvents)) sse(res, event, data);
      await new Promise<void>((resolve) => req.socket.once('close', resolve));
      return;
    }
    const cutAt = 'drop' in reply ? reply.drop.afterEvents : 'streamError' in reply ? reply.streamError.afterEvents : Infinity;
    const chunkDelay = 'chunkDelayMs' in reply ? (reply.chunkDelayMs ?? 0) : 0;
    for (let i = 0; i < events.length; i++) {
      if (i === cutAt) {
        if ('streamError' in reply) {
          sse(res, 'error', { type: 'error', error: { type: reply.streamError.type, message: reply.streamError.message } });
          res.end();
        } else {
          // Let what was written reach the client first, so it sees a stream that started and then broke.
          await sleep(25);
          res.socket?.destroy();
        }
        return;
      }
      const [event, data] = events[i]!;
      sse(res, event, data);
      if (chunkDelay) await sleep(chunkDelay);
    }
    res.end();
  }

  const server: Server = createServer((req, res) => {
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      state.inFlight--;
    };
    res.once('close', done);
    handle(req, res).catch((error: unknown) => {
      // A broken script is a 400 (not retried), so a test bug fails loudly instead of hiding behind retries.
      if (!res.headersSent) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: `script failed: ${String(error)}` } }));
      } else res.destroy();
    });
  });
  server.keepAliveTimeout = 1000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

