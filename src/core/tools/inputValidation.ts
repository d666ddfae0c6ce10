import * as z from 'zod';
import { ToolCallError } from './runtimeTool';

/**
 * Checks a tool call's input against the tool's JSON Schema before it runs,
 * so a model that sends `file_path: 123` or forgets a field gets a precise
 * error back ("file_path: expected string, received number") instead of
 * whatever the implementation would throw.
 */
export function inputValidator(toolName: string, jsonSchema: object): (input: unknown) => unknown {
  let validate: ((input: unknown) => unknown) | undefined;
  // Built on the first call and shared: every agent gets its own file tools,
  // and converting their schemas was most of the cost of starting one (200
  // agents spawned in one turn held the event loop for ~1 ms each).
  return (input) => (validate ??= zodValidator(toolName, schemaOf(jsonSchema)))(input);
}

/** Converted schemas by their JSON text: the same schema is converted once per process. */
const converted = new Map<string, z.ZodType>();

function schemaOf(jsonSchema: object): z.ZodType {
  const key = JSON.stringify(jsonSchema);
  let schema = converted.get(key);
  if (!schema) {
    schema = z.fromJSONSchema(jsonSchema as Parameters<typeof z.fromJSONSchema>[0]);
    converted.set(key, schema);
  }
  return schema;
}

/** The same for a tool whose input is a zod schema: the parsed input, or a ToolCallError naming the tool. */
export function zodValidator<S extends z.ZodType>(toolName: string, schema: S): (input: unknown) => z.infer<S> {
  return (input) => {
    const parsed = schema.safeParse(input ?? {});
    if (parsed.success) return parsed.data;
    throw new ToolCallError(`${toolName}: invalid input: ${describeIssues(parsed.error)}`);
  };
}

/** The first issues, each with its path; `message` may retell an issue's message. */
export function describeIssues(error: z.ZodError, message: (text: string) => string = (text) => text): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${message(issue.message)}` : message(issue.message)))
    .join('; ');
}
