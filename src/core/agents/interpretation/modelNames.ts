import { OH_MY_PI_MODEL_ROLES } from '../formats/ohMyPi';
import { DEFAULT_MODEL_ALIASES } from '../../modelAliases';
import { THINKING_LEVELS, type ThinkingLevel } from '../kinds';
import { own } from '../../own';

/**
 * Model names as agent files write them, resolved to what this runtime can
 * run: an alias (`sonnet`), a `claude-…` id, or
 * `inherit`. Files written for other tools use other syntaxes: Copilot's
 * display names (`Claude Sonnet 4.5 (copilot)`), fallback lists (Copilot's
 * YAML lists, oh-my-pi's `pi/smol, haiku, flash`), oh-my-pi's role aliases
 * (`pi/slow`, `omp/task`, `@smol`, `default`) and `model:level` suffixes,
 * provider prefixes (`anthropic/claude-…`), and other vendors' models
 * (Codex's `gpt-5`, Gemini's `gemini-2.5-pro`).
 */

/** The names a `model` field may give besides ids: `inherit` and the default aliases (so every one accepted is also defined). */
export const KNOWN_MODEL_ALIASES: readonly string[] = ['inherit', ...Object.keys(DEFAULT_MODEL_ALIASES)];

/**
 * Claude model ids the Messages API serves, as listed by the SDK this
 * runtime ships (`@anthropic-ai/sdk` 1.12, `Model`). Written names are
 * matched against it; an id written as an id is taken as written.
 */
export const KNOWN_CLAUDE_MODELS: readonly string[] = [
  'claude-fable-5-2', 'claude-mythos-5-2', 'claude-haiku-5-5', 'claude-sonnet-5-5', 'claude-fable-5-1', 'claude-opus-5-5',
  'claude-mythos-5-1', 'claude-sonnet-5', 'claude-fable-5', 'claude-mythos-5', 'claude-opus-5', 'claude-opus-4-8',
  'claude-opus-4-7', 'claude-mythos-preview', 'claude-opus-4-6', 'claude-sonnet-4-6', 'claude-haiku-4-5',
  'claude-haiku-4-5-20251001', 'claude-opus-4-5', 'claude-opus-4-5-20251101', 'claude-sonnet-4-5', 'claude-sonnet-4-5-20250929',
];

const CLAUDE_FAMILIES = ['opus', 'sonnet', 'haiku', 'fable', 'mythos'] as const;
type ClaudeFamily = (typeof CLAUDE_FAMILIES)[number];

export function isKnownModel(model: string): boolean {
  return KNOWN_MODEL_ALIASES.includes(model) || model.startsWith('claude-');
}

/** Other vendors' model families, by the name each starts with, and whose they are. */
const FOREIGN_MODELS: readonly (readonly [RegExp, string])[] = [
  [/^(gpt|chatgpt|codex|o\d)(-|\b|$)/i, 'OpenAI'],
  [/^(gemini|gemma|flash|pro)(-|\b|$)/i, 'Google'],
  [/^grok/i, 'xAI'],
  [/^(llama|meta-llama)/i, 'Meta'],
  [/^(mistral|codestral|devstral|mixtral)/i, 'Mistral'],
  [/^deepseek/i, 'DeepSeek'],
  [/^qwen/i, 'Alibaba'],
  [/^glm/i, 'Zhipu'],
  [/^kimi/i, 'Moonshot'],
  [/^(mini|nano)$/i, 'OpenAI'],
];

/** The vendor of another provider's model, or null. */
export function foreignVendor(model: string): string | null {
  const name = stripDecorations(model).name;
  for (const [pattern, vendor] of FOREIGN_MODELS) if (pattern.test(name)) return vendor;
  return null;
}

/**
 * Model ids of other providers' families, which an Anthropic endpoint does
 * not serve. An agent file written for Gemini or Codex names one; the engine
 * then treats it as `inherit` unless the alias table maps it.
 */
export function isForeignModel(model: string): boolean {
  return foreignVendor(model) !== null;
}

