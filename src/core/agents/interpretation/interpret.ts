import { DEFINITION_DEFAULTS, NO_ITEMS, type AgentDefinition, type DiscoveryWarning, type Handoff, type SpawnsPolicy } from '../definition';
import { isSpawnToolName, LISTED_TOOLS, offeredTo, PERMISSION_MODES, SPAWN_TOOL } from '../../../protocol/tools';
import { THINKING_LEVELS, type AgentFamily, type AgentFormat, type AgentSource, type ThinkingLevel } from '../kinds';
import { copilotNameFromFile, FORMATS } from '../formats';
import { readFields, type ReadKey } from './fieldKeys';
import { boolean, oneOf, positiveInteger, quote, stringList, text, type WarningSink } from './fieldValues';
import { jtdToJsonSchema, SchemaTooDeepError } from '../parsing/jtd';
import { resolveModelField } from './modelNames';
import { canonicalToolCsv, NO_REASONS, normaliseToolList, unknownToolWarnings, type NormalisedTools } from './toolNames';
import { readAgentMcpServers } from '../mcpServers/agentField';

/**
 * A file's fields (from YAML frontmatter or a Codex TOML file) → the
 * normalised definition, read the way the file's home tool reads them
 * (`formats/`). Never throws: every problem is a warning, and only a
 * missing name or description costs the agent.
 */

export interface AgentFileContext {
  filePath: string;
  source: AgentSource;
  family: AgentFamily | null;
  /** The format to read the file as; default: by its path and family (`formatOfFile`). */
  format?: AgentFormat;
  /** The plugin whose `agents/` held the file (plugin sources only). */
  pluginName?: string | null;
  /**
   * The file's path below the dir it was found in (`/`-separated), for the
   * formats that name an agent by it (opencode's `team/lead`, Kiro's
   * Markdown agents); without it, worked out from the file's path.
   */
  relPath?: string;
  /**
   * Whether the text holds a CR, when the caller already knows (the reader
   * checks the bytes it just read); saves scanning every body for CRLF.
   */
  hasCarriageReturn?: boolean;
}

export interface ParsedAgentFile {
  /** Null when the file was skipped; the warnings say why. */
  definition: AgentDefinition | null;
  /** The file's further agents, for a file that holds several (a modes file, an `opencode.json`), in the file's order. */
  siblings?: AgentDefinition[];
  warnings: DiscoveryWarning[];
}

/** One file's warnings. */
export class FileWarnings implements WarningSink {
  readonly list: DiscoveryWarning[] = [];
  constructor(private readonly filePath: string) {}

  warn(message: string): void {
    this.list.push({ filePath: this.filePath, message });
  }

  skip(reason: string): ParsedAgentFile {
    const base = this.filePath.slice(Math.max(this.filePath.lastIndexOf('/'), this.filePath.lastIndexOf('\\')) + 1);
    this.warn(`skipped ${base}: ${reason}`);
    return { definition: null, warnings: this.list };
  }
}

const ISOLATION_MODES = ['worktree'] as const;

/** Effort and thinking words of every format, and the level each runs at here; null: unset. */
const THINKING_WORDS: Readonly<Record<string, ThinkingLevel | null>> = {
  ...Object.fromEntries(THINKING_LEVELS.map((level) => [level, level])),
  none: 'off',
  max: 'xhigh',
  inherit: null,
  auto: null,
};

function thinkingLevel(value: unknown, field: string, warn: WarningSink): ThinkingLevel | null | undefined {
  if (value === null || value === undefined) return undefined;
  const word = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  if (word !== undefined && Object.hasOwn(THINKING_WORDS, word)) return THINKING_WORDS[word];
  warn.warn(`"${field}" must be one of ${THINKING_LEVELS.join(', ')}, not ${quote(value)}; it is ignored`);
  return undefined;
}

/** `tools` normalised; null when absent or `*` (all tools). */
function toolsField(raw: unknown, format: AgentFormat, warn: WarningSink): NormalisedTools | null {
  if (typeof raw === 'string' && format !== 'copilot') {
    const canonical = canonicalToolCsv(raw);
    if (canonical) return { tools: canonical, unknown: [], reasons: NO_REASONS, spawnTargets: null };
  }
  const list = stringList(raw, 'tools', warn);
  return list === undefined || list.includes('*') ? null : normaliseToolList(list, format);
}

function spawnsList(raw: unknown, field: string, warn: WarningSink): SpawnsPolicy | undefined {
  const list = stringList(raw, field, warn);
  if (list === undefined) return undefined;
  return list.includes('*') ? '*' : list;
}

