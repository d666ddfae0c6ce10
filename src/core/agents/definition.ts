import { mcpDeclarationSchema } from '../mcp/spec';
import * as z from 'zod';
import { PERMISSION_MODES } from '../../protocol/tools';
import {
  AGENT_FAMILIES,
  AGENT_FORMATS,
  AGENT_SOURCES,
  THINKING_LEVELS,
  type AgentFamily,
  type AgentSource,
} from './kinds';

/**
 * The normalised agent definition: what every agent file, whatever
 * tool it was written for, becomes after parsing. The engine, the catalog and
 * every surface work with this shape only.
 */

export * from './kinds';

export const agentSourceSchema = z.enum(AGENT_SOURCES);
export const agentFamilySchema = z.enum(AGENT_FAMILIES);
export const agentFormatSchema = z.enum(AGENT_FORMATS);
export const thinkingLevelSchema = z.enum(THINKING_LEVELS);
export const agentPermissionModeSchema = z.enum(PERMISSION_MODES);

/**
 * A follow-up a surface may offer once the agent has answered (Copilot's
 * `handoffs`): switch to `agent` with `prompt`, sent at once when `send`.
 */
export const handoffSchema = z.object({
  label: z.string(),
  agent: z.string(),
  prompt: z.string(),
  send: z.boolean(),
  /** A model for the next agent, resolved like `model` (null: that agent's own). */
  model: z.string().nullable(),
});
export type Handoff = z.infer<typeof handoffSchema>;

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

  // Fields added for the other formats. Optional so that code
  // building definitions by hand keeps compiling; parsing always sets them,
  // and an absent one means the default written next to it.

  /** Which format the file was read as (absent: `claude-code`). */
  format: agentFormatSchema.optional(),
  /** The plugin that ships the agent (`plugin.json` name); its agents are also addressable as `plugin:agent`. */
  pluginName: z.string().nullable().optional(),
  /** Copilot `handoffs` (absent: none). */
  handoffs: z.array(handoffSchema).optional(),
  /** Copilot `target`: `vscode` or `github-copilot` (absent: every environment). */
  target: z.string().nullable().optional(),
  /** Whether a user may pick the agent (Copilot `user-invocable`; absent: true). */
  userInvocable: z.boolean().optional(),
  /** Whether another agent may start it on its own (`disable-model-invocation`, `infer: false`; absent: true). */
  modelInvocable: z.boolean().optional(),
  /** Copilot `argument-hint`: what to type after the agent's name. */
  argumentHint: z.string().nullable().optional(),
  /** The file's MCP field (Codex `mcp_servers`, Copilot `mcp-servers`, Gemini `mcp_servers`, Claude Code `mcpServers`), as written. */
  mcpServers: z.unknown().optional(),
  /** The servers that field declares, read as the format reads them (absent: none). */
  mcp: z.array(mcpDeclarationSchema).optional(),
  /** Codex `nickname_candidates`: display names for running instances. */
  nicknames: z.array(z.string()).optional(),
  /** Claude Code `initialPrompt`: sent before the user's prompt when the agent runs as the root agent. */
  initialPrompt: z.string().nullable().optional(),
  /** Gemini `display_name`: a friendlier name for the UI. */
  displayName: z.string().nullable().optional(),
  /** Where an isolated run of the agent starts: `HEAD` (with the user's uncommitted changes) or a branch, tag or commit (absent: the setting's). */
  baseRef: z.string().nullable().optional(),
});
export type AgentDefinition = z.infer<typeof agentDefinitionSchema>;

const NO_ITEMS = Object.freeze([]) as unknown as never[];

/**
 * Every field in the parser's order, holding what a file that does not set it
 * gets. The name, description and prompt are always the file's own, and the
 * source, family and path come from where it was found (here the commonest).
 * The listing store leaves these values out of its file and puts them back
 * on reading, so every definition has one shape. Frozen, with frozen shared
 * empty lists and maps, as the parser's own are: read it, do not change it.
 */
export const DEFINITION_DEFAULTS: Readonly<Required<AgentDefinition>> = Object.freeze({
  name: '',
  description: '',
  systemPrompt: '',
  tools: null,
  disallowedTools: NO_ITEMS,
  spawns: '*',
  model: null,
  thinkingLevel: null,
  maxTurns: null,
  output: null,
  permissionMode: null,
  isolation: null,
  background: false,
  blocking: false,
  color: null,
  source: 'project',
  family: null,
  filePath: '',
  extra: Object.freeze({}) as Record<string, never>,
  format: 'claude-code',
  pluginName: null,
  handoffs: NO_ITEMS,
  target: null,
  userInvocable: true,
  modelInvocable: true,
  argumentHint: null,
  mcpServers: null,
  mcp: NO_ITEMS,
  nicknames: NO_ITEMS,
  initialPrompt: null,
  displayName: null,
  baseRef: null,
});

/** A definition that lost to a higher-precedence one of the same name. */
export interface ShadowedDefinition {
  definition: AgentDefinition;
  shadowedBy: { source: AgentSource; family: AgentFamily | null; filePath: string };
}

/** A problem found while reading agent files; never fatal for the others. */
export interface DiscoveryWarning {
  filePath: string;
  message: string;
}
