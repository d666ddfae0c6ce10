import path from 'node:path';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { AgentDefinition } from '../definition';
import { quote } from '../interpretation/fieldValues';
import type { AgentFileContext, FileWarnings, ParsedAgentFile } from '../interpretation/interpret';
import type { WarningSink } from '../interpretation/fieldValues';
import { LISTED_TOOLS } from '../../../protocol/tools';
import { foldPermissions, permissionRules } from './opencodePermissions';
import { fileStem, isRecord, makeDefinition, modelOf, unenforceableServerTools, warnUnread } from './shared';

/**
 * opencode's agents, and Kilo Code's (an opencode fork): a Markdown file
 * (frontmatter and a body that is the prompt) or one entry of the `agent`
 * key of `opencode.json(c)` / `kilo.json(c)`. Each is one layer: the home
 * tool merges every layer of a name field by field (see mergeLayers), so
 * each definition keeps its fields as written (`layer`) for precedence to
 * merge. A value of the wrong type makes opencode refuse the file (Kilo:
 * skip it with a warning): such a file is skipped here, with the warning.
 */

/** The keys of the agent schema; any other key is a provider option there. */
const KNOWN_KEYS = new Set([
  'name', 'description', 'mode', 'model', 'variant', 'temperature', 'top_p', 'prompt', 'tools', 'permission', 'steps', 'maxSteps',
  'disable', 'hidden', 'hidden_from_cycle', 'color', 'options',
]);
/** Keys read for nothing this runtime does. */
const SAMPLING_KEYS = ['temperature', 'top_p', 'variant', 'options', 'hidden_from_cycle'];
/** Known keys kept on the definition as written (after the unknown ones). */
const EXTRA_KEYS = [...SAMPLING_KEYS, 'mode', 'tools', 'permission'];
const MODES = ['primary', 'subagent', 'all'];
const THEME_COLORS = ['primary', 'secondary', 'accent', 'success', 'warning', 'error', 'info'];

export interface OpencodeContext extends AgentFileContext {
  /** `kilo`: Kilo Code's dialect (`multiedit` folds into `edit`). */
  kilo: boolean;
}

/**
 * The agent's name from where the file is: its path below `agent/` or
 * `agents/` (or `mode/`, `modes/`) without `.md` (`agents/team/lead.md` →
 * `team/lead`); the loader's relative path when it has it.
 */
export function opencodeNameFromPath(filePath: string, relPath?: string): string {
  if (relPath) return relPath.replace(/\.md$/i, '');
  const normalised = filePath.replace(/\\/g, '/');
  const match = /\/(?:agents?|modes?)\/(.+)$/i.exec(normalised);
  return (match?.[1] ?? fileStem(filePath)).replace(/\.md$/i, '');
}

/** Whether the file is in a deprecated `mode/` or `modes/` folder: its agents are primary agents. */
function inModesFolder(filePath: string, relPath?: string): boolean {
  if (relPath !== undefined) return /[\\/]modes?$/.test(filePath.slice(0, filePath.length - relPath.length - 1));
  return /[\\/]modes?[\\/][^\\/]+$/.test(filePath);
}

/** What an agent without a tools list gets (all but the paid web tools and those that come with the spawn tool). */
const EVERY_TOOL = LISTED_TOOLS.filter((spec) => !spec.optIn && !spec.withSpawn).map((spec) => spec.name);

const isText = (v: unknown) => typeof v === 'string';
const isBool = (v: unknown) => typeof v === 'boolean';
const isNumber = (v: unknown) => typeof v === 'number';
const isSteps = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;

