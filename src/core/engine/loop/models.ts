import type { Usage } from '../../../protocol/runEvents';
import { isForeignModel, isRunnableModel, resolveModelField } from '../../agents/interpretation/modelNames';
import { own } from '../../own';

/**
 * Model resolution: spawn call `model` > definition `model` > the
 * parent's model (`inherit`, or unset) > setting `subagents.defaultModel`.
 * Aliases (`sonnet`, …) map through the configurable alias table; anything
 * else is taken as a full model id.
 */
export interface ModelChoice {
  /** The spawn call's `model` (or the CLI's `--model`). */
  requested?: string | null;
  /** The definition's `model`. */
  definition?: string | null;
  /** The parent agent's resolved model; absent for a root agent. */
  parent?: string | null;
  defaultModel: string;
  aliases: Readonly<Record<string, string>>;
}

export function resolveModel(choice: ModelChoice): string {
  // A model named for another provider (an agent file written for Gemini or
  // Codex says `model: gemini-2.5-flash`) cannot run here: it counts as
  // `inherit`, unless the alias table maps it to a model that can.
  const usable = (m: string | null | undefined) => {
    const name = m?.trim();
    return name && name !== 'inherit' && !isForeignModel(resolveAlias(name, choice.aliases)) ? name : null;
  };
  // A definition's model was resolved when its file was read; one that still
  // cannot run (another vendor's, or unknown) is kept only for the alias table.
  const fromDefinition = usable(choice.definition);
  const definitionModel = fromDefinition && isRunnableModel(fromDefinition, choice.aliases) ? fromDefinition : null;
  const chosen = usable(requestedModel(choice.requested, choice.aliases)) ?? definitionModel ?? choice.parent ?? choice.defaultModel;
  return resolveAlias(chosen, choice.aliases);
}

/**
 * A model asked for by name (the CLI's `--model`, a spawn call's `model`),
 * read the way a definition's `model` is: a dotted id or display name
 * (`claude-sonnet-4.5`, `Claude Sonnet 4.5`) becomes the id the API serves.
 * A name the alias table has, and a name that resolves to nothing Claude,
 * stay as written (the latter is sent as a full model id, for endpoints with
 * models of their own).
 */
export function requestedModel(requested: string | null | undefined, aliases: Readonly<Record<string, string>>): string | null {
  const name = requested?.trim();
  if (!name) return null;
  if (Object.hasOwn(aliases, name) || Object.hasOwn(aliases, name.toLowerCase())) return name;
  const resolved = resolveModelField(name);
  return resolved?.runs && resolved.model ? resolved.model : name;
}


export function resolveAlias(model: string, aliases: Readonly<Record<string, string>>): string {
  return own(aliases, model) ?? own(aliases, model.toLowerCase()) ?? model;
}

/** List prices in USD per million tokens. Cache writes cost 1.25× input, cache reads 0.1× input. */
interface Price {
  input: number;
  output: number;
}

const FAMILY_PRICES: Array<[RegExp, Price]> = [
  [/opus-4-[01]|opus-4$|opus-3/, { input: 15, output: 75 }],
  [/opus/, { input: 5, output: 25 }],
  [/sonnet/, { input: 3, output: 15 }],
  [/haiku-3-5|haiku-3/, { input: 0.8, output: 4 }],
  [/haiku/, { input: 1, output: 5 }],
];

export function priceOf(model: string): Price | null {
  const id = model.toLowerCase();
  // `npm start`'s demo model (demo-sonnet, …) answers from a script: free.
  if (id.startsWith('demo-')) return null;
  return FAMILY_PRICES.find(([re]) => re.test(id))?.[1] ?? null;
}

/** The estimated cost of `usage` on `model`; 0 when the model's price is unknown. */
export function costOf(model: string, usage: Omit<Usage, 'costUsd'>): number {
  const price = priceOf(model);
  if (!price) return 0;
  const perToken = (usd: number) => usd / 1_000_000;
  return (
    usage.inputTokens * perToken(price.input) +
    usage.cacheWriteTokens * perToken(price.input * 1.25) +
    usage.cacheReadTokens * perToken(price.input * 0.1) +
    usage.outputTokens * perToken(price.output)
  );
}
