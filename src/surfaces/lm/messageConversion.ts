import type { MessageParam, ContentBlockParam, Tool, ToolChoice, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';

/**
 * VS Code's language-model chat messages ⇄ the Anthropic Messages API, for
 * the chat provider. Parts are recognised by shape rather than with
 * `instanceof`, so this stays plain code with unit tests outside VS Code; the
 * part classes carry exactly these fields.
 *
 *   text part         { value: string }                 → text block
 *   tool call part    { callId, name, input }           → tool_use (assistant)
 *   tool result part  { callId, content: parts[] }      → tool_result (user)
 *   data part         { data: Uint8Array, mimeType }    → image (image/*) or text (JSON, text)
 */

export const ROLE_USER = 1;
export const ROLE_ASSISTANT = 2;

export interface RequestMessageLike {
  readonly role: number;
  readonly content: ReadonlyArray<unknown>;
}

export interface ToolLike {
  readonly name: string;
  readonly description: string;
  readonly inputSchema?: object | undefined;
}

type TextPart = { value: string };
type ToolCallPart = { callId: string; name: string; input: object };
type ToolResultPart = { callId: string; content: readonly unknown[] };
type DataPart = { data: Uint8Array; mimeType: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isText = (p: unknown): p is TextPart => isObject(p) && typeof p.value === 'string';
const isToolCall = (p: unknown): p is ToolCallPart => isObject(p) && typeof p.callId === 'string' && typeof p.name === 'string' && 'input' in p;
const isToolResult = (p: unknown): p is ToolResultPart => isObject(p) && typeof p.callId === 'string' && Array.isArray(p.content);
const isData = (p: unknown): p is DataPart => isObject(p) && p.data instanceof Uint8Array && typeof p.mimeType === 'string';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

function dataBlock(part: DataPart): ContentBlockParam | null {
  if (IMAGE_TYPES.has(part.mimeType)) {
    return { type: 'image', source: { type: 'base64', media_type: part.mimeType as 'image/png', data: Buffer.from(part.data).toString('base64') } };
  }
  // JSON and text data parts (and cache-control markers some callers send, which are not text) carry no image.
  if (part.mimeType.startsWith('text/') || part.mimeType.includes('json')) return { type: 'text', text: new TextDecoder().decode(part.data) };
  return null;
}

function toolResultText(content: readonly unknown[]): ToolResultBlockParam['content'] {
  const blocks: Array<{ type: 'text'; text: string }> = [];
  for (const part of content) {
    if (isText(part)) blocks.push({ type: 'text', text: part.value });
    else if (isData(part)) {
      const block = dataBlock(part);
      if (block?.type === 'text') blocks.push(block);
    } else if (isObject(part) && 'value' in part) blocks.push({ type: 'text', text: JSON.stringify(part.value) });
  }
  return blocks.length ? blocks : [{ type: 'text', text: '(no output)' }];
}

/** One VS Code message → the blocks of one Anthropic message; null for a part this API cannot carry. */
function blocksOf(message: RequestMessageLike): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  for (const part of message.content) {
    if (isToolCall(part)) blocks.push({ type: 'tool_use', id: part.callId, name: part.name, input: part.input });
    else if (isToolResult(part)) blocks.push({ type: 'tool_result', tool_use_id: part.callId, content: toolResultText(part.content) });
    else if (isText(part)) {
      if (part.value) blocks.push({ type: 'text', text: part.value });
    } else if (isData(part)) {
      const block = dataBlock(part);
      if (block) blocks.push(block);
    }
  }
  return blocks;
}

/**
 * The conversation as the Messages API wants it: roles alternate (consecutive
 * messages of one role are merged), it starts with a user turn, and tool
 * results come first in their user message.
 */
export function toAnthropicMessages(messages: readonly RequestMessageLike[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const message of messages) {
    const role = message.role === ROLE_ASSISTANT ? 'assistant' : 'user';
    const blocks = blocksOf(message);
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    if (last && last.role === role) (last.content as ContentBlockParam[]).push(...blocks);
    else out.push({ role, content: blocks });
  }
  for (const message of out) {
    if (message.role !== 'user') continue;
    const content = message.content as ContentBlockParam[];
    content.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
  }
  if (out[0]?.role === 'assistant') out.unshift({ role: 'user', content: [{ type: 'text', text: '(continue)' }] });
  return out;
}

export function toAnthropicTools(tools: readonly ToolLike[] | undefined): Tool[] | undefined {
  if (!tools?.length) return undefined;
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: (t.inputSchema && Object.keys(t.inputSchema).length ? t.inputSchema : { type: 'object', properties: {} }) as Tool['input_schema'],
  }));
}

/** VS Code's LanguageModelChatToolMode: 1 Auto, 2 Required. */
export function toolChoice(mode: number, tools: Tool[] | undefined): ToolChoice | undefined {
  if (!tools) return undefined;
  return mode === 2 ? { type: 'any' } : { type: 'auto' };
}

/**
 * A token estimate for VS Code's budgeting (about 4 characters a token for
 * English and code, as Anthropic's own guidance puts it). Exact counts need
 * a request to the API per call, and VS Code asks for every message of every
 * prompt it builds.
 */
export function estimateTokens(input: string | RequestMessageLike): number {
  if (typeof input === 'string') return Math.ceil(input.length / 4);
  let chars = 0;
  for (const part of input.content) {
    if (isText(part)) chars += part.value.length;
    else if (isToolCall(part)) chars += part.name.length + JSON.stringify(part.input).length;
    else if (isToolResult(part)) chars += JSON.stringify(toolResultText(part.content)).length;
    else if (isData(part)) chars += IMAGE_TYPES.has(part.mimeType) ? 6000 : part.data.byteLength;
  }
  // A few tokens of framing per message.
  return Math.ceil(chars / 4) + 4;
}