/** The schema's checks of plain values: key, test, what it must be. */
const TYPE_CHECKS: readonly (readonly [string, (v: unknown) => boolean, string])[] = [
  ['description', isText, 'text'],
  ['model', isText, 'text (provider/model-id)'],
  ['prompt', isText, 'text'],
  ['mode', (v) => typeof v === 'string' && MODES.includes(v), 'primary, subagent or all'],
  ['steps', isSteps, 'a whole number above 0'],
  ['maxSteps', isSteps, 'a whole number above 0'],
  ['disable', isBool, 'true or false'],
  ['hidden', isBool, 'true or false'],
  ['temperature', isNumber, 'a number'],
  ['top_p', isNumber, 'a number'],
  ['color', (v) => typeof v === 'string' && (/^#[0-9a-f]{6}$/i.test(v) || THEME_COLORS.includes(v)), 'a #rrggbb colour or a theme colour name'],
];

/**
 * `{file:./x.md}` in a prompt is relative to the file it is written in;
 * made absolute here, so that a prompt merged into a definition of another
 * file still reads the right one when the agent starts (`~/` stays: it is
 * the home folder of whoever runs it).
 */
function absoluteFileRefs(prompt: unknown, filePath: string): unknown {
  if (typeof prompt !== 'string' || !prompt.includes('{file:')) return prompt;
  const base = path.dirname(filePath);
  return prompt.replace(/\{file:([^}]+)\}/g, (whole, ref: string) => {
    const target = ref.trim();
    return target.startsWith('~/') || path.isAbsolute(target) ? whole : `{file:${path.join(base, target)}}`;
  });
}

/** Collects the problems that make the home tool refuse an agent. */
class Problems implements WarningSink {
  readonly list: string[] = [];
  warn(message: string): void {
    this.list.push(message);
  }
}

export type OpencodeOutcome = { definition: AgentDefinition } | { refused: string };

/**
 * One agent's merged config (or a single layer) → its definition, or why
 * the home tool refuses it (`disable: true`, a value of the wrong type).
 */
export function interpretOpencode(config: Record<string, unknown>, name: string, context: OpencodeContext, warn: WarningSink, primaryFolder = false): OpencodeOutcome {
  const format = context.kilo ? 'kilo' : 'opencode';
  const tool = context.kilo ? 'Kilo Code' : 'opencode';
  const problems = new Problems();
  for (const [key, ok, expected] of TYPE_CHECKS) {
    const value = config[key];
    if (value !== undefined && value !== null && !ok(value)) problems.warn(`"${key}" must be ${expected}, not ${quote(value)}`);
  }
  const folded = foldPermissions(config.tools, config.permission, context.kilo, problems);
  const permissions = permissionRules(folded.object, problems, warn);
  if (problems.list.length > 0) return { refused: `${tool} refuses it: ${problems.list.join('; ')}` };
  if (config.disable === true) return { refused: 'it is turned off ("disable: true")' };

  const disallowedTools = permissions.disabled;
  for (const tool of unenforceableServerTools(permissions.rules, warn)) if (!disallowedTools.includes(tool)) disallowedTools.push(tool);
  // The web tools are paid per use: every agent gets them only when named, here when its permissions allow them by name.
  const web: string[] = [];
  if (folded.object.webfetch === 'allow') web.push('WebFetch');
  if (folded.object.websearch === 'allow') web.push('WebSearch');
  const mode = primaryFolder ? 'primary' : ((config.mode as string | undefined) ?? 'all');
  const unknown: string[] = [];
  for (const key in config) if (Object.hasOwn(config, key) && !KNOWN_KEYS.has(key)) unknown.push(key);
  warnUnread(unknown, `${tool} passes unknown fields to the model provider as options`, warn);
  warnUnread(SAMPLING_KEYS.filter((key) => config[key] !== undefined && config[key] !== null), 'sampling and provider options are not set here', warn);
  const extra: Record<string, unknown> = {};
  for (const key of unknown) if (config[key] !== undefined) extra[key] = config[key];
  for (const key of EXTRA_KEYS) if (config[key] !== undefined) extra[key] = config[key];

  const layer = { ...config };
  if (primaryFolder) layer.mode = 'primary';
  return { definition: makeDefinition(context, format, {
    name,
    description: typeof config.description === 'string' ? config.description.trim() : '',
    systemPrompt: typeof config.prompt === 'string' ? config.prompt.trim() : '',
    // Every tool is offered unless its permission denies it whole; `permission` decides per call.
    tools: web.length > 0 ? [...EVERY_TOOL, ...web] : null,
    disallowedTools,
    // Without `task` the agent starts nobody; `permission.task` patterns decide whom at the spawn.
    spawns: disallowedTools.includes('Task') ? [] : '*',
    model: modelOf(config.model, 'model', warn),
    maxTurns: (config.steps as number | undefined) ?? (config.maxSteps as number | undefined) ?? null,
    color: typeof config.color === 'string' ? config.color : null,
    extra,
    // A primary agent is one the user starts; opencode does not offer it to the task tool.
    modelInvocable: mode !== 'primary',
    // A hidden subagent is left out of the user's menu; agents can still start it.
    userInvocable: config.hidden !== true,
    permissions: permissions.rules,
    layer,
  }) };
}

/** A Markdown agent file's frontmatter and body. */
export function readOpencodeMarkdown(fields: Record<string, unknown>, body: string, context: OpencodeContext, warn: FileWarnings): ParsedAgentFile {
  // The file's path names it; a frontmatter `name` replaces that name.
  const fromPath = opencodeNameFromPath(context.filePath, context.relPath);
  const name = typeof fields.name === 'string' && fields.name.trim() ? fields.name.trim() : fromPath;
  // Every field but the name, in the file's order (a rest copy: deleting a key would turn the object, kept as the definition's layer, into a slow dictionary).
  const { name: _name, ...config } = fields;
  config.prompt = absoluteFileRefs(body.trim(), context.filePath);
  const outcome = interpretOpencode(config, name, context, warn, inModesFolder(context.filePath, context.relPath));
  if ('refused' in outcome) return warn.skip(outcome.refused);
  return { definition: outcome.definition, warnings: warn.list };
}

/**
 * A config's text as opencode reads it (JSONC: comments and trailing commas
 * allowed). Plain JSON, the commonest, goes through JSON.parse, several
 * times faster and giving the same values; anything else through jsonc-parser.
 */
function parseConfigText(text: string): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    // comments, trailing commas, a byte-order mark, or not JSON at all
  }
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length === 0) return { value };
  const first = errors[0]!;
  const line = text.slice(0, first.offset).split('\n').length;
  return { problem: `it is not valid JSON: ${printParseErrorCode(first.error)} (line ${line})` };
}

