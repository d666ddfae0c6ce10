import type { AgentDefinition, DiscoveryWarning, ShadowedDefinition } from './definition';

/**
 * First-wins dedup over dirs in precedence order (SPEC S2.1, S2.2). Pure and
 * cheap (one pass, one Set), so the catalog recomputes it from cached
 * per-file results after every change instead of patching a merged list.
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
}

/** `dirs`: each dir's files in lexicographic order, dirs in precedence order. */
export function applyPrecedence(dirs: readonly (readonly FileOutcome[])[], extraWarnings: readonly DiscoveryWarning[] = []): DiscoveredAgents {
  const agents: AgentDefinition[] = [];
  const shadowed: ShadowedDefinition[] = [];
  const warnings: DiscoveryWarning[] = [...extraWarnings];
  // Exact, case-sensitive names: `Task` and `task` are different agents.
  const winners = new Map<string, AgentDefinition>();
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
      }
    }
  }
  return { agents, shadowed, warnings };
}
