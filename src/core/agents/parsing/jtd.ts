/**
 * JSON Type Definition (RFC 8927) → JSON Schema, for oh-my-pi's `output`
 * field, which is JTD where this runtime's structured output takes JSON
 * Schema. All eight JTD forms are converted:
 *
 *   empty {}                      → {} (any value)
 *   type  (boolean, string, timestamp, float32/64, int8…uint32)
 *                                 → type (timestamp: string, date-time;
 *                                   intN/uintN: integer with its range)
 *   enum                          → string enum
 *   elements                      → array of items
 *   properties / optionalProperties (+ additionalProperties)
 *                                 → object, required = properties' keys,
 *                                   additionalProperties false unless JTD allows them
 *   values                        → object of additionalProperties
 *   discriminator + mapping       → oneOf of objects, each with the tag const
 *   ref (+ root definitions)      → $ref to #/$defs/…
 * plus `nullable: true` (→ also null) and `metadata.description`.
 *
 * oh-my-pi accepts either dialect in one field, so does this: a value that
 * is not JTD (e.g. `type: object`, which JTD does not have) is taken as
 * JSON Schema and returned unchanged; JTD found nested inside JSON Schema
 * (as oh-my-pi tolerates) is converted in place.
 */

type Json = Record<string, unknown>;

const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int8: [-128, 127],
  uint8: [0, 255],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
};

const JTD_ONLY_TYPES = new Set(['timestamp', 'float32', 'float64', ...Object.keys(INTEGER_RANGES)]);

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `schema` is written in JTD rather than JSON Schema. */
export function isJtd(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  if ('elements' in schema || 'values' in schema || 'optionalProperties' in schema || 'discriminator' in schema || 'ref' in schema) return true;
  if (typeof schema.type === 'string' && JTD_ONLY_TYPES.has(schema.type)) return true;
  // JSON Schema objects say `type: object`; a JTD properties form has no `type`.
  return 'properties' in schema && !('type' in schema);
}

function convertForm(schema: Json): Json {
  const converted = convertShape(schema);
  const description = isObject(schema.metadata) && typeof schema.metadata.description === 'string' ? schema.metadata.description : undefined;
  if (description !== undefined) converted.description = description;
  if (schema.nullable === true) return { anyOf: [converted, { type: 'null' }] };
  return converted;
}

function mapValues(record: unknown): Json {
  const out: Json = {};
  if (isObject(record)) for (const key of Object.keys(record)) out[key] = isObject(record[key]) ? convertForm(record[key] as Json) : {};
  return out;
}

function convertShape(schema: Json): Json {
  if (typeof schema.type === 'string') {
    const range = INTEGER_RANGES[schema.type];
    if (range) return { type: 'integer', minimum: range[0], maximum: range[1] };
    if (schema.type === 'float32' || schema.type === 'float64') return { type: 'number' };
    if (schema.type === 'timestamp') return { type: 'string', format: 'date-time' };
    return { type: schema.type };
  }
  if (Array.isArray(schema.enum)) return { type: 'string', enum: schema.enum };
  if ('elements' in schema) return { type: 'array', items: isObject(schema.elements) ? convertForm(schema.elements) : {} };
  if ('values' in schema) return { type: 'object', additionalProperties: isObject(schema.values) ? convertForm(schema.values) : {} };
  if (typeof schema.discriminator === 'string') {
    const tag = schema.discriminator;
    const mapping = isObject(schema.mapping) ? schema.mapping : {};
    return {
      oneOf: Object.keys(mapping).map((value) => {
        const branch = isObject(mapping[value]) ? convertShape(mapping[value] as Json) : { type: 'object', properties: {} };
        const properties = { [tag]: { const: value }, ...(branch.properties as Json | undefined) };
        const required = [tag, ...((branch.required as string[] | undefined) ?? [])];
        return { ...branch, type: 'object', properties, required };
      }),
    };
  }
  if (typeof schema.ref === 'string') return { $ref: `#/$defs/${schema.ref}` };
  if ('properties' in schema || 'optionalProperties' in schema) {
    const required = isObject(schema.properties) ? Object.keys(schema.properties) : [];
    const out: Json = {
      type: 'object',
      properties: { ...mapValues(schema.properties), ...mapValues(schema.optionalProperties) },
      additionalProperties: schema.additionalProperties === true,
    };
    if (required.length > 0) out.required = required;
    return out;
  }
  return {};
}

/**
 * How deeply a schema may nest. Conversion recurses once per level, so a
 * schema of thousands of levels (78 KB of `{"elements":` is 6,000) would
 * overflow the stack; no real output schema comes near this.
 */
export const MAX_SCHEMA_DEPTH = 64;

export class SchemaTooDeepError extends Error {
  constructor() {
    super(`it nests more than ${MAX_SCHEMA_DEPTH} levels deep`);
    this.name = 'SchemaTooDeepError';
  }
}

/** Whether objects and arrays nest more than `limit` levels; iterative, so any depth is measured safely. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(item)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Converts JTD to JSON Schema (root `definitions` become `$defs`); JSON
 * Schema is walked for nested JTD. Throws SchemaTooDeepError for a schema
 * nested deeper than MAX_SCHEMA_DEPTH.
 */
export function jtdToJsonSchema(schema: unknown): unknown {
  if (nestsDeeperThan(schema, MAX_SCHEMA_DEPTH)) throw new SchemaTooDeepError();
  return convertAny(schema);
}

function convertAny(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  if (isJtd(schema)) {
    const converted = convertForm(schema);
    if (isObject(schema.definitions)) converted.$defs = mapValues(schema.definitions);
    return converted;
  }
  const out: Json = {};
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    if (SCHEMA_MAPS.has(key) && isObject(value)) {
      // Keys here are property names, not keywords: a property called `ref` or `values` is not JTD.
      const map: Json = {};
      for (const name of Object.keys(value)) map[name] = convertAny(value[name]);
      out[key] = map;
    } else if (Array.isArray(value) && SCHEMA_LISTS.has(key)) {
      out[key] = value.map(convertAny);
    } else {
      out[key] = SCHEMA_VALUES.has(key) ? convertAny(value) : value;
    }
  }
  return out;
}

/** JSON Schema keywords whose value is a map of name → schema, a list of schemas, or one schema. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);
const SCHEMA_VALUES = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems']);
