import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { appendLog, readLog, type LogFormat, type WriteOptions } from '../persistence';

/**
 * Per-agent transcripts: the conversation as sent to the model, one
 * message per NDJSON line after a header line, append-only, so a follow-up
 * can continue the agent with its full history (persistence.ts: each
 * append whole or not at all, retried; what cannot be read back is named).
 */

function message(value: unknown): BetaMessageParam {
  const m = value as { role?: unknown; content?: unknown } | null;
  if (typeof m !== 'object' || m === null || (m.role !== 'user' && m.role !== 'assistant') || (typeof m.content !== 'string' && !Array.isArray(m.content))) {
    throw new Error('not a message of the conversation');
  }
  return m as BetaMessageParam;
}

export const TRANSCRIPT_FORMAT: LogFormat<BetaMessageParam> = {
  what: 'transcript',
  kind: 'transcript',
  version: 1,
  // Version 0: the same lines without a header (transcripts written before the header existed).
  readers: { 0: message, 1: message },
};

export interface TranscriptRead {
  messages: BetaMessageParam[];
  /** Parts of the file that could not be read, each naming its line and why. */
  problems: string[];
}

export class TranscriptStore {
  readonly #dir: string;
  readonly #options: WriteOptions;
  /** Serialises appends per agent so lines never interleave. */
  readonly #tails = new Map<string, Promise<void>>();

  constructor(dir: string, options: WriteOptions = {}) {
    this.#dir = dir;
    this.#options = options;
  }

  path(agentId: string): string {
    return path.join(this.#dir, `${agentId}.ndjson`);
  }

  /** Appends messages after those appended before; rejects (a WriteFailed naming the file) when they could not be saved. */
  append(agentId: string, messages: readonly BetaMessageParam[]): Promise<void> {
    if (messages.length === 0) return this.#tails.get(agentId) ?? Promise.resolve();
    const previous = this.#tails.get(agentId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => appendLog(TRANSCRIPT_FORMAT, this.path(agentId), messages, this.#options));
    // The entry is the settled tail, not `next`: it is what the map holds, so the last append can find and drop it.
    const tail: Promise<void> = next.then(
      () => this.#settled(agentId, tail),
      () => this.#settled(agentId, tail),
    );
    this.#tails.set(agentId, tail);
    return next;
  }

  /** Agents with an append still in flight (each agent's map entry goes once its last append settles). */
  get pending(): number {
    return this.#tails.size;
  }

  #settled(agentId: string, tail: Promise<void>): void {
    if (this.#tails.get(agentId) === tail) this.#tails.delete(agentId);
  }

  /** The messages of an agent and what of its transcript could not be read; null when it has none. */
  async load(agentId: string): Promise<TranscriptRead | null> {
    await this.#tails.get(agentId);
    const read = await readLog(TRANSCRIPT_FORMAT, this.path(agentId));
    return read && { messages: read.entries, problems: read.problems };
  }

  /** The messages of an agent (what can be read), or null when it has no transcript. */
  async read(agentId: string): Promise<BetaMessageParam[] | null> {
    return (await this.load(agentId).catch(() => null))?.messages ?? null;
  }

  async remove(agentId: string): Promise<void> {
    await this.#tails.get(agentId);
    await rm(this.path(agentId), { force: true });
  }

  /** Waits for every pending append. */
  async flush(): Promise<void> {
    await Promise.all([...this.#tails.values()]);
  }
}
