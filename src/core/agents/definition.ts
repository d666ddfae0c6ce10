import type { PermissionMode } from '../../protocol/tools';
import type { McpDeclaration } from './mcpServers/spec';
import type { AgentFamily, AgentFormat, AgentSource, ThinkingLevel } from './kinds';

/**
 * The normalised agent definition: what every agent file, whatever
 * tool it was written for, becomes after parsing. The engine, the catalog and
 * every surface work with this shape only.
 */

export * from './kinds';


/**
 * A follow-up a surface may offer once the agent has answered (Copilot's
 * `handoffs`): switch to `agent` with `prompt`, sent at once when `send`.
 */
export interface Handoff {
  label: string;
  agent: string;
  prompt: string;
  send: boolean;
  /** A model for the next agent, resolved like `model` (null: that agent's own). */
  model: string | null;
}

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

export interface PermissionRule {
  /** Runtime tool names (`Bash`, `Edit` …), MCP tool patterns, or `*` for every tool. */
  tools: string[];
  /** What the call's subject (a command, a file path, a URL, an agent) must match; null: every call. */
  pattern: string | null;
  /** `glob`: `*` any text, `?` one character (opencode's wildcards); `regex`: a JavaScript regular expression; `anchored`: one matching the whole subject. */
  syntax: 'glob' | 'regex' | 'anchored';
  /** The rule matches the calls whose subject does NOT match the pattern (Roo's `fileRegex`: edits outside it). */
  negate: boolean;
  action: PermissionAction;
  /** Where the rule comes from, as the file writes it (`permission.bash "git push*"`), for messages. */
  origin: string;
}

/**
 * A file whose text goes into the agent's prompt when it starts (read then,
 * not when the definition is read, so an edit to it counts at the next
 * start): Kiro's `prompt: file://…` (`as: 'prompt'`, the prompt itself) and
 * `resources` (`context`, globs allowed), Roo's mode rules (`rules`, a folder
 * or a file, the first that exists of a list).
 */
export interface PromptInclude {
  as: 'prompt' | 'context' | 'rules';
  /** Absolute paths (or globs), tried in order for `rules`: the first that exists is used. */
  paths: string[];
  /** As the file writes it, for messages. */
  written: string;
  /** A missing file is a warning when the agent starts (Kiro's prompt file); otherwise it is skipped quietly. */
  required: boolean;
}

/** A command hook an agent file declares for itself (Kiro's `hooks`), on the events this runtime fires. */
export interface AgentHook {
  event: 'SubagentStart' | 'SubagentStop';
  command: string;
  /** In seconds; null: the runner's default. */
  timeoutSec: number | null;
  /** As the file names the event (`agentSpawn`), for messages. */
  written: string;
}

/** `'*'`: any agent; a list: only those (an empty list denies all). */
export type SpawnsPolicy = '*' | string[];

export interface AgentDefinition {
  /** Case-sensitive identifier: `Task` and `task` are different agents. */
  name: string;
  description: string;
  /** The Markdown body: the agent's system prompt. */
  systemPrompt: string;
  /**
   * Allow-list of tool names, normalised to the runtime's canonical names
   * where known (`read` → `Read`); names the runtime lacks are kept as written
   * (and warned about) and dropped when the tool pool is built. `null`: all
   * tools the runtime allows.
   */
  tools: string[] | null;
  disallowedTools: string[];
  spawns: SpawnsPolicy;
  /** `inherit`, an alias (`sonnet`) or a full model id; null when unset (inherit). */
  model: string | null;
  thinkingLevel: ThinkingLevel | null;
  maxTurns: number | null;
  /** JSON Schema for structured output, passed through untouched. */
  output: unknown | null;
  permissionMode: PermissionMode | null;
  isolation: 'worktree' | null;
  background: boolean;
  blocking: boolean;
  color: string | null;
  source: AgentSource;
  /** The family whose dir held the file; null for plugin and bundled agents. */
  family: AgentFamily | null;
  filePath: string;
  /** Frontmatter fields the product does not know, passed through untouched. */
  extra: Record<string, unknown>;

  // Fields added for the other formats. Optional so that code
  // building definitions by hand keeps compiling; parsing always sets them,
  // and an absent one means the default written next to it.

  /** Which format the file was read as (absent: `claude-code`). */
  format?: AgentFormat;
  /** The plugin that ships the agent (`plugin.json` name); its agents are also addressable as `plugin:agent`. */
  pluginName?: string | null;
  /** Copilot `handoffs` (absent: none). */
  handoffs?: Handoff[];
  /** Copilot `target`: `vscode` or `github-copilot` (absent: every environment). */
  target?: string | null;
  /** Whether a user may pick the agent (Copilot `user-invocable`; absent: true). */
  userInvocable?: boolean;
  /** Whether another agent may start it on its own (`disable-model-invocation`, `infer: false`; absent: true). */
  modelInvocable?: boolean;
  /** Copilot `argument-hint`: what to type after the agent's name. */
  argumentHint?: string | null;
  /** The file's MCP field (Codex `mcp_servers`, Copilot `mcp-servers`, Gemini `mcp_servers`, Claude Code `mcpServers`), as written. */
  mcpServers?: unknown;
  /** The servers that field declares, read as the format reads them (absent: none). */
  mcp?: McpDeclaration[];
  /** Codex `nickname_candidates`: display names for running instances. */
  nicknames?: string[];
  /** Claude Code `initialPrompt`: sent before the user's prompt when the agent runs as the root agent. */
  initialPrompt?: string | null;
  /** Gemini `display_name`: a friendlier name for the UI. */
  displayName?: string | null;
  /** Where an isolated run of the agent starts: `HEAD` (with the user's uncommitted changes) or a branch, tag or commit (absent: the setting's). */
  baseRef?: string | null;
  /** The file's own permission rules, last match deciding (absent: none; the permission mode decides every call). */
  permissions?: PermissionRule[];
  /** Files whose text joins the prompt when the agent starts (absent: none). */
  promptIncludes?: PromptInclude[];
  /** Command hooks of its own (absent: none). */
  hooks?: AgentHook[];
  /**
   * For opencode and Kilo, which merge every definition of one name field by
   * field: the file's own fields as written (the body as `prompt`), so that
   * precedence can merge them; null for other formats.
   */
  layer?: Record<string, unknown> | null;
  /** The files merged into this definition, the winning one first (absent: only its own). */
  mergedFrom?: string[];
}

/** The frozen empty list every empty list field of a definition may share (never written to). */
export const NO_ITEMS = Object.freeze([]) as unknown as never[];

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
