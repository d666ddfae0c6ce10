import { builtinTool, isSpawnToolName, offeredTo, SPAWN_TOOL, type PermissionMode, type ToolSpec } from '../../../protocol/tools';
import type { AgentDefinition, SpawnsPolicy } from '../../agents/definition';

/**
 * The tool pool of one agent: the runtime's tools ∩ the definition's
 * `tools` − `disallowedTools`, less what its permission mode does not offer
 * (plan mode: read-only tools; the spawn tool for the run's first agent
 * only) and the spawn tool at the maximum depth. What each tool is comes
 * from the tool registry (protocol/tools.ts). Names are matched by any
 * spelling the registry knows (`Agent` is the spawn tool `Task` under Claude
 * Code's newer name), case-insensitively.
 */

export interface PoolInput {
  definition: Pick<AgentDefinition, 'tools' | 'disallowedTools' | 'spawns'>;
  /** Every tool the runtime can give, in request order. */
  runtime: readonly ToolSpec[];
  depth: number;
  maxDepth: number;
  mode: PermissionMode;
  /**
   * Its place in a team: a `lead` (it spawns teammates) and a `member` get
   * the team's tools whatever the rest says, and a lead keeps the spawn tool.
   */
  team?: 'lead' | 'member' | null;
}

export interface ToolPool {
  /** Canonical names of the tools the agent gets, in runtime order. */
  tools: string[];
  /** The agent's effective spawns policy. */
  spawns: SpawnsPolicy;
}

/** One key per tool, whatever spelling the file used. */
function key(name: string): string {
  return builtinTool(name)?.name ?? name.trim().toLowerCase();
}

export function computeToolPool(input: PoolInput): ToolPool {
  const { definition, runtime, depth, maxDepth, mode } = input;
  const listed = definition.tools === null ? null : new Set(definition.tools.map(key));
  const denied = new Set(definition.disallowedTools.map(key));
  const canSpawn = depth < maxDepth;
  const teamTool = (tool: ToolSpec) => Boolean(input.team && (tool.team || (input.team === 'lead' && isSpawnToolName(tool.name))));

  const allowed = (tool: ToolSpec) => {
    if (denied.has(key(tool.name))) return false;
    if (teamTool(tool)) return true;
    if (listed === null) return !tool.optIn;
    if (listed.has(key(tool.name))) return true;
    // TaskOutput, TaskStop and SendMessage come with the spawn tool unless the file names them itself.
    return Boolean(tool.withSpawn) && listed.has(SPAWN_TOOL);
  };
  const spawning = (tool: ToolSpec) => isSpawnToolName(tool.name) || Boolean(tool.withSpawn);

  const tools = runtime
    .filter(allowed)
    .filter((tool) => teamTool(tool) || offeredTo(tool.kind, mode, depth))
    .filter((tool) => teamTool(tool) || canSpawn || !spawning(tool))
    .map((tool) => tool.name);

  return { tools, spawns: tools.some(isSpawnToolName) ? definition.spawns : [] };
}

export interface SpawnCheck {
  target: string;
  /** Names of every agent in the catalog, in precedence order. */
  available: readonly string[];
  disabled: readonly string[];
  parentName: string;
  parentSpawns: SpawnsPolicy;
}

/**
 * The spawn checks, in the order docs/running-agents.md ("Spawn checks")
 * lists them; each failure is the exact message the
 * parent model gets back as a tool error (no run starts).
 */
export function checkSpawn(check: SpawnCheck): string | null {
  const { target, available, disabled, parentName, parentSpawns } = check;
  if (!available.includes(target)) return `Unknown agent "${target}". Available: ${available.join(', ') || 'none'}`;
  if (disabled.includes(target)) {
    const enabled = available.filter((name) => !disabled.includes(name));
    return `Agent "${target}" is disabled. Enabled: ${enabled.join(', ') || 'none'}`;
  }
  const explicitlyListed = parentSpawns !== '*' && parentSpawns.includes(target);
  if (parentSpawns !== '*' && !explicitlyListed) {
    return `Cannot spawn "${target}". Allowed: ${parentSpawns.join(', ') || 'none'}`;
  }
  if (target === parentName && !explicitlyListed) {
    return `Agent "${target}" cannot spawn itself: its definition does not allow recursion (list "${target}" in its spawns to allow it).`;
  }
  return null;
}
