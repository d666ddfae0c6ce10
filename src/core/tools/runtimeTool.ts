import type { BetaToolUnion, BetaToolResultContentBlockParam } from '@anthropic-ai/sdk/resources/beta';
import type { ApprovalKind } from '../../protocol/runEvents';

/**
 * A tool as the engine runs it: the definition the model sees, how it runs,
 * and what the scheduler and the permission gate need to know about it.
 */
export interface RuntimeTool {
  /** The name the model calls and agent files list (`Read`, `Bash`, `Task`, …). */
  name: string;
  /** The API definition sent in `tools` (a custom tool, or a server tool such as web search). */
  definition: BetaToolUnion;
  /**
   * Safe to run alongside the other calls of the same turn: it reads, or it
   * is a spawn whose child works on its own. Everything else runs alone, in
   * the order the model wrote the calls.
   */
  concurrencySafe: boolean;
  /** Whether the tool only reads (kept in plan mode). */
  readOnly: boolean;
  /** What approval a call needs under the `default` permission mode (`mcp`: an MCP tool that may change things). */
  approval: ApprovalKind | null;
  /** For a tool of an MCP server or of the editor: which server and tool, for every surface that shows a call. */
  origin?: { kind: 'mcp' | 'editor'; server: string; tool: string };
  /** Server tools run on the API side and have no `run`. */
  run?: (input: unknown, context: ToolRunContext) => Promise<ToolOutput>;
  /** One line describing a call, for every surface. */
  summarizeInput(input: unknown): string;
  /** One line describing a successful result; defaults to its first line. */
  summarizeResult?(output: string): string;
  /**
   * For a tool that writes files: why the file a call would write is one
   * acceptEdits must still ask about (protectedPaths.ts), or null.
   */
  protectedTarget?(input: unknown): Promise<string | null>;
  /** Release held resources (a shell) when the agent ends. */
  close?: () => void | Promise<void>;
}

export type ToolOutput = string | BetaToolResultContentBlockParam[];

export interface ToolRunContext {
  toolUseId: string;
  signal: AbortSignal;
}

/** A failed call: its message goes back to the model as an `is_error` tool result. */
export class ToolCallError extends Error {
  override name = 'ToolCallError';
}

export function field(input: unknown, key: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

export function oneLine(text: string, max = 100): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
