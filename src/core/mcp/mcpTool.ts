import type { BetaToolResultContentBlockParam } from '@anthropic-ai/sdk/resources/beta';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { externalTool } from '../../protocol/tools';
import { argumentsPreview } from '../tools/approvalPreview';
import { MAX_RESULT_CHARS, oneLine, ToolCallError, type RuntimeTool, type ToolOutput } from '../tools/runtimeTool';

/**
 * An MCP (or editor) tool as the engine runs it: the server's name and
 * schema under the model-facing name, read-only only when the server says so
 * (`readOnlyHint`), and its result turned into tool-result content the
 * Messages API takes, capped like every other tool's output.
 */

/** Where a tool comes from, for every surface that shows a call ("which server did this go to?"). */
export interface ToolOrigin {
  kind: 'mcp' | 'editor';
  /** The MCP server (or editor tool set) as the agent file names it. */
  server: string;
  /** The tool's own name on that server. */
  tool: string;
}

/** Images the API takes in a tool result. */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
/** Base64 of all images of one result; more are replaced by a note (an image is ~1.3 bytes per byte of base64). */
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;
/** Long tool descriptions are cut: they are sent with every request. */
const MAX_DESCRIPTION = 4000;

export function mcpInputSchema(schema: Record<string, unknown> | null): Record<string, unknown> {
  // The API wants an object schema; a server that sends none (or another type) gets an open object.
  if (!schema || schema.type !== 'object') return { type: 'object', properties: {}, ...(schema && typeof schema === 'object' ? { description: 'Arguments as the tool documents them.' } : {}) };
  return schema;
}

/** One line for a call: the arguments, `key=value`, the way a person scans them. */
export function summarizeArguments(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const parts = Object.entries(input as Record<string, unknown>).map(([key, value]) => `${key}=${typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value)}`);
  return oneLine(parts.join(' '), 120);
}

function cap(blocks: BetaToolResultContentBlockParam[]): BetaToolResultContentBlockParam[] {
  let chars = 0;
  let imageBytes = 0;
  const out: BetaToolResultContentBlockParam[] = [];
  for (const block of blocks) {
    if (block.type === 'text') {
      const room = MAX_RESULT_CHARS - chars;
      if (room <= 0) continue;
      const text = block.text.length > room ? `${block.text.slice(0, room)}\n[result truncated: ${block.text.length - room} more characters]` : block.text;
      chars += Math.min(block.text.length, room);
      out.push({ type: 'text', text });
    } else if (block.type === 'image' && block.source.type === 'base64') {
      imageBytes += block.source.data.length;
      out.push(imageBytes > MAX_IMAGE_BASE64 ? { type: 'text', text: '[image left out: the result holds more image data than a tool result may carry]' } : block);
    } else {
      out.push(block);
    }
  }
  return out;
}

/** A tool result (or the reason it failed) from what the server answered. */
export function mcpResultOutput(result: CallToolResult, label: string): ToolOutput {
  const blocks: BetaToolResultContentBlockParam[] = [];
  for (const item of result.content ?? []) {
    switch (item.type) {
      case 'text':
        blocks.push({ type: 'text', text: item.text });
        break;
      case 'image':
        blocks.push(
          IMAGE_TYPES.has(item.mimeType)
            ? { type: 'image', source: { type: 'base64', media_type: item.mimeType as 'image/png', data: item.data } }
            : { type: 'text', text: `[image of type ${item.mimeType} left out: the model takes JPEG, PNG, GIF and WebP]` },
        );
        break;
      case 'audio':
        blocks.push({ type: 'text', text: `[audio (${item.mimeType}) left out: the model does not take audio]` });
        break;
      case 'resource_link':
        blocks.push({ type: 'text', text: `[resource ${item.name}: ${item.uri}${item.description ? ` — ${item.description}` : ''}]` });
        break;
      case 'resource': {
        const resource = item.resource;
        blocks.push({ type: 'text', text: 'text' in resource ? resource.text : `[binary resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''} left out]` });
        break;
      }
      default:
        break;
    }
  }
  if (blocks.length === 0 && result.structuredContent !== undefined) blocks.push({ type: 'text', text: JSON.stringify(result.structuredContent, null, 2) });
  if (result.isError) {
    const text = blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n').trim();
    throw new ToolCallError(`${label} reported an error: ${text.slice(0, MAX_RESULT_CHARS) || '(no message)'}`);
  }
  // Text alone is capped by the engine, as every tool's output is; with images, here.
  if (blocks.every((b) => b.type === 'text')) return blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n') || '(no output)';
  return cap(blocks);
}

export interface McpToolSpec {
  modelName: string;
  origin: ToolOrigin;
  description: string;
  inputSchema: Record<string, unknown> | null;
  readOnly: boolean;
  /** Whether the runtime's permission gate asks (false: the editor asks itself). */
  gated: boolean;
  call(input: Record<string, unknown>, context: { signal: AbortSignal; toolUseId: string }): Promise<ToolOutput>;
}

/** The tool registry's facts for the tool (protocol/tools.ts externalTool), and how it runs. */
export function runtimeExternalTool(spec: McpToolSpec): RuntimeTool {
  const where = spec.origin.kind === 'mcp' ? `MCP server "${spec.origin.server}"` : `"${spec.origin.server}"`;
  const description = `${spec.description.length > MAX_DESCRIPTION ? `${spec.description.slice(0, MAX_DESCRIPTION)}…` : spec.description}${spec.description ? '\n\n' : ''}(Tool "${spec.origin.tool}" of ${where}.)`;
  return {
    ...externalTool(spec.modelName, spec.origin.server, spec.readOnly),
    definition: { name: spec.modelName, description, input_schema: mcpInputSchema(spec.inputSchema) as never },
    ...(spec.gated ? {} : { confirmedElsewhere: true }),
    summarizeInput: summarizeArguments,
    // The one-line summary is cut; what is approved is every argument.
    approvalPreview: (input) => Promise.resolve(argumentsPreview(input)),
    run: async (input, context) => {
      const args = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
      return spec.call(args, { signal: context.signal, toolUseId: context.toolUseId });
    },
  };
}
