/**
 * Coercions from raw frontmatter values (strict YAML gives typed values, the
 * line reader gives strings) to the definition's field types. Each returns
 * `undefined` for a value it cannot use and reports why through `warn`, so
 * one odd field never costs the whole agent.
 */

export type Warn = (message: string) => void;

/** Splits a CSV string on commas outside parentheses (`Task(a, b), Read`). */
export function splitCsv(text: string): string[] {
  if (!text.includes('(')) return text.split(',').map((p) => p.trim()).filter((p) => p.length > 0);
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

/**
 * A list written as a CSV string or a YAML list. List items are re-joined and
 * re-split so that a YAML flow list cut inside a permission pattern
 * (`[Read, Task(a, b)]`, which YAML reads as three items) comes back whole.
 */
export function stringList(value: unknown, field: string, warn: Warn): string[] | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return splitCsv(value);
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value) {
      if (typeof item === 'string' || typeof item === 'number') items.push(String(item));
      else warn(`"${field}" has an entry that is not a name (${JSON.stringify(item)}); it is ignored`);
    }
    return splitCsv(items.join(', '));
  }
  warn(`"${field}" must be a comma-separated string or a list; it is ignored`);
  return undefined;
}

export function text(value: unknown, field: string, warn: Warn): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  warn(`"${field}" must be text; it is ignored`);
  return undefined;
}

export function boolean(value: unknown, field: string, warn: Warn): boolean | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const lower = value.trim().toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  warn(`"${field}" must be true or false, not ${JSON.stringify(value)}; it is ignored`);
  return undefined;
}

export function positiveInteger(value: unknown, field: string, warn: Warn): number | undefined {
  if (value === null || value === undefined) return undefined;
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n === 'number' && Number.isInteger(n) && n > 0) return n;
  warn(`"${field}" must be a whole number above 0, not ${JSON.stringify(value)}; it is ignored`);
  return undefined;
}

export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[], warn: Warn): T | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value.trim())) return value.trim() as T;
  warn(`"${field}" must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}; it is ignored`);
  return undefined;
}