/** An `opencode.json(c)` / `kilo.json(c)`: the agents of its `agent` key (and the deprecated `mode` key, primary agents). */
export function readOpencodeConfig(text: string, context: OpencodeContext, warn: FileWarnings): ParsedAgentFile {
  const parsed = parseConfigText(text);
  if ('problem' in parsed) return warn.skip(parsed.problem);
  const data = parsed.value;
  if (!isRecord(data)) return warn.skip('it is not a JSON object');
  const definitions: AgentDefinition[] = [];
  for (const [key, primary] of [['agent', false], ['mode', true]] as const) {
    const entries = data[key];
    if (entries === undefined) continue;
    if (!isRecord(entries)) {
      warn.warn(`"${key}" must be a map of agent names to their settings; it is ignored`);
      continue;
    }
    for (const [name, config] of Object.entries(entries)) {
      if (!isRecord(config)) {
        warn.warn(`agent "${name}" is not loaded: its settings must be a JSON object, not ${quote(config)}`);
        continue;
      }
      const outcome = interpretOpencode({ ...config, ...(config.prompt !== undefined ? { prompt: absoluteFileRefs(config.prompt, context.filePath) } : {}) }, name, context, warn, primary);
      if ('refused' in outcome) warn.warn(`agent "${name}" is not loaded: ${outcome.refused}`);
      else definitions.push(outcome.definition);
    }
  }
  const [first, ...siblings] = definitions;
  return { definition: first ?? null, ...(siblings.length > 0 ? { siblings } : {}), warnings: warn.list };
}

/**
 * remeda's mergeDeep, as opencode merges config layers: plain objects merge
 * key by key (a key already there keeps its place), anything else from
 * `over` replaces; Kilo's `null` deletes.
 */
export function mergeDeep(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    if (value === null) delete out[key];
    else if (isRecord(value) && isRecord(out[key])) out[key] = mergeDeep(out[key] as Record<string, unknown>, value);
    else out[key] = value;
  }
  return out;
}
