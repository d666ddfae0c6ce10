/**
 * Stands in for the MCP SDK's Ajv-based validator in the bundles (see
 * scripts/build.mjs): the runtime always gives the client its own validator
 * (sdk.ts), so the JSON Schema engine and its formats need not ship.
 */
export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error('The MCP client was created without a validator; pass the runtime\'s own (src/core/mcp/sdk.ts).');
  }
}
