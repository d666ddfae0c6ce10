import type { AgentFormat } from '../kinds';
import { DEFINITION_FIELDS } from '../kinds';

/**
 * Frontmatter keys as each format spells them, mapped to the one spelling
 * the interpreter reads (`interpret.ts`). Keys a format spells like the
 * definition (`name`, `tools`, `model` …) need no entry.
 */

/** The keys the interpreter reads, beyond the definition's own fields. */
export const READ_KEYS = [
  ...DEFINITION_FIELDS,
  'agents',
  'handoffs',
  'target',
  'userInvocable',
  'disableModelInvocation',
  'infer',
  'argumentHint',
  'mcpServers',
  'nicknames',
  'initialPrompt',
  'displayName',
  'kind',
] as const;
export type ReadKey = (typeof READ_KEYS)[number];

const READ_KEY_SET: ReadonlySet<string> = new Set(READ_KEYS);

/** The five formats read through interpret.ts (the later ones have readers of their own, in readers/). */
const KEY_SPELLINGS: Readonly<Partial<Record<AgentFormat, Readonly<Record<string, ReadKey>>>>> = {
  'claude-code': {},
  'oh-my-pi': { thinking: 'thinkingLevel', 'thinking-level': 'thinkingLevel', thinking_level: 'thinkingLevel' },
  codex: { nickname_candidates: 'nicknames', mcp_servers: 'mcpServers', model_reasoning_effort: 'effort' },
  gemini: { max_turns: 'maxTurns', display_name: 'displayName', mcp_servers: 'mcpServers' },
  copilot: {
    'user-invocable': 'userInvocable',
    'disable-model-invocation': 'disableModelInvocation',
    'argument-hint': 'argumentHint',
    'mcp-servers': 'mcpServers',
  },
};

/** `thinking-level` → `thinkingLevel`: oh-my-pi reads its keys in either case style. */
function camelCase(key: string): string {
  return key.replace(/[-_]([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * Splits a file's fields into the ones the interpreter reads (by their read
 * key) and the rest, which stay on the definition as written (`extra`). The
 * first spelling of a key wins if a file writes two.
 */
export function readFields(fields: Record<string, unknown>, format: AgentFormat): { read: Partial<Record<ReadKey, unknown>>; extra: Record<string, unknown> } {
  const spellings = KEY_SPELLINGS[format] ?? {};
  const read: Partial<Record<ReadKey, unknown>> = {};
  const extra: Record<string, unknown> = {};
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    let target: string = Object.hasOwn(spellings, key) ? spellings[key]! : key;
    if (format === 'oh-my-pi' && !READ_KEY_SET.has(target)) target = camelCase(target);
    if (READ_KEY_SET.has(target)) {
      if (!Object.hasOwn(read, target)) read[target as ReadKey] = fields[key];
    } else {
      extra[key] = fields[key];
    }
  }
  return { read, extra };
}