function spawnsPolicy(read: Partial<Record<ReadKey, unknown>>, format: AgentFormat, tools: string[] | null, spawnTargets: string[] | null, warn: WarningSink): SpawnsPolicy {
  for (const key of FORMATS[format].spawnsKeys) {
    const explicit = spawnsList(read[key], key, warn);
    if (explicit !== undefined) return explicit;
  }
  // Gemini CLI subagents cannot start other agents.
  if (format === 'gemini') return [];
  // Backward compatibility: an agent given the spawn tool may spawn anyone,
  // unless its `Task(a, b)` pattern names whom.
  if (spawnTargets) return spawnTargets;
  if (tools === null) return '*';
  return tools.some(isSpawnToolName) ? '*' : [];
}

function handoffs(raw: unknown, warn: WarningSink): Handoff[] {
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) {
    warn.warn('"handoffs" must be a list of { label, agent, prompt }; it is ignored');
    return [];
  }
  const out: Handoff[] = [];
  for (const entry of raw) {
    const item = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
    const label = typeof item.label === 'string' ? item.label.trim() : '';
    const agent = typeof item.agent === 'string' ? item.agent.trim() : '';
    if (!label || !agent) {
      warn.warn(`a handoff needs a "label" and an "agent", not ${quote(entry)}; it is ignored`);
      continue;
    }
    const model = item.model === undefined ? null : resolveModelField(item.model)?.model ?? null;
    out.push({ label, agent, prompt: typeof item.prompt === 'string' ? item.prompt : '', send: item.send === true, model });
  }
  return out;
}

/** Codex's rule: a non-empty list of unique names of ASCII letters, digits, spaces, `-` and `_`. */
function nicknames(raw: unknown, warn: WarningSink): string[] {
  const list = stringList(raw, 'nickname_candidates', warn) ?? [];
  const valid = [...new Set(list)].filter((name) => /^[A-Za-z0-9 _-]+$/.test(name));
  if (valid.length < list.length) warn.warn('"nickname_candidates" may hold only unique names of ASCII letters, digits, spaces, "-" and "_"; the others are ignored');
  return valid;
}

function outputSchema(raw: unknown, format: AgentFormat, warn: WarningSink): unknown {
  if (raw === null || raw === undefined) return null;
  if (format !== 'oh-my-pi') return raw;
  let schema: unknown = raw;
  if (typeof raw === 'string') {
    try {
      schema = JSON.parse(raw) as unknown;
    } catch {
      warn.warn('"output" is neither a schema nor JSON text holding one; it is ignored');
      return null;
    }
  }
  try {
    return jtdToJsonSchema(schema);
  } catch (error) {
    if (!(error instanceof SchemaTooDeepError)) throw error;
    warn.warn(`"output" is ignored: ${error.message}`);
    return null;
  }
}

/** What an agent without a `tools` list gets, plus WebSearch: for a Codex agent with `web_search` on and no list of its own. */
const ALL_WITH_WEB_SEARCH = LISTED_TOOLS.filter((spec) => (!spec.optIn && !spec.withSpawn) || spec.name === 'WebSearch').map((spec) => spec.name);
/**
 * Codex's `sandbox_mode: read-only` (and Cursor's `readonly: true`) leaves an
 * agent only the tools that cannot change anything (those plan mode does not
 * offer are denied), and runs it in plan mode, which the agents it starts
 * inherit (a Codex subagent runs under its parent's sandbox).
 */
export const READ_ONLY_DENIED: readonly string[] = LISTED_TOOLS.filter((spec) => spec.kind !== 'spawn' && !offeredTo(spec.kind, 'plan', 0)).map((spec) => spec.name);
/** Gemini CLI subagents never start or steer other agents. */
const GEMINI_DENIED = LISTED_TOOLS.filter((spec) => spec.kind === 'spawn').map((spec) => spec.name);

/** The fields other formats add, as the definition holds them. */
type OtherFormatFields = Required<Pick<AgentDefinition, 'handoffs' | 'target' | 'userInvocable' | 'modelInvocable' | 'argumentHint' | 'mcpServers' | 'mcp' | 'nicknames' | 'initialPrompt' | 'displayName'>>;

const OTHER_FORMAT_KEYS = ['handoffs', 'target', 'userInvocable', 'disableModelInvocation', 'infer', 'argumentHint', 'mcpServers', 'nicknames', 'initialPrompt', 'displayName'] as const;

