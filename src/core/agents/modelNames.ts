/**
 * Model values an agent file may use without a warning (SPEC S1.1): `inherit`,
 * the product's aliases, and full Claude model ids. Anything else is kept (a
 * user may map it in `subagents.modelAliases`) but reported, because a typo
 * here otherwise only shows up as a failed run.
 */
export const KNOWN_MODEL_ALIASES = ['inherit', 'sonnet', 'opus', 'haiku', 'fable', 'mythos'] as const;

export function isKnownModel(model: string): boolean {
  return (KNOWN_MODEL_ALIASES as readonly string[]).includes(model) || model.startsWith('claude-');
}

/**
 * Model ids of other providers' families, which an Anthropic endpoint does
 * not serve. An agent file written for Gemini or Codex names one; the engine
 * then treats it as `inherit` unless the alias table maps it.
 */
export function isForeignModel(model: string): boolean {
  return /^(gpt-|o\d(-|$)|gemini|codex|grok|llama|mistral|deepseek|qwen)/i.test(model.trim());
}
