import type { AgentDefinition, DiscoveryWarning, ShadowedDefinition } from './definition';

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
  let changed = false;
  const spawns = [...definition.spawns];
  for (const name of definition.spawns) {
    const sibling = definition.pluginName ? `${definition.pluginName}:${name}` : null;
    const qualified = sibling && winners.has(sibling) ? sibling : Object.hasOwn(aliases, name) ? aliases[name] : undefined;
    if (qualified && !spawns.includes(qualified)) {
      spawns.push(qualified);
      changed = true;
    }
  }
  return changed ? { ...definition, spawns } : definition;
}

/** `dirs`: each dir's files in lexicographic order, dirs in precedence order. */
export function applyPrecedence(dirs: readonly (readonly FileOutcome[])[], extraWarnings: readonly DiscoveryWarning[] = []): DiscoveredAgents {
  const agents: AgentDefinition[] = [];
  const shadowed: ShadowedDefinition[] = [];
  const warnings: DiscoveryWarning[] = [...extraWarnings];
  // Exact, case-sensitive names: `Task` and `task` are different agents.
  const winners = new Map<string, AgentDefinition>();
  let plugins = false;
  for (const files of dirs) {
    for (const file of files) {
      for (const warning of file.warnings) warnings.push(warning);
      const definition = file.definition;
      if (!definition) continue;
      const winner = winners.get(definition.name);
      if (winner) {
        shadowed.push({ definition, shadowedBy: { source: winner.source, family: winner.family, filePath: winner.filePath } });
      } else {
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
    if (bare !== null) byBare.set(bare, [...(byBare.get(bare) ?? []), agent]);
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