/** What one written entry is. */
type Entry =
  | { kind: 'runs'; model: string; note?: string }
  | { kind: 'inherit' }
  | { kind: 'foreign'; name: string; vendor: string }
  | { kind: 'unknown'; name: string };

export interface ModelResolution {
  /** An alias, a claude-… id, `inherit`, or null when unset; see `runs`. */
  model: string | null;
  /**
   * False when no entry can run here: `model` then holds the first entry as
   * written, which runs only if `subagents.modelAliases` maps it (the engine
   * otherwise uses the parent's model).
   */
  runs: boolean;
  /** From an oh-my-pi `model:level` suffix. */
  thinkingLevel?: ThinkingLevel;
  /** Why the model is not what the file says, when it is not. */
  warning?: string;
}

const DECORATION = /\s*\((?:copilot|preview|[^()]*\bpreview\b[^()]*)\)\s*$/i;

/** Strips what decorates a model name without naming another model: Copilot's `(copilot)` and `(Preview)`, `[1m]`, `:level`. */
function stripDecorations(written: string): { name: string; level?: ThinkingLevel } {
  let name = written.trim();
  while (DECORATION.test(name)) name = name.replace(DECORATION, '');
  name = name.replace(/\[[^\]]*\]$/, '').trim();
  const colon = name.lastIndexOf(':');
  if (colon > 0) {
    const suffix = name.slice(colon + 1).toLowerCase();
    if (suffix === 'max') return { name: name.slice(0, colon), level: 'xhigh' };
    if ((THINKING_LEVELS as readonly string[]).includes(suffix)) return { name: name.slice(0, colon), level: suffix as ThinkingLevel };
    if (suffix === 'inherit' || suffix === 'auto') return { name: name.slice(0, colon) };
  }
  return { name };
}

/** `Claude Sonnet 4.5`, `claude-3.5-sonnet`, `claude-sonnet-4.5`: family and version, however ordered. */
const CLAUDE_NAME = /^claude[\s_-]+(?:(\d+(?:\.\d+)?)[\s_-]+)?(opus|sonnet|haiku|fable|mythos)(?:[\s_-]+(\d+(?:\.\d+)?))?(?:[\s_-].*)?$/i;

function claudeByVersion(family: ClaudeFamily, version: string | undefined): Entry {
  if (version) {
    const [major, minor = '0'] = version.split('.');
    const candidates = [`claude-${family}-${major}-${minor}`, ...(minor === '0' ? [`claude-${family}-${major}`] : [])];
    const known = candidates.find((id) => KNOWN_CLAUDE_MODELS.includes(id));
    if (known) return { kind: 'runs', model: known };
  }
  return {
    kind: 'runs',
    model: family,
    note: version ? `is not a model this runtime knows (retired, or newer than it); it runs on "${family}" (subagents.modelAliases)` : undefined,
  };
}

/** `sonnet-4.5`, `opus-4`: a family first, then a version (Cursor's and Kiro's spellings). */
const FAMILY_VERSION = /^(opus|sonnet|haiku|fable|mythos)[\s_-]+(\d+(?:\.\d+)?)$/i;
/** `claude-sonnet-4`, `claude-opus-4.6`: a family and a version without a date, which some tools use as their own ids. */
const TOOL_ID = /^claude-(opus|sonnet|haiku|fable|mythos)-(\d+)(?:[.-](\d{1,2}))?$/i;

export interface ModelOptions {
  /**
   * The format's ids name a family and a version rather than an API id
   * (Kiro's `claude-sonnet-4`): resolved like display names, to the API id
   * this runtime knows or to the family's alias, rather than sent as written.
   */
  familyVersions?: boolean;
}

