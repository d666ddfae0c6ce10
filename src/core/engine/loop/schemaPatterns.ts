import type { PatternResult } from '../../regex/boundedRegex';

/**
 * The regular expressions of a JSON Schema (`pattern`, the keys of
 * `patternProperties`) come from an agent file or a model's spawn call, and
 * the validator would run them on the main thread. So they are run first,
 * time-bounded off it (boundedRegex.ts), on every string the value holds
 * (values and keys: the only texts validation can test them on), and each
 * is replaced by a plain alternation of the texts it matched: the same
 * answers for this value, in time linear in its size.
 */

type Json = unknown;

/** Keywords whose values are data, not schemas: a `pattern` in there is a value. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);
/** Keywords whose values map names to schemas. */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas']);

const isRecord = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Walks the schemas in `schema`, rewriting `pattern` values and `patternProperties` keys with `rewrite`. */
function mapPatterns(schema: Json, rewrite: (pattern: string) => string): Json {
  const walk = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isRecord(node)) return node;
    const out: Record<string, Json> = {};
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) out[key] = value;
      else if (key === 'pattern' && typeof value === 'string') out[key] = rewrite(value);
      else if (key === 'patternProperties' && isRecord(value)) out[key] = Object.fromEntries(Object.entries(value).map(([p, s]) => [rewrite(p), walk(s)]));
      else if (SCHEMA_MAPS.has(key) && isRecord(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, walk(s)]));
      else out[key] = walk(value);
    }
    return out;
  };
  return walk(schema);
}

/** Every distinct pattern of the schema. */
export function schemaPatterns(schema: object): string[] {
  const found = new Set<string>();
  mapPatterns(schema, (pattern) => {
    found.add(pattern);
    return pattern;
  });
  return [...found];
}

/** Every distinct string in a JSON value, object keys included. */
export function textsOf(value: Json): string[] {
  const texts = new Set<string>();
  const walk = (v: Json) => {
    if (typeof v === 'string') texts.add(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (isRecord(v)) {
      for (const [key, x] of Object.entries(v)) {
        texts.add(key);
        walk(x);
      }
    }
  };
  walk(value);
  return [...texts];
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * The schema with each pattern replaced by an anchored alternation of the
 * texts it matched (`results[i]` for `patterns[i]`, one boolean per text).
 * A pattern with a syntax error stays as it is: compiling it fails at once.
 */
export function resolvePatterns(schema: object, patterns: readonly string[], results: readonly PatternResult[], texts: readonly string[]): object {
  const replacements = new Map<string, string>();
  patterns.forEach((pattern, i) => {
    const result = results[i];
    if (!result || !('matches' in result)) return;
    const matched = texts.filter((_, t) => result.matches[t]).map(escape);
    // The empty named group numbers each replacement, so a message can name the pattern it stands for.
    replacements.set(pattern, `^(?<p${i}>)${matched.length ? `(?:${matched.join('|')})$` : '(?!)'}`);
  });
  return mapPatterns(schema, (p) => replacements.get(p) ?? p) as object;
}

/** A validation message about a replacement, told with the pattern it stands for (`patterns` as given to resolvePatterns). */
export function originalPatternMessage(message: string, patterns: readonly string[]): string {
  const index = /must match pattern \/\^\(\?<p(\d+)>\)/.exec(message)?.[1];
  const original = index === undefined ? undefined : patterns[Number(index)];
  return original === undefined ? message : `${message.slice(0, message.indexOf('must match pattern '))}must match pattern /${original}/`;
}
