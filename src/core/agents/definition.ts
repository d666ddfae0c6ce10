import { mcpDeclarationSchema } from './mcpServers/spec';
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

/**
 * One rule of an agent file's own permissions (opencode's and Kilo's
 * `permission`, Roo's `fileRegex`, Kiro's `allowedTools` and
 * `toolsSettings`): what a call of some tools matching a pattern gets.
 * `allow` runs it without asking (once the user has consented to the file
 * loosening its approvals), `ask` always asks, `deny` refuses it with the
 * rule's origin in the message. Rules are read in order and the last one
 * that matches a call decides, as opencode decides; a call no rule matches
 * is left to the permission mode.
 */
export const PERMISSION_ACTIONS = ['allow', 'ask', 'deny'] as const;
export type PermissionAction = (typeof PERMISSION_ACTIONS)[number];

export const permissionRuleSchema = z.object({
  /** Runtime tool names (`Bash`, `Edit` …), MCP tool patterns, or `*` for every tool. */
  tools: z.array(z.string()),
  /** What the call's subject (a command, a file path, a URL, an agent) must match; null: every call. */
  pattern: z.string().nullable(),
  /** `glob`: `*` any text, `?` one character (opencode's wildcards); `regex`: a JavaScript regular expression; `anchored`: one matching the whole subject. */
  syntax: z.enum(['glob', 'regex', 'anchored']),
  /** The rule matches the calls whose subject does NOT match the pattern (Roo's `fileRegex`: edits outside it). */
  negate: z.boolean(),
  action: z.enum(PERMISSION_ACTIONS),
  /** Where the rule comes from, as the file writes it (`permission.bash "git push*"`), for messages. */
  origin: z.string(),
});
export type PermissionRule = z.infer<typeof permissionRuleSchema>;

/**
 * A file whose text goes into the agent's prompt when it starts (read then,
 * not when the definition is read, so an edit to it counts at the next
 * start): Kiro's `prompt: file://…` (`as: 'prompt'`, the prompt itself) and
 * `resources` (`context`, globs allowed), Roo's mode rules (`rules`, a folder
 * or a file, the first that exists of a list).
 */
export const promptIncludeSchema = z.object({
  as: z.enum(['prompt', 'context', 'rules']),
  /** Absolute paths (or globs), tried in order for `rules`: the first that exists is used. */
  paths: z.array(z.string()),
  /** As the file writes it, for messages. */
  written: z.string(),
  /** A missing file is a warning when the agent starts (Kiro's prompt file); otherwise it is skipped quietly. */
  required: z.boolean(),
});
export type PromptInclude = z.infer<typeof promptIncludeSchema>;

/** A command hook an agent file declares for itself (Kiro's `hooks`), on the events this runtime fires. */
export const agentHookSchema = z.object({
  event: z.enum(['SubagentStart', 'SubagentStop']),
  command: z.string(),
  /** In seconds; null: the runner's default. */
  timeoutSec: z.number().positive().nullable(),
  /** As the file names the event (`agentSpawn`), for messages. */
  written: z.string(),
});
export type AgentHook = z.infer<typeof agentHookSchema>;

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
  /** The file's own permission rules, last match deciding (absent: none; the permission mode decides every call). */
  permissions: z.array(permissionRuleSchema).optional(),
  /** Files whose text joins the prompt when the agent starts (absent: none). */
  promptIncludes: z.array(promptIncludeSchema).optional(),
  /** Command hooks of its own (absent: none). */
  hooks: z.array(agentHookSchema).optional(),
  /**
   * For opencode and Kilo, which merge every definition of one name field by
   * field: the file's own fields as written (the body as `prompt`), so that
   * precedence can merge them; null for other formats.
   */
  layer: z.record(z.string(), z.unknown()).nullable().optional(),
  /** The files merged into this definition, the winning one first (absent: only its own). */
  mergedFrom: z.array(z.string()).optional(),
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
  permissions: NO_ITEMS,
  promptIncludes: NO_ITEMS,
  hooks: NO_ITEMS,
  layer: null,
  mergedFrom: NO_ITEMS,
});

/** A definition that lost to a higher-precedence one of the same name. */
export interface ShadowedDefinition {
  definition: AgentDefinition;
  shadowedBy: { source: AgentSource; family: AgentFamily | null; filePath: string };
  /** Its fields were merged into the winner (opencode and Kilo merge every definition of a name) rather than lost. */
  merged?: boolean;
}

/** A problem found while reading agent files; never fatal for the others. */
export interface DiscoveryWarning {
  filePath: string;
  message: string;
}
