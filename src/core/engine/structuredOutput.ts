import { z } from 'zod';
import { describeIssues } from '../tools/inputValidation';
import { ToolCallError, type RuntimeTool } from '../tools/runtimeTool';

/**
 * Structured output (S3.7): with a schema in effect the agent ends by calling
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

export function structuredOutputTool(schema: object, slot: StructuredOutputSlot): RuntimeTool {
  slot.wrapped = !isObjectSchema(schema);
  const inputSchema = slot.wrapped ? { type: 'object', properties: { result: schema }, required: ['result'] } : schema;
  let validator: z.ZodType;
  try {
    validator = z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new ToolCallError(`The output schema is not a usable JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    name: STRUCTURED_OUTPUT_TOOL,
    definition: {
      name: STRUCTURED_OUTPUT_TOOL,
      description: 'Return your final result in the required structure. Call this exactly once, when your work is done; it ends your task.',
      input_schema: inputSchema as never,
    },
    concurrencySafe: false,
    readOnly: true,
    approval: null,
    summarizeInput: () => 'final result',
    run: async (input) => {
      const parsed = validator.safeParse(input);
      if (!parsed.success) {
        throw new ToolCallError(`The result does not match the required schema: ${describeIssues(parsed.error)}. Call ${STRUCTURED_OUTPUT_TOOL} again with a corrected result.`);
      }
      slot.value = slot.wrapped ? (parsed.data as { result: unknown }).result : parsed.data;
      return 'Result recorded.';
    },
  };
}
