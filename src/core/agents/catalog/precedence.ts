import type { AgentDefinition, DiscoveryWarning, ShadowedDefinition } from '../definition';
import { mergeLayers } from '../readers/layers';

/**
 * First-wins dedup over dirs in precedence order. Pure and
 * cheap (one pass, one Set), so the catalog recomputes it from cached
 * per-file results after every change instead of patching a merged list.
 *
 * Plugin agents are named `plugin:agent` (parsing qualifies them), as in
 * Claude Code, so a plugin's `explore` never replaces another `explore`.
 * Their bare name stays usable as an alias when no other agent has it.
 */

export interface FileOutcome {
  filePath: string;
  relPath: string;
  /** Null when the file was skipped; its warnings say why. */
  definition: AgentDefinition | null;
  /** The file's further agents, when it holds several (a modes file, an `opencode.json`). */
  siblings?: AgentDefinition[];
  warnings: DiscoveryWarning[];
}

export interface DiscoveredAgents {
  /** Winners, in precedence order. */
  agents: AgentDefinition[];
  shadowed: ShadowedDefinition[];
  warnings: DiscoveryWarning[];
  /** Bare names of plugin agents that only one agent has → that agent's `plugin:agent` name. */
  aliases: Record<string, string>;
}

/** A plugin agent's name without its plugin: `sec:explore` → `explore`; null for other agents. */
export function bareName(definition: Pick<AgentDefinition, 'name' | 'pluginName'>): string | null {
  const prefix = definition.pluginName ? `${definition.pluginName}:` : null;
  return prefix && definition.name.startsWith(prefix) ? definition.name.slice(prefix.length) : null;
}

/**
 * Bare names in a spawns list resolved the way the engine resolves a spawn
 * target: a plugin agent's siblings first, then the aliases. Returns the
 * definition itself when nothing changes.
 */
function qualifySpawns(definition: AgentDefinition, winners: ReadonlyMap<string, AgentDefinition>, aliases: Record<string, string>): AgentDefinition {
  if (definition.spawns === '*') return definition;
  // Copied only once a name changes: most lists are empty or name no plugin agent.
  let spawns: string[] | null = null;
  for (const name of definition.spawns) {
    const sibling = definition.pluginName ? `${definition.pluginName}:${name}` : null;
    const qualified = sibling && winners.has(sibling) ? sibling : Object.hasOwn(aliases, name) ? aliases[name] : undefined;
    if (qualified && !(spawns ?? definition.spawns).includes(qualified)) (spawns ??= [...definition.spawns]).push(qualified);
  }
  return spawns ? { ...definition, spawns } : definition;
}

/** How many definitions a file has: its first, then its siblings (definitionAt); counted rather than listed, so no list is made per file. */
function definitionCount(file: FileOutcome): number {
  return file.definition ? 1 + (file.siblings?.length ?? 0) : 0;
}

function definitionAt(file: FileOutcome, index: number): AgentDefinition {
  return index === 0 ? file.definition! : file.siblings![index - 1]!;
}

/**
 * opencode and Kilo merge every definition of a name in their family field
 * by field (see readers/layers.ts): the merged definition per family and
 * name, made once its first (winning) layer is met. Null when no file has
 * layers.
 */
function mergedLayers(dirs: readonly (readonly FileOutcome[])[]): Map<string, AgentDefinition | { refused: string }> | null {
  let groups: Map<string, AgentDefinition[]> | null = null;
  for (const files of dirs) {
    for (const file of files) {
      const count = definitionCount(file);
      for (let d = 0; d < count; d++) {
        const definition = definitionAt(file, d);
        if (!definition.layer) continue;
        groups ??= new Map();
        const key = `${definition.family}\0${definition.name}`;
        const list = groups.get(key);
        if (list) list.push(definition);
        else groups.set(key, [definition]);
      }
    }
  }
  if (!groups) return null;
  const merged = new Map<string, AgentDefinition | { refused: string }>();
  for (const [key, layers] of groups) if (layers.length > 1) merged.set(key, mergeLayers(layers));
  return merged;
}

/** `dirs`: each dir's files in lexicographic order, dirs in precedence order. */
export function applyPrecedence(dirs: readonly (readonly FileOutcome[])[], extraWarnings: readonly DiscoveryWarning[] = []): DiscoveredAgents {
  const agents: AgentDefinition[] = [];
  const shadowed: ShadowedDefinition[] = [];
  const warnings: DiscoveryWarning[] = [...extraWarnings];
  // Exact, case-sensitive names: `Task` and `task` are different agents.
  const winners = new Map<string, AgentDefinition>();
  const merged = mergedLayers(dirs);
  const refusedSaid = new Set<string>();
  let plugins = false;
  for (const files of dirs) {
    for (const file of files) {
      for (const warning of file.warnings) warnings.push(warning);
      const count = definitionCount(file);
      for (let d = 0; d < count; d++) {
        const layer = definitionAt(file, d);
        const mergedLayer = layer.layer ? merged?.get(`${layer.family}\0${layer.name}`) : undefined;
        if (mergedLayer && 'refused' in mergedLayer) {
          // The layers merged into something the home tool refuses (one of them says `disable: true`): none of them loads, and the winning file says why.
          const key = `${layer.family}\0${layer.name}`;
          if (!refusedSaid.has(key)) warnings.push({ filePath: layer.filePath, message: `agent "${layer.name}" is not loaded: once its ${layer.family} files are merged, ${mergedLayer.refused}` });
          refusedSaid.add(key);
          continue;
        }
        const mergedDefinition = mergedLayer;
        const winner = winners.get(layer.name);
        if (winner) {
          // A lower layer of a merged definition gave it its fields; it did not lose them.
          const intoWinner = mergedDefinition !== undefined && mergedDefinition === winner;
          shadowed.push({ definition: layer, shadowedBy: { source: winner.source, family: winner.family, filePath: winner.filePath }, ...(intoWinner ? { merged: true } : {}) });
          continue;
        }
        const definition = mergedDefinition ?? layer;
        winners.set(definition.name, definition);
        agents.push(definition);
        if (definition.pluginName) plugins = true;
      }
    }
  }
  if (!plugins) return { agents, shadowed, warnings, aliases: {} };

  const byBare = new Map<string, AgentDefinition[]>();
  for (const agent of agents) {
    const bare = bareName(agent);
    if (bare === null) continue;
    const owners = byBare.get(bare);
    if (owners) owners.push(agent);
    else byBare.set(bare, [agent]);
  }
  const aliases: Record<string, string> = {};
  for (const [bare, owners] of byBare) {
    const other = winners.get(bare);
    if (other?.source === 'bundled') {
      for (const owner of owners) {
        warnings.push({ filePath: owner.filePath, message: `"${bare}" is also the name of a built-in agent, which keeps it; this plugin agent is "${owner.name}"` });
      }
    } else if (!other && owners.length === 1) {
      aliases[bare] = owners[0]!.name;
    }
  }
  return { agents: agents.map((agent) => qualifySpawns(agent, winners, aliases)), shadowed, warnings, aliases };
}