function resolveEntry(written: string, options: ModelOptions = {}): Entry & { level?: ThinkingLevel } {
  const { name, level } = stripDecorations(written);
  const lower = name.toLowerCase();
  const withLevel = <T extends Entry>(entry: T) => (level ? { ...entry, level } : entry);
  if (lower === '' || lower === 'inherit' || lower === 'default' || lower === 'auto' || lower === '*') return withLevel({ kind: 'inherit' });
  const role = /^(?:(?:pi|omp)\/|@)([\w:-]+)$/.exec(lower)?.[1];
  if (role !== undefined) {
    const mapped = OH_MY_PI_MODEL_ROLES[role] ?? 'inherit';
    return withLevel(mapped === 'inherit' ? { kind: 'inherit' } : { kind: 'runs', model: mapped });
  }
  if (KNOWN_MODEL_ALIASES.includes(lower)) return withLevel(lower === 'inherit' ? { kind: 'inherit' } : { kind: 'runs', model: lower });
  if (lower === 'opusplan') return withLevel({ kind: 'runs', model: 'opus' });
  // A provider prefix (`anthropic/`, `openrouter/anthropic/`, `bedrock/…`): the model is the last part.
  const bare = lower.includes('/') ? lower.slice(lower.lastIndexOf('/') + 1) : lower;
  const toolId = options.familyVersions ? TOOL_ID.exec(bare) : null;
  if (toolId) return withLevel(claudeByVersion(toolId[1]!.toLowerCase() as ClaudeFamily, toolId[3] ? `${toolId[2]}.${toolId[3]}` : toolId[2]));
  // An API id, written as one (lower case, dashes only): taken as written.
  if (/^claude-[a-z0-9-]+$/.test(bare)) return withLevel({ kind: 'runs', model: bare });
  const familyVersion = FAMILY_VERSION.exec(bare);
  if (familyVersion) return withLevel(claudeByVersion(familyVersion[1]!.toLowerCase() as ClaudeFamily, familyVersion[2]));
  const claude = CLAUDE_NAME.exec(bare);
  if (claude) return withLevel(claudeByVersion(claude[2]!.toLowerCase() as ClaudeFamily, claude[1] ?? claude[3]));
  if ((CLAUDE_FAMILIES as readonly string[]).includes(bare)) return withLevel({ kind: 'runs', model: bare });
  const vendor = foreignVendor(bare);
  if (vendor) return withLevel({ kind: 'foreign', name: name, vendor });
  return withLevel({ kind: 'unknown', name });
}

/** The entries of a model field: a YAML list, or a comma-separated string. */
export function modelEntries(raw: unknown): string[] | undefined {
  if (raw === null || raw === undefined) return undefined;
  if (Array.isArray(raw)) return raw.filter((e): e is string | number => typeof e === 'string' || typeof e === 'number').map(String).map((e) => e.trim()).filter(Boolean);
  if (typeof raw === 'string' || typeof raw === 'number') {
    const text = String(raw).trim();
    return text ? text.split(',').map((e) => e.trim()).filter(Boolean) : [];
  }
  return undefined;
}

const PLAIN_ALIASES: Readonly<Record<string, ModelResolution>> = Object.fromEntries(KNOWN_MODEL_ALIASES.map((alias) => [alias, Object.freeze({ model: alias, runs: true })]));

const INHERITS = "the agent runs on its parent's model (or subagents.defaultModel)";

/**
 * Resolves a model field: the first entry this runtime can run (or that
 * says `inherit`) wins; later entries are fallbacks the home tool would try
 * when the first is unavailable. Undefined when the value is not a model
 * (not text or a list).
 */
export function resolveModelField(raw: unknown, options: ModelOptions = {}): ModelResolution | undefined {
  // Nearly every file names an alias: answered without parsing (the objects are shared; do not change them).
  if (typeof raw === 'string') {
    if (Object.hasOwn(PLAIN_ALIASES, raw)) return PLAIN_ALIASES[raw];
    // The other names a collection's files give repeat too (`anthropic/claude-sonnet-4-5` in every file of it): resolved once.
    const cache = options.familyVersions ? resolvedFamilyVersions : resolvedNames;
    const known = cache.get(raw);
    if (known) return known;
    const resolution = resolveModel(raw, options);
    if (!resolution) return undefined;
    if (cache.size >= MAX_CACHED_NAMES) cache.clear();
    cache.set(raw, Object.freeze(resolution));
    return resolution;
  }
  return resolveModel(raw, options);
}

