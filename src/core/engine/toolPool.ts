import type { AgentDefinition, SpawnsPolicy } from '../agents/definition';

/**
 * The tool pool of one agent (S3.3): the runtime's tools ∩ the definition's
 * `tools` − `disallowedTools`; the spawn tool goes at the maximum depth and in
 * plan mode, where only read-only tools remain. Names are matched
 * case-insensitively, and `Agent` is the spawn tool `Task` under Claude
 * Code's newer name.
 */

/** Tools an agent whose definition has no `tools` list gets. Web tools are paid per use: only agents that list them get them. */
const OPT_IN_TOOLS = new Set(['WebSearch', 'WebFetch']);
/** Tools that only make sense next to the spawn tool. */
const SPAWN_COMPANIONS = ['TaskOutput', 'TaskStop'];
/**
 * Comes with the spawn tool as its companions do, but stays where spawning
 * does not (the maximum depth, a plan-mode child): a message starts no agent.
 */
const MESSAGING = 'SendMessage';

export interface PoolInput {
  definition: Pick<AgentDefinition, 'tools' | 'disallowedTools' | 'spawns'>;
  /** Every tool the runtime has, by canonical name, with whether it only reads. */
  runtime: ReadonlyArray<{ name: string; readOnly: boolean }>;
  depth: number;
  maxDepth: number;
  planMode: boolean;
}

export interface ToolPool {
  /** Canonical names of the tools the agent gets, in runtime order. */
  tools: string[];
  /** The agent's effective spawns policy. */
  spawns: SpawnsPolicy;
}

function canonical(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower === 'agent' ? 'task' : lower;
}

export function computeToolPool(input: PoolInput): ToolPool {
  const { definition, runtime, depth, maxDepth, planMode } = input;
  const listed = definition.tools === null ? null : new Set(definition.tools.map(canonical));
  const denied = new Set(definition.disallowedTools.map(canonical));
  const canSpawn = depth < maxDepth && !(planMode && depth > 0);

  const allowed = (name: string) => {
    const key = canonical(name);
    if (denied.has(key)) return false;
    if (listed === null) return !OPT_IN_TOOLS.has(name);
    if (listed.has(key)) return true;
    // TaskOutput, TaskStop and SendMessage come with the spawn tool unless the file names them itself.
    return (SPAWN_COMPANIONS.includes(name) || name === MESSAGING) && listed.has('task');
  };

  const tools = runtime
    .filter((tool) => allowed(tool.name))
    .filter((tool) => !planMode || tool.readOnly)
    .filter((tool) => canSpawn || (tool.name !== 'Task' && !SPAWN_COMPANIONS.includes(tool.name)))
    .map((tool) => tool.name);

  return { tools, spawns: tools.includes('Task') ? definition.spawns : [] };
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
 * The spawn checks of S3.4, in order; each failure is the exact message the
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
