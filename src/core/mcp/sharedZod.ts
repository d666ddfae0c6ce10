import * as z from 'zod';

/**
 * The packaged MCP SDK (dist/mcp.cjs) takes zod from the bundle that loads
 * it instead of carrying a second copy (a third of its size): the build maps
 * its `zod` imports to this global (scripts/build.mjs, `zodFromHost`), which
 * the loader sets before the first load. Run from source, the SDK imports
 * zod itself and the global goes unused.
 *
 * Only the functions the SDK's client uses are handed over, so the loading
 * bundle keeps what it does not use out (all of zod, with its locales,
 * would cost it more than the copy saved). The build reads the names
 * below (one `name: z.name,` a line) and fails if the SDK asks for one more.
 */
export const SHARED_ZOD = Symbol.for('subagents.mcp.zod');

const forSdk = {
  // zod/v4, for the protocol's schemas (types.js, shared/auth.js).
  any: z.any,
  array: z.array,
  boolean: z.boolean,
  coerce: z.coerce,
  custom: z.custom,
  discriminatedUnion: z.discriminatedUnion,
  enum: z.enum,
  intersection: z.intersection,
  iso: z.iso,
  literal: z.literal,
  looseObject: z.looseObject,
  NEVER: z.NEVER,
  null: z.null,
  number: z.number,
  object: z.object,
  optional: z.optional,
  preprocess: z.preprocess,
  record: z.record,
  string: z.string,
  union: z.union,
  unknown: z.unknown,
  url: z.url,
  ZodIssueCode: z.ZodIssueCode,
  // zod/v4-mini's top-level functions (server/zod-compat.js), which classic has too.
  safeParse: z.safeParse,
  safeParseAsync: z.safeParseAsync,
  toJSONSchema: z.toJSONSchema,
};

export function shareZod(): void {
  const global = globalThis as { [SHARED_ZOD]?: unknown };
  global[SHARED_ZOD] ??= forSdk;
}