/** Most files set none of these: one shared answer for them (read it, do not change it). */
const NO_OTHER_FORMAT_FIELDS: OtherFormatFields = Object.freeze({
  handoffs: DEFINITION_DEFAULTS.handoffs,
  target: DEFINITION_DEFAULTS.target,
  userInvocable: DEFINITION_DEFAULTS.userInvocable,
  modelInvocable: DEFINITION_DEFAULTS.modelInvocable,
  argumentHint: DEFINITION_DEFAULTS.argumentHint,
  mcpServers: DEFINITION_DEFAULTS.mcpServers,
  mcp: DEFINITION_DEFAULTS.mcp,
  nicknames: DEFINITION_DEFAULTS.nicknames,
  initialPrompt: DEFINITION_DEFAULTS.initialPrompt,
  displayName: DEFINITION_DEFAULTS.displayName,
});

function hasKeys(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

/** Whether `read` sets any of `keys` (a loop: no closure made per file). */
function setsAny(read: Partial<Record<ReadKey, unknown>>, keys: readonly ReadKey[]): boolean {
  for (let i = 0; i < keys.length; i++) if (read[keys[i]!] !== undefined) return true;
  return false;
}

function otherFormatFields(read: Partial<Record<ReadKey, unknown>>, format: AgentFormat, source: AgentSource, warn: WarningSink): OtherFormatFields {
  if (!setsAny(read, OTHER_FORMAT_KEYS)) return NO_OTHER_FORMAT_FIELDS;
  return {
    handoffs: handoffs(read.handoffs, warn),
    target: text(read.target, 'target', warn) || null,
    userInvocable: boolean(read.userInvocable, 'user-invocable', warn) ?? true,
    modelInvocable: !(boolean(read.disableModelInvocation, 'disable-model-invocation', warn) ?? boolean(read.infer, 'infer', warn) === false),
    argumentHint: text(read.argumentHint, 'argument-hint', warn) || null,
    mcpServers: read.mcpServers ?? null,
    mcp: readAgentMcpServers(read.mcpServers, format, source, warn),
    nicknames: read.nicknames === undefined ? [] : nicknames(read.nicknames, warn),
    initialPrompt: text(read.initialPrompt, 'initialPrompt', warn) || null,
    displayName: text(read.displayName, 'display_name', warn) || null,
  };
}

export interface AgentFields {
  fields: Record<string, unknown>;
  /** The system prompt (the Markdown body, or Codex's `developer_instructions`). */
  body: string;
}

export function interpretFields({ fields, body }: AgentFields, context: AgentFileContext, format: AgentFormat, warn: FileWarnings): ParsedAgentFile {
  const { read, extra } = readFields(fields, format);

  if (format === 'gemini' && typeof read.kind === 'string' && read.kind.trim() === 'remote') {
    return warn.skip('it defines a remote Gemini CLI agent (kind: remote, reached over the A2A protocol), which this runtime cannot run');
  }
  const copilotName = format === 'copilot' ? copilotNameFromFile(context.filePath) : null;
  const name = text(read.name, 'name', warn) || copilotName;
  if (!name) return warn.skip(format === 'codex' ? 'it has no "name" (Codex requires one)' : 'it has no "name" in its frontmatter');
  const description = text(read.description, 'description', warn) ?? (copilotName !== null ? '' : undefined);
  if (description === undefined || (description === '' && copilotName === null)) {
    return warn.skip(format === 'codex' ? 'it has no "description" (Codex requires one)' : 'it has no "description" in its frontmatter');
  }
  if (format === 'codex' && !body.trim()) return warn.skip('it has no "developer_instructions" (Codex requires them: they are the system prompt)');

  const normalised = toolsField(read.tools, format, warn);
  if (normalised) for (const message of unknownToolWarnings(normalised, format)) warn.warn(message);
  let tools = normalised ? normalised.tools : null;
  const disallowedList = stringList(read.disallowedTools, 'disallowedTools', warn);
  const disallowedTools = disallowedList ? normaliseToolList(disallowedList, format).tools : [];
  const spawns = spawnsPolicy(read, format, tools, normalised?.spawnTargets ?? null, warn);

  if (format === 'gemini') {
    // Gemini CLI subagents never get the spawn tool, `*` or not.
    tools = tools?.filter((tool) => !isSpawnToolName(tool)) ?? null;
    for (const tool of GEMINI_DENIED) if (!disallowedTools.includes(tool)) disallowedTools.push(tool);
  }
  // oh-my-pi gives the spawn tool to every agent that says whom it may spawn.
  if (format === 'oh-my-pi' && tools && read.spawns !== undefined && !(Array.isArray(spawns) && spawns.length === 0) && !tools.includes(SPAWN_TOOL)) tools.push(SPAWN_TOOL);
  if (format === 'codex') {
    if (fields.sandbox_mode === 'read-only') for (const tool of READ_ONLY_DENIED) if (!disallowedTools.includes(tool)) disallowedTools.push(tool);
    const webSearch = fields.web_search === 'live' || fields.web_search === 'cached' || (fields.tools as { web_search?: unknown } | undefined)?.web_search === true;
    if (webSearch && tools === null) tools = [...ALL_WITH_WEB_SEARCH];
    delete extra.developer_instructions;
  }

  const resolvedModel = read.model === undefined || read.model === null ? undefined : resolveModelField(read.model);
  if (read.model !== undefined && read.model !== null && !resolvedModel) warn.warn(`"model" must be a name or a list of names, not ${quote(read.model)}; it is ignored`);
  if (resolvedModel?.warning) warn.warn(resolvedModel.warning);

  const thinkingField = read.thinkingLevel !== undefined ? 'thinkingLevel' : format === 'codex' ? 'model_reasoning_effort' : 'effort';
  const level = thinkingLevel(read.thinkingLevel ?? read.effort, thinkingField, warn);

  let permissionMode = oneOf(read.permissionMode, 'permissionMode', PERMISSION_MODES, warn) ?? null;
  if (permissionMode && context.source === 'plugin') {
    warn.warn(`"permissionMode: ${permissionMode}" is ignored: plugin agents cannot set their permission mode (as in Claude Code)`);
    permissionMode = null;
  }
  // Codex agents run under their parent's sandbox, so read-only binds what they start too: plan mode is that here.
  if (format === 'codex' && fields.sandbox_mode === 'read-only') permissionMode = 'plan';

  // One shape for every definition: the fields are listed, not spread.
  const other = otherFormatFields(read, format, context.source, warn);
  const definition: AgentDefinition = {
    // Plugin agents are `plugin:agent`, as in Claude Code (precedence keeps the bare name as an alias where it is theirs alone).
    name: context.pluginName && !name.startsWith(`${context.pluginName}:`) ? `${context.pluginName}:${name}` : name,
    description,
    systemPrompt: ((context.hasCarriageReturn ?? true) && body.includes('\r') ? body.replace(/\r\n/g, '\n') : body).trim(),
    tools,
    // Empty lists and maps are the defaults' shared ones: most agents have them, and each would be kept (and copied by the garbage collector) for nothing.
    disallowedTools: disallowedTools.length > 0 ? disallowedTools : NO_ITEMS,
    spawns: spawns !== '*' && spawns.length === 0 ? NO_ITEMS : spawns,
    model: resolvedModel?.model ?? null,
    thinkingLevel: level === undefined ? (resolvedModel?.thinkingLevel ?? null) : level,
    maxTurns: positiveInteger(read.maxTurns, format === 'gemini' ? 'max_turns' : 'maxTurns', warn) ?? null,
    output: outputSchema(read.output, format, warn),
    permissionMode,
    isolation: oneOf(read.isolation, 'isolation', ISOLATION_MODES, warn) ?? null,
    background: boolean(read.background, 'background', warn) ?? false,
    blocking: boolean(read.blocking, 'blocking', warn) ?? false,
    color: text(read.color, 'color', warn) || null,
    source: context.source,
    family: context.family,
    filePath: context.filePath,
    extra: hasKeys(extra) ? extra : DEFINITION_DEFAULTS.extra,
    format,
    pluginName: context.pluginName ?? null,
    handoffs: other.handoffs,
    target: other.target,
    userInvocable: other.userInvocable,
    modelInvocable: other.modelInvocable,
    argumentHint: other.argumentHint,
    mcpServers: other.mcpServers,
    mcp: other.mcp,
    nicknames: other.nicknames,
    initialPrompt: other.initialPrompt,
    displayName: other.displayName,
    baseRef: text(read.baseRef, 'baseRef', warn) || null,
    permissions: DEFINITION_DEFAULTS.permissions,
    promptIncludes: DEFINITION_DEFAULTS.promptIncludes,
    hooks: DEFINITION_DEFAULTS.hooks,
    layer: DEFINITION_DEFAULTS.layer,
    mergedFrom: DEFINITION_DEFAULTS.mergedFrom,
  };
  return { definition, warnings: warn.list };
}
