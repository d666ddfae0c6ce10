import type {
  BetaContentBlock,
  BetaContentBlockParam,
  BetaMessageParam,
  BetaToolUnion,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { ThinkingLevel } from '../../agents/definition';
import type { TurnParams } from './turnStream';

/**
 * Builds each turn's request. Prompt caching: breakpoints on the last
 * tool, on the system prompt, and on the last block of each of the two most
 * recent user messages. The newest one writes the conversation so far to the
 * cache; the one before it reads what the previous turn wrote, so a
 * multi-turn agent pays full price for its prefix once (4 breakpoints, the
 * API's maximum).
 */

const EPHEMERAL = { type: 'ephemeral' } as const;

export interface TurnSpec {
  model: string;
  maxTokens: number;
  system: string;
  tools: BetaToolUnion[];
  messages: BetaMessageParam[];
  thinking: ThinkingLevel | null;
}

export function buildTurnParams(spec: TurnSpec): TurnParams {
  const tools = spec.tools.map((tool, i) => (i === spec.tools.length - 1 ? { ...tool, cache_control: EPHEMERAL } : tool));
  const params: TurnParams = {
    model: spec.model,
    max_tokens: spec.maxTokens,
    system: [{ type: 'text', text: spec.system, cache_control: EPHEMERAL }],
    messages: withCacheBreakpoints(spec.messages),
    ...(tools.length ? { tools: tools as BetaToolUnion[] } : {}),
  };
  const effort = effortOf(spec.thinking);
  if (effort) {
    params.thinking = { type: 'adaptive' };
    params.output_config = { effort };
  }
  return params;
}

function effortOf(level: ThinkingLevel | null): 'low' | 'medium' | 'high' | 'xhigh' | null {
  switch (level) {
    case null:
    case 'off':
      return null;
    case 'minimal':
    case 'low':
      return 'low';
    default:
      return level;
  }
}

export function withCacheBreakpoints(messages: BetaMessageParam[]): BetaMessageParam[] {
  const userIndexes = messages.flatMap((m, i) => (m.role === 'user' ? [i] : [])).slice(-2);
  return messages.map((message, i) => {
    if (message.role !== 'user') return message;
    // Always block form: a prefix must read the same whether or not it carries a marker this turn.
    const content: BetaContentBlockParam[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
    const last = content.at(-1);
    if (userIndexes.includes(i) && last && canCache(last)) {
      content[content.length - 1] = { ...last, cache_control: EPHEMERAL } as BetaContentBlockParam;
    }
    return { ...message, content };
  });
}

function canCache(block: BetaContentBlockParam): boolean {
  return block.type === 'text' || block.type === 'tool_result' || block.type === 'image' || block.type === 'document';
}

/** A response block as it goes back into the history. Server-tool blocks pass through as the API sent them. */
export function toParam(block: BetaContentBlock): BetaContentBlockParam {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    default:
      return block as unknown as BetaContentBlockParam;
  }
}

/** The text of a response's text blocks. */
export function textOf(content: readonly BetaContentBlock[]): string {
  return content
    .filter((b): b is Extract<BetaContentBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('');
}
