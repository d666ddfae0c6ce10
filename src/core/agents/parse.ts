import path from 'node:path';
import {
  AGENT_PERMISSION_MODES,
  THINKING_LEVELS,
  type AgentDefinition,
  type AgentFamily,
  type AgentSource,
  type DiscoveryWarning,
  type SpawnsPolicy,
} from './definition';
import { boolean, oneOf, positiveInteger, stringList, text, type WarningSink } from './fieldValues';
import { parseYamlFrontmatter, splitFrontmatter } from './frontmatter';
import { isForeignModel, isKnownModel } from './modelNames';
import { readSimpleFrontmatter } from './simpleFrontmatter';
import { canonicalToolCsv, normaliseToolList, type NormalisedTools } from './toolNames';
import { DEFINITION_FIELDS } from './kinds';

/**
 * One agent file's text → a normalised definition (SPEC S1). Never throws:
 * every problem is a warning, and only a missing name or description (after
 * the forgiving fallback) costs the agent.
 */

export interface AgentFileContext {
  filePath: string;
  source: AgentSource;
  family: AgentFamily | null;
  /**
   * Whether the text holds a CR, when the caller already knows (the reader
   * checks the bytes it just read); saves scanning every body for CRLF.
   */
  hasCarriageReturn?: boolean;
}

export interface ParsedAgentFile {
  /** Null when the file was skipped; the warnings say why. */
  definition: AgentDefinition | null;
  warnings: DiscoveryWarning[];
}

/** Frontmatter keys with a meaning; everything else goes to `extra`. */
const KNOWN_FIELDS: ReadonlySet<string> = new Set(DEFINITION_FIELDS);

const ISOLATION_MODES = ['worktree'] as const;

/** GitHub Copilot's agent files: name from the file name, description optional (S1.2). */
const COPILOT_SUFFIX = /\.(agent|chatmode)\.md$/i;

export function copilotAgentName(filePath: string): string | null {
  // Both suffixes have a `t` or `e` before `.md`: most files are ruled out without the regex.
  const beforeMd = filePath.charCodeAt(filePath.length - 4) | 0x20;
  if (beforeMd !== 0x74 /* t */ && beforeMd !== 0x65 /* e */) return null;
  // The suffix holds no separator, so the whole path can be tested (cheaper than basename for every file).
  if (!COPILOT_SUFFIX.test(filePath)) return null;
  return path.basename(filePath).replace(COPILOT_SUFFIX, '');
}

/** One file's warnings. */
class FileWarnings implements WarningSink {
  readonly list: DiscoveryWarning[] = [];
  constructor(private readonly filePath: string) {}

  warn(message: string): void {
    this.list.push({ filePath: this.filePath, message });
  }

  skip(reason: string): ParsedAgentFile {
    this.warn(`skipped ${path.basename(this.filePath)}: ${reason}`);
    return { definition: null, warnings: this.list };
  }
}

function spawnsPolicy(
  raw: unknown,
  tools: string[] | null,
  spawnTargets: string[] | null,
  warn: WarningSink,
): SpawnsPolicy {
  const explicit = stringList(raw, 'spawns', warn);
  if (explicit !== undefined) return explicit.includes('*') ? '*' : explicit;
  // Backward compatibility: an agent given the spawn tool may spawn anyone,
  // unless its `Task(a, b)` pattern names whom.
  if (spawnTargets) return spawnTargets;
  if (tools === null) return '*';
  return tools.includes('Task') || tools.includes('Agent') ? '*' : [];
}

/** `tools` normalised; null when absent or `*` (all tools). */
function toolsField(raw: unknown, warn: WarningSink): NormalisedTools | null {
  if (typeof raw === 'string') {
    const canonical = canonicalToolCsv(raw);
    if (canonical) return { tools: canonical, unknown: [], spawnTargets: null };
  }
  const list = stringList(raw, 'tools', warn);
  return list === undefined || list.includes('*') ? null : normaliseToolList(list);
}

function unknownToolsWarning(unknown: string[]): string {
  const quoted = unknown.map((t) => `"${t}"`).join(', ');
  return unknown.length === 1
    ? `tool ${quoted} is not available in this runtime; it will be ignored`
    : `tools ${quoted} are not available in this runtime; they will be ignored`;
}

