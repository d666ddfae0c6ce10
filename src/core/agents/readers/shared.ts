import { DEFINITION_DEFAULTS, type AgentDefinition, type PermissionRule } from '../definition';
import { FORMATS } from '../formats';
import type { AgentFileContext } from '../interpretation/interpret';
import type { AgentFormat } from '../kinds';
import { quote, type WarningSink } from '../interpretation/fieldValues';
import { resolveModelField, type ModelOptions } from '../interpretation/modelNames';
import { normaliseToolList, unknownToolWarnings, type NormalisedTools } from '../interpretation/toolNames';

/**
 * What the readers of the formats added later share: one shape for every
 * definition, the warning for keys a format does not read, and model and
 * tool names read through the format's own tables.
 */

/** A definition of `format` for the file in `context`, every field at its default but those given (one shape for all: see DEFINITION_DEFAULTS). */
export function makeDefinition(context: AgentFileContext, format: AgentFormat, fields: Partial<AgentDefinition> & Pick<AgentDefinition, 'name' | 'description' | 'systemPrompt'>): AgentDefinition {
  // The defaults' copy, then the fields assigned into it: every definition keeps the defaults' one shape
  // (spreading a differing set of fields after them gives each its own, and is several times slower).
  const definition: AgentDefinition = { ...DEFINITION_DEFAULTS };
  Object.assign(definition, fields);
  definition.source = context.source;
  definition.family = context.family;
  definition.filePath = context.filePath;
  definition.format = format;
  definition.pluginName = context.pluginName ?? null;
  return definition;
}

/**
 * One warning for the keys a format's home tool does not read (or reads
 * for nothing this runtime does), naming them: they are kept on the
 * definition as written and change nothing.
 */
export function warnUnread(keys: readonly string[], why: string, warn: WarningSink): void {
  if (keys.length === 0) return;
  const names = keys.map((k) => `"${k}"`).join(', ');
  warn.warn(`${keys.length === 1 ? `field ${names} has` : `fields ${names} have`} no counterpart here (${why}); ${keys.length === 1 ? 'it is kept and changes' : 'they are kept and change'} nothing`);
}

/** The model a field names, resolved; its warning (a model that cannot run here) said once. */
export function modelOf(raw: unknown, field: string, warn: WarningSink, options: ModelOptions = {}): string | null {
  if (raw === undefined || raw === null) return null;
  const resolved = resolveModelField(raw, options);
  if (!resolved) {
    warn.warn(`"${field}" must be a model name, not ${quote(raw)}; it is ignored`);
    return null;
  }
  if (resolved.warning) warn.warn(resolved.warning);
  return resolved.model;
}

/** A tool list read through `format`'s table, its unknown names warned about. */
export function toolList(names: readonly string[], format: AgentFormat, warn: WarningSink): NormalisedTools {
  const normalised = normaliseToolList(names, format);
  for (const message of unknownToolWarnings(normalised, format)) warn.warn(message);
  return normalised;
}

/** `Claude Code`, `opencode` …: the home tool, for messages. */
export function titleOf(format: AgentFormat): string {
  return FORMATS[format].title;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** The file's name without its folder and extension (`reviewer.md` → `reviewer`). */
export function fileStem(filePath: string): string {
  const base = filePath.slice(Math.max(filePath.lastIndexOf('/'), filePath.lastIndexOf('\\')) + 1);
  return base.replace(/\.[^.]*$/, '');
}

/** The first sentence of a text (up to its first `.`, `!` or `?` followed by a space or the end), for a description taken from a prompt. */
export function firstSentence(text: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  const end = /[.!?](\s|$)/.exec(trimmed);
  return end ? trimmed.slice(0, end.index + 1) : trimmed;
}

/** Tools the API runs on its own side: none of their calls passes the permission gate. */
const SERVER_TOOLS = ['WebFetch', 'WebSearch'];

/**
 * The server tools (WebFetch, WebSearch) an agent file's rules would ask
 * about or refuse some calls of: those calls never reach the permission gate
 * (the API runs them), so the tool is not offered at all — a rule meant to
 * restrict never lets more through — with a warning saying so. A tool whose
 * last rule allows every call is kept.
 */
export function unenforceableServerTools(rules: readonly PermissionRule[], warn: WarningSink): string[] {
  const removed: string[] = [];
  for (const tool of SERVER_TOOLS) {
    const covering = rules.filter((rule) => rule.tools.includes('*') || rule.tools.includes(tool));
    if (covering.length === 0) continue;
    const last = covering[covering.length - 1]!;
    if (last.action === 'allow' && last.pattern === null) continue;
    const restricting = covering.filter((rule) => rule.action !== 'allow');
    if (restricting.length === 0) continue;
    removed.push(tool);
    // A rule that takes the whole tool away needs no word: it is not offered, as its file says.
    if (!(last.action === 'deny' && last.pattern === null)) {
      warn.warn(`${tool} is not offered: the API runs it, so its calls cannot be asked about or refused one by one (${restricting.map((r) => r.origin).join('; ')})`);
    }
  }
  return removed;
}
