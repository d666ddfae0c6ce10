import * as z from 'zod';
import { builtinTool } from '../../../protocol/tools';
import { describeIssues } from '../../tools/inputValidation';
import { ToolCallError, type RuntimeTool } from '../../tools/runtimeTool';
import { testPatterns, timeoutMessage } from '../../regex/boundedRegex';
import { originalPatternMessage, resolvePatterns, schemaPatterns, textsOf } from './schemaPatterns';

/**
 * Structured output: with a schema in effect the agent ends by calling
 * `StructuredOutput`, whose input schema is that schema. The input is
 * validated; a valid call is the agent's output and ends its loop, an invalid
 * one is a tool error the model can correct.
 */

export const STRUCTURED_OUTPUT_TOOL = 'StructuredOutput';

export interface StructuredOutputSlot {
  /** `undefined` until a valid call arrives. */
  value: unknown;
  /** The API wants an object schema for tool input; other schemas are wrapped in `{ result }`. */
  wrapped: boolean;
}

/** Schema precedence: spawn call `schema` > definition `output` > parent session schema. */
export function effectiveSchema(...candidates: Array<unknown>): object | null {
  const found = candidates.find((c) => c !== null && c !== undefined && typeof c === 'object');
  return (found as object | undefined) ?? null;
}

function isObjectSchema(schema: object): boolean {
  return (schema as { type?: unknown }).type === 'object';
}

function toolInputSchema(schema: object, wrapped: boolean): object {
  return wrapped ? { type: 'object', properties: { result: schema }, required: ['result'] } : schema;
}

function compile(inputSchema: object): z.ZodType {
  return z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
}

/**
 * Why a definition's `output` cannot be used as its result schema, or null
 * when it can: the same test structuredOutputTool applies when the agent
 * starts, for the language server to report while the file is written.
 */
export function outputSchemaProblem(schema: unknown): string | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'it must be a JSON Schema object';
  try {
    compile(toolInputSchema(schema, !isObjectSchema(schema)));
    return null;
  } catch (error) {
    return `it is not a usable JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * The validator to check `input` with: the schema's own when it has no
 * pattern, else one whose patterns were run on the input's strings off the
 * main thread, within a deadline (schemaPatterns.ts). A pattern that runs
 * away is a tool error naming it, and the engine goes on.
 */
async function boundedValidator(validator: z.ZodType, inputSchema: object, patterns: readonly string[], input: unknown): Promise<z.ZodType> {
  if (patterns.length === 0) return validator;
  const texts = textsOf(input);
  const results = await testPatterns(patterns, texts);
  const runaway = patterns.find((_, i) => results[i] && 'timedOut' in results[i]);
  if (runaway !== undefined) {
    throw new ToolCallError(
      `The result cannot be checked: in the output schema, ${timeoutMessage(runaway)}. The schema (the agent file's output, or the spawn call's schema) needs a pattern that does not backtrack; no result can pass it as it is.`,
    );
  }
  return compile(resolvePatterns(inputSchema, patterns, results, texts));
}

export function structuredOutputTool(schema: object, slot: StructuredOutputSlot): RuntimeTool {
  slot.wrapped = !isObjectSchema(schema);
  const inputSchema = toolInputSchema(schema, slot.wrapped);
  let validator: z.ZodType;
  try {
    validator = compile(inputSchema);
  } catch (error) {
    throw new ToolCallError(`The output schema is not a usable JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
  }
  const patterns = schemaPatterns(inputSchema);
  return {
    ...builtinTool(STRUCTURED_OUTPUT_TOOL),
    definition: {
      name: STRUCTURED_OUTPUT_TOOL,
      description: 'Return your final result in the required structure. Call this exactly once, when your work is done; it ends your task.',
      input_schema: inputSchema as never,
    },
    summarizeInput: () => 'final result',
    run: async (input) => {
      const parsed = (await boundedValidator(validator, inputSchema, patterns, input)).safeParse(input);
      if (!parsed.success) {
        const problems = describeIssues(parsed.error, (message) => originalPatternMessage(message, patterns));
        throw new ToolCallError(`The result does not match the required schema: ${problems}. Call ${STRUCTURED_OUTPUT_TOOL} again with a corrected result.`);
      }
      slot.value = slot.wrapped ? (parsed.data as { result: unknown }).result : parsed.data;
      return 'Result recorded.';
    },
  };
}
