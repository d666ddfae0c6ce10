import type { BetaToolUnion, BetaToolResultContentBlockParam } from '@anthropic-ai/sdk/resources/beta';
import type { ToolSpec } from '../../protocol/tools';
import type { ApprovalPreview } from './approvalPreview';

/** Cap on one tool result sent back to the model (built-in or a server's); the rest is cut with a note. */
export const MAX_RESULT_CHARS = 100_000;

/**
 * A tool as the engine runs it: its facts from the tool registry (name,
 * kind, whether it runs alongside others: protocol/tools.ts), the definition
 * the model sees, and how it runs.
 */
export interface RuntimeTool extends ToolSpec {
  /** The API definition sent in `tools` (a custom tool, or a server tool such as web search). */
  definition: BetaToolUnion;
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
  /**
   * For a tool that asks before it runs: what a call would do, whole (the
   * command, or the file before and after), for the approval to show. Null
   * when it cannot be worked out (the call would fail anyway). Only called
   * when the user is asked.
   */
  approvalPreview?(input: unknown): Promise<ApprovalPreview | null>;
  /** Release held resources (a shell) when the agent ends. */
  close?: () => void | Promise<void>;
  /** The editor asks the user about each call itself (VS Code's tools): the permission gate does not ask again. */
  confirmedElsewhere?: boolean;
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