/** Resolutions of written model names (shared, frozen), by the text and whether names are read as family and version. */
const resolvedNames = new Map<string, ModelResolution>();
const resolvedFamilyVersions = new Map<string, ModelResolution>();
/** Names repeat within a collection: a small cache keeps nearly all of them, and cannot grow without bound. */
const MAX_CACHED_NAMES = 500;

function resolveModel(raw: unknown, options: ModelOptions): ModelResolution | undefined {
  const entries = modelEntries(raw);
  if (entries === undefined) return undefined;
  if (entries.length === 0) return { model: null, runs: true };
  const resolved = entries.map((entry) => resolveEntry(entry, options));
  const chosen = resolved.find((e) => e.kind === 'runs' || e.kind === 'inherit');
  if (chosen) {
    const model = chosen.kind === 'runs' ? chosen.model : 'inherit';
    const writtenAs = entries[resolved.indexOf(chosen)]!;
    const warning = chosen.kind === 'runs' && chosen.note ? `model "${writtenAs}" ${chosen.note}` : undefined;
    return { model, runs: true, ...(chosen.level ? { thinkingLevel: chosen.level } : {}), ...(warning ? { warning } : {}) };
  }
  const first = resolved[0]!;
  const name = first.kind === 'foreign' || first.kind === 'unknown' ? first.name : entries[0]!;
  const maps = `unless subagents.modelAliases maps "${name}" to a model that does`;
  const why = (entry: (typeof resolved)[number], written: string) =>
    entry.kind === 'foreign' ? `"${written}" is ${entry.vendor}'s, which an Anthropic endpoint does not serve` : `"${written}" is not a Claude model or alias this runtime knows`;
  const warning =
    entries.length === 1
      ? `model ${why(first, entries[0]!)}; ${INHERITS} ${maps}`
      : `none of the models ${entries.map((e) => `"${e}"`).join(', ')} can run here (${why(first, entries[0]!)}); ${INHERITS} ${maps}`;
  return { model: name, runs: false, ...(first.level ? { thinkingLevel: first.level } : {}), warning };
}

/**
 * Whether the engine may send `model` (a definition's) to the API: an alias
 * the settings map, a claude-… id or a built-in alias. Anything else is a
 * name kept only so that `subagents.modelAliases` can map it.
 */
export function isRunnableModel(model: string, aliases: Readonly<Record<string, string>>): boolean {
  return Object.hasOwn(aliases, model) || Object.hasOwn(aliases, model.toLowerCase()) || isKnownModel(model);
}

export interface ModelEffect {
  /** Whether the agent runs on the model its file names (or what an alias maps it to). */
  runs: boolean;
  /** One sentence: what the model becomes here. */
  text: string;
}

function sentence(text: string): string {
  const body = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(body) ? body : `${body}.`;
}

/**
 * What a definition's `model` becomes when the agent runs, in the one
 * wording every surface uses (the hover, the diagnostics, the Agents view's
 * problems): what the engine really does, given the user's aliases.
 */
export function modelEffect(written: string, aliases: Readonly<Record<string, string>>): ModelEffect {
  const resolved = resolveModelField(written);
  if (!resolved || resolved.model === null || resolved.model === 'inherit') {
    return { runs: true, text: '`inherit`: the parent agent\'s model (for a top-level agent, subagents.defaultModel).' };
  }
  const model = resolved.model;
  const mapped = own(aliases, model) ?? own(aliases, model.toLowerCase());
  if (mapped !== undefined) {
    if (isForeignModel(mapped)) {
      return { runs: false, text: `"${written}" maps to "${mapped}" (subagents.modelAliases), another provider's model: the agent runs on its parent's model (or subagents.defaultModel).` };
    }
    return { runs: true, text: `"${written}" runs as "${mapped}" (subagents.modelAliases).` };
  }
  if (!resolved.runs) return { runs: false, text: sentence(resolved.warning ?? `model "${written}" cannot run here; ${INHERITS}`) };
  const note = resolved.warning ? ` ${sentence(resolved.warning)}` : '';
  return { runs: true, text: model === written ? `Model id "${model}", sent to the API as written.${note}` : `"${written}" runs as "${model}".${note}` };
}
