import { appendFile, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';

/**
 * Per-agent transcripts: the conversation as sent to the model, one
 * message per NDJSON line, append-only, so a follow-up can continue the
 * agent with its full history. A line cut short by a crash is ignored on
 * read; every line before it is intact.
 */
export class TranscriptStore {
  readonly #dir: string;
  #ready: Promise<unknown> | null = null;
  /** Serialises appends per agent so lines never interleave. */
  readonly #tails = new Map<string, Promise<void>>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  path(agentId: string): string {
    return path.join(this.#dir, `${agentId}.ndjson`);
  }

  append(agentId: string, messages: readonly BetaMessageParam[]): Promise<void> {
    if (messages.length === 0) return this.#tails.get(agentId) ?? Promise.resolve();
    const text = messages.map((m) => JSON.stringify(m)).join('\n') + '\n';
    const previous = this.#tails.get(agentId) ?? Promise.resolve();
    const next = previous
      .then(() => (this.#ready ??= mkdir(this.#dir, { recursive: true })))
      .then(() => appendFile(this.path(agentId), text, { mode: 0o600 }));
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

  /** The messages of an agent, or null when it has no transcript. */
  async read(agentId: string): Promise<BetaMessageParam[] | null> {
    await this.#tails.get(agentId);
    let text: string;
    try {
      text = await readFile(this.path(agentId), 'utf8');
    } catch {
      return null;
    }
    const messages: BetaMessageParam[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        messages.push(JSON.parse(line) as BetaMessageParam);
      } catch {
        // A line torn by a crash: everything before it is whole.
        break;
      }
    }
    return messages;
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
