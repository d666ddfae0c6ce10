import type { BetaContentBlock, BetaMessage, BetaRawMessageStreamEvent } from '@anthropic-ai/sdk/resources/beta/messages/messages';

/**
 * Builds the assistant message of one turn from the raw stream events.
 *
 * The SDK's `MessageStream` does the same, but treats a tool call whose
 * input is not valid JSON as a fatal stream error, which would end the agent
 * over one malformed call. Here such a call keeps an empty input and is
 * listed in `invalidInputs`, so the tool executor answers it with a tool
 * error the model can correct.
 */
export class MessageAccumulator {
  #message: BetaMessage | null = null;
  #stopped = false;
  /** Tool input JSON received so far, by content block index. */
  readonly #inputJson = new Map<number, string>();
  /** Tool calls whose input did not parse, by tool_use id: the parser's complaint. */
  readonly invalidInputs = new Map<string, string>();

  /** Adds one event; returns the text it added to the answer, if any (for live display). */
  add(event: BetaRawMessageStreamEvent): string | null {
    if (event.type === 'message_start') {
      this.#message = { ...event.message, content: [...event.message.content], usage: { ...event.message.usage } };
      return null;
    }
    const message = this.#message;
    if (!message) return null;
    switch (event.type) {
      case 'message_stop':
        this.#stopped = true;
        return null;
      case 'message_delta':
        // Counters are whole-message totals that are omitted when they do not apply: overwrite when present, never add.
        Object.assign(message, withoutNulls(event.delta as object), {
          stop_reason: event.delta.stop_reason,
          stop_sequence: event.delta.stop_sequence,
        });
        Object.assign(message.usage, withoutNulls(event.usage));
        if (event.context_management != null) message.context_management = event.context_management;
        return null;
      case 'content_block_start':
        message.content[event.index] = { ...event.content_block } as BetaContentBlock;
        return null;
      case 'content_block_delta':
        return this.#delta(message.content[event.index], event);
      case 'content_block_stop':
        this.#finishInput(message.content[event.index], event.index);
        return null;
      default:
        return null;
    }
  }

  #delta(block: BetaContentBlock | undefined, event: Extract<BetaRawMessageStreamEvent, { type: 'content_block_delta' }>): string | null {
    if (!block) return null;
    const delta = event.delta;
    const target = block as unknown as Record<string, unknown>;
    switch (delta.type) {
      case 'text_delta':
        target.text = `${(target.text as string | undefined) ?? ''}${delta.text}`;
        return delta.text;
      case 'input_json_delta':
        this.#inputJson.set(event.index, `${this.#inputJson.get(event.index) ?? ''}${delta.partial_json}`);
        return null;
      case 'citations_delta':
        target.citations = [...((target.citations as unknown[] | null | undefined) ?? []), delta.citation];
        return null;
      case 'thinking_delta':
        target.thinking = `${(target.thinking as string | undefined) ?? ''}${delta.thinking}`;
        return null;
      case 'signature_delta':
        target.signature = delta.signature;
        return null;
      default: {
        // Deltas that carry a block's final value (compaction, …): take their fields as they come.
        const { type: _, ...fields } = delta as { type: string };
        Object.assign(target, fields);
        return null;
      }
    }
  }

  #finishInput(block: BetaContentBlock | undefined, index: number): void {
    const json = this.#inputJson.get(index);
    if (!block || json === undefined || !('input' in block)) return;
    this.#inputJson.delete(index);
    if (json.trim() === '') return;
    try {
      (block as { input: unknown }).input = JSON.parse(json);
    } catch (error) {
      (block as { input: unknown }).input = {};
      if ('id' in block) this.invalidInputs.set(block.id, error instanceof Error ? error.message : String(error));
    }
  }

  /** The whole message; throws when the stream ended before `message_stop` (a connection cut short). */
  finish(): BetaMessage {
    if (!this.#message || !this.#stopped) throw new Error('The response stream ended without message_stop.');
    return this.#message;
  }
}

function withoutNulls(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined));
}