function frontmatterFields(
  fileText: string,
  warn: WarningSink,
  allowNoFrontmatter: boolean,
): { fields: Record<string, unknown>; body: string } | { skip: string } {
  const split = splitFrontmatter(fileText);
  if (split.kind === 'unterminated') return { skip: 'its frontmatter has no closing "---" line' };
  if (split.kind === 'none') {
    if (allowNoFrontmatter) return { fields: {}, body: split.body };
    return { skip: 'it does not start with a "---" frontmatter block holding its name and description' };
  }
  const yaml = parseYamlFrontmatter(split.frontmatter, split.firstLine);
  if (yaml.ok) return { fields: yaml.data, body: split.body };
  warn.warn(`invalid YAML frontmatter: ${yaml.message}; reading it as simple "key: value" lines instead`);
  return { fields: readSimpleFrontmatter(split.frontmatter), body: split.body };
}

export function parseAgentText(fileText: string, context: AgentFileContext): ParsedAgentFile {
  const warn = new FileWarnings(context.filePath);

  const copilotName = copilotAgentName(context.filePath);
  const parsed = frontmatterFields(fileText, warn, copilotName !== null);
  if ('skip' in parsed) return warn.skip(parsed.skip);
  const { fields } = parsed;

  const name = text(fields.name, 'name', warn) || copilotName;
  if (!name) return warn.skip('it has no "name" in its frontmatter');
  const description = text(fields.description, 'description', warn) ?? (copilotName !== null ? '' : undefined);
  if (description === undefined || (description === '' && copilotName === null)) {
    return warn.skip('it has no "description" in its frontmatter');
  }

  const normalised = toolsField(fields.tools, warn);
  if (normalised && normalised.unknown.length > 0) warn.warn(unknownToolsWarning(normalised.unknown));
  const tools = normalised ? normalised.tools : null;
  const disallowedList = stringList(fields.disallowedTools, 'disallowedTools', warn);
  const disallowedTools = disallowedList ? normaliseToolList(disallowedList).tools : [];

  const model = text(fields.model, 'model', warn) || null;
  if (model && !isKnownModel(model)) {
    warn.warn(
      isForeignModel(model)
        ? `model "${model}" is another provider's model; the agent runs on its parent's model (or subagents.defaultModel) unless subagents.modelAliases maps "${model}" to a Claude model`
        : `model "${model}" is not a known alias (inherit, sonnet, opus, haiku) or a claude-… model id; it is passed on as written`,
    );
  }

  const thinkingRaw = fields.thinkingLevel ?? fields.effort;
  const thinkingField = fields.thinkingLevel !== undefined ? 'thinkingLevel' : 'effort';

  const extra: Record<string, unknown> = {};
  for (const key in fields) {
    if (Object.hasOwn(fields, key) && !KNOWN_FIELDS.has(key)) extra[key] = fields[key];
  }

  const definition: AgentDefinition = {
    name,
    description,
    systemPrompt: ((context.hasCarriageReturn ?? true) && parsed.body.includes('\r') ? parsed.body.replace(/\r\n/g, '\n') : parsed.body).trim(),
    tools,
    disallowedTools,
    spawns: spawnsPolicy(fields.spawns, tools, normalised?.spawnTargets ?? null, warn),
    model,
    thinkingLevel: oneOf(thinkingRaw, thinkingField, THINKING_LEVELS, warn) ?? null,
    maxTurns: positiveInteger(fields.maxTurns, 'maxTurns', warn) ?? null,
    output: fields.output ?? null,
    permissionMode: oneOf(fields.permissionMode, 'permissionMode', AGENT_PERMISSION_MODES, warn) ?? null,
    isolation: oneOf(fields.isolation, 'isolation', ISOLATION_MODES, warn) ?? null,
    background: boolean(fields.background, 'background', warn) ?? false,
    blocking: boolean(fields.blocking, 'blocking', warn) ?? false,
    color: text(fields.color, 'color', warn) || null,
    source: context.source,
    family: context.family,
    filePath: context.filePath,
    extra,
  };
  return { definition, warnings: warn.list };
}
