import { boolean, text } from '../interpretation/fieldValues';
import type { AgentFileContext, FileWarnings, ParsedAgentFile } from '../interpretation/interpret';
import { READ_ONLY_DENIED } from '../interpretation/interpret';
import { fileStem, makeDefinition, modelOf, warnUnread } from './shared';

/**
 * Cursor's subagents. Every field is optional: the name is the file's
 * without `.md`, so a file without frontmatter is an agent too (its whole
 * text the prompt). There is no tools field: a subagent gets every tool,
 * and `readonly: true` takes away whatever writes (files, the shell, MCP
 * tools that do not say they only read) — plan mode here.
 */

const KEYS = ['name', 'description', 'model', 'readonly', 'is_background'];

/** Cursor's own model words: `fast` is its quick model (haiku is the nearest here). */
function cursorModel(raw: unknown, warn: FileWarnings): string | null {
  if (typeof raw === 'string' && raw.trim().toLowerCase() === 'fast') return 'haiku';
  return modelOf(raw, 'model', warn);
}

export function readCursor(fields: Record<string, unknown>, body: string, context: AgentFileContext, warn: FileWarnings): ParsedAgentFile {
  const name = text(fields.name, 'name', warn) || fileStem(context.filePath);
  const unread = Object.keys(fields).filter((key) => !KEYS.includes(key));
  if (unread.includes('tools')) warn.warn('"tools" is ignored: Cursor gives a subagent every tool (use "readonly: true" to take away writing); so does this runtime');
  warnUnread(unread.filter((key) => key !== 'tools'), 'Cursor reads only name, description, model, readonly and is_background', warn);
  const extra: Record<string, unknown> = {};
  for (const key of unread) extra[key] = fields[key];
  const readonly = boolean(fields.readonly, 'readonly', warn) === true;
  return {
    definition: makeDefinition(context, 'cursor', {
      name,
      description: text(fields.description, 'description', warn) ?? '',
      systemPrompt: body.trim(),
      disallowedTools: readonly ? [...READ_ONLY_DENIED] : [],
      model: cursorModel(fields.model, warn),
      permissionMode: readonly ? 'plan' : null,
      background: boolean(fields.is_background, 'is_background', warn) ?? false,
      extra,
    }),
    warnings: warn.list,
  };
}
