import { z } from 'zod';
import {
  AGENT_FAMILIES,
  AGENT_PERMISSION_MODES,
  AGENT_SOURCES,
  THINKING_LEVELS,
  type AgentFamily,
  type AgentSource,
} from './kinds';

/**
 * The normalised agent definition (SPEC S1.1): what every agent file, whatever
 * tool it was written for, becomes after parsing. The engine, the catalog and
 * every surface work with this shape only.
 */

export * from './kinds';

export const agentSourceSchema = z.enum(AGENT_SOURCES);
export const agentFamilySchema = z.enum(AGENT_FAMILIES);
export const thinkingLevelSchema = z.enum(THINKING_LEVELS);
export const agentPermissionModeSchema = z.enum(AGENT_PERMISSION_MODES);

/** `'*'`: any agent; a list: only those (an empty list denies all). */
export const spawnsPolicySchema = z.union([z.literal('*'), z.array(z.string())]);
export type SpawnsPolicy = z.infer<typeof spawnsPolicySchema>;

export const agentDefinitionSchema = z.object({
  /** Case-sensitive identifier: `Task` and `task` are different agents. */
  name: z.string().min(1),
  description: z.string(),
  /** The Markdown body: the agent's system prompt. */
  systemPrompt: z.string(),
  /**
   * Allow-list of tool names, normalised to the runtime's canonical names
   * where known (`read` → `Read`); names the runtime lacks are kept as written
   * (and warned about) and dropped when the tool pool is built. `null`: all
   * tools the runtime allows.
   */
  tools: z.array(z.string()).nullable(),
  disallowedTools: z.array(z.string()),
  spawns: spawnsPolicySchema,
  /** `inherit`, an alias (`sonnet`) or a full model id; null when unset (inherit). */
  model: z.string().nullable(),
  thinkingLevel: thinkingLevelSchema.nullable(),
  maxTurns: z.number().int().positive().nullable(),
  /** JSON Schema for structured output, passed through untouched. */
  output: z.unknown().nullable(),
  permissionMode: agentPermissionModeSchema.nullable(),
  isolation: z.literal('worktree').nullable(),
  background: z.boolean(),
  blocking: z.boolean(),
  color: z.string().nullable(),
  source: agentSourceSchema,
  /** The family whose dir held the file; null for plugin and bundled agents. */
  family: agentFamilySchema.nullable(),
  filePath: z.string(),
  /** Frontmatter fields the product does not know, passed through untouched. */
  extra: z.record(z.string(), z.unknown()),
});
export type AgentDefinition = z.infer<typeof agentDefinitionSchema>;

/** A definition that lost to a higher-precedence one of the same name (S2.2). */
export interface ShadowedDefinition {
  definition: AgentDefinition;
  shadowedBy: { source: AgentSource; family: AgentFamily | null; filePath: string };
}

/** A problem found while reading agent files; never fatal for the others. */
export interface DiscoveryWarning {
  filePath: string;
  message: string;
}

/** Names of the spawn tool the model may call: `Task`, and Claude Code's newer alias `Agent`. */
export const SPAWN_TOOL_NAMES = ['Task', 'Agent'] as const;

export function isSpawnToolName(name: string): boolean {
  return (SPAWN_TOOL_NAMES as readonly string[]).includes(name);
}
