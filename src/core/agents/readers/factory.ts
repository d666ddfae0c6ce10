import { quote, stringList, text } from '../interpretation/fieldValues';
import { FACTORY_CATEGORIES } from '../formats/factory';
import type { AgentFileContext, FileWarnings, ParsedAgentFile } from '../interpretation/interpret';
import type { ThinkingLevel } from '../kinds';
import { makeDefinition, modelOf, toolList, warnUnread } from './shared';

/**
 * Factory's custom droids. `tools` is absent (every tool), one category
 * (`read-only`, `edit`, `execute`, `web`, `mcp`) or a list of tool ids;
 * Claude Code names in a copied file mean what they mean there. Every droid
 * keeps a task list (TodoWrite). `disallowedTools`, which Factory's
 * documentation does not name, is honoured as Claude Code honours it:
 * taking tools away is the safe reading of a field Factory may ignore.
 */

const KEYS = ['name', 'description', 'model', 'reasoningEffort', 'tools', 'disallowedTools'];
const EFFORTS: Readonly<Record<string, ThinkingLevel>> = { low: 'low', medium: 'medium', high: 'high' };

export function readFactory(fields: Record<string, unknown>, body: string, context: AgentFileContext, warn: FileWarnings): ParsedAgentFile {
  const name = text(fields.name, 'name', warn);
  if (!name) return warn.skip('it has no "name" (Factory requires one)');
  if (!/^[a-z0-9_-]+$/.test(name)) return warn.skip(`its name "${name}" may hold only lower-case letters, digits, "-" and "_", which Factory checks`);

  let tools: string[] | null = null;
  const raw = fields.tools;
  if (typeof raw === 'string' && Object.hasOwn(FACTORY_CATEGORIES, raw.trim())) tools = [...FACTORY_CATEGORIES[raw.trim()]!];
  else if (raw !== undefined && raw !== null) {
    const listed = stringList(raw, 'tools', warn) ?? [];
    const categories = listed.filter((item) => Object.hasOwn(FACTORY_CATEGORIES, item));
    const ids = listed.filter((item) => !Object.hasOwn(FACTORY_CATEGORIES, item));
    tools = listed.includes('*') ? null : [...new Set([...categories.flatMap((c) => FACTORY_CATEGORIES[c]!), ...toolList(ids, 'factory', warn).tools])];
  }
  // Every droid has its task list.
  if (tools && !tools.includes('TodoWrite')) tools.push('TodoWrite');
  const disallowedList = stringList(fields.disallowedTools, 'disallowedTools', warn);

  const effortRaw = fields.reasoningEffort;
  const effort = typeof effortRaw === 'string' ? EFFORTS[effortRaw.trim().toLowerCase()] : undefined;
  if (effortRaw !== undefined && effortRaw !== null && !effort) warn.warn(`"reasoningEffort" must be low, medium or high, not ${quote(effortRaw)}; it is ignored`);

  const unknown = Object.keys(fields).filter((key) => !KEYS.includes(key));
  warnUnread(unknown, 'Factory reads only name, description, model, reasoningEffort and tools', warn);
  const extra: Record<string, unknown> = {};
  for (const key of unknown) extra[key] = fields[key];
  // `custom:<name>` is a model of the user's own provider (BYOK) in Factory.
  const model = typeof fields.model === 'string' && fields.model.startsWith('custom:') ? fields.model.slice('custom:'.length) : fields.model;
  return {
    definition: makeDefinition(context, 'factory', {
      name,
      description: text(fields.description, 'description', warn) ?? '',
      systemPrompt: body.trim(),
      tools,
      disallowedTools: disallowedList ? toolList(disallowedList, 'factory', warn).tools : [],
      spawns: tools === null || tools.includes('Task') ? '*' : [],
      model: modelOf(model, 'model', warn),
      thinkingLevel: effort ?? null,
      extra,
    }),
    warnings: warn.list,
  };
}
