/**
 * The parts of the official MCP SDK the runtime uses, in one module that is
 * loaded only when a server starts (see connection.ts): listing agents or
 * running one without servers never evaluates the SDK's schemas.
 */
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
export { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
export { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * Tool results are passed to the model as the server sends them; checking a
 * result's structured content against the tool's output schema is the
 * server's promise, not something an agent can act on. This validator
 * accepts every value, so the client needs no JSON Schema engine (whose
 * size the packaged extension would carry twice over).
 */
export const acceptingValidator: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};
