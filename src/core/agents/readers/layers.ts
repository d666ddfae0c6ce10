import type { AgentDefinition } from '../definition';
import { interpretOpencode, mergeDeep } from './opencode';

/**
 * opencode and Kilo Code read every config folder and file in a fixed
 * order, each merged over the ones before it field by field (remeda's
 * mergeDeep): a project's `.opencode/agents/review.md` that sets only
 * `model` keeps the description and prompt of `~/.config/opencode`'s
 * `review`. Each file's definition keeps its fields as written (`layer`);
 * here the layers of one name, highest first, become the definition the
 * home tool would use, attributed to the winning file.
 */

/** Warnings of the merged reading are not shown: each layer's own file was warned about already. */
const QUIET = { warn: () => undefined };

/** The layers of one name, highest precedence first → the merged definition, or why the home tool refuses it. */
export function mergeLayers(layers: readonly AgentDefinition[]): AgentDefinition | { refused: string } {
  const top = layers[0]!;
  let config: Record<string, unknown> = {};
  for (let i = layers.length - 1; i >= 0; i--) config = mergeDeep(config, layers[i]!.layer ?? {});
  const outcome = interpretOpencode(
    config,
    top.name,
    { filePath: top.filePath, source: top.source, family: top.family, pluginName: top.pluginName ?? null, kilo: top.format === 'kilo' },
    QUIET,
  );
  if ('refused' in outcome) return outcome;
  return { ...outcome.definition, mergedFrom: layers.map((layer) => layer.filePath) };
}
