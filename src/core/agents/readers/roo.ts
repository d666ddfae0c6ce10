import { parse as parseYaml } from 'yaml';
import type { AgentDefinition, PermissionRule, PromptInclude } from '../definition';
import { quote } from '../interpretation/fieldValues';
import { ROO_ALWAYS, ROO_GROUPS, ROO_RETIRED_GROUPS } from '../formats/roo';
import type { AgentFileContext, FileWarnings, ParsedAgentFile } from '../interpretation/interpret';
import { exceedsValueBudget, MAX_YAML_VALUES } from '../parsing/frontmatter';
import { parseYamlFastPath } from '../parsing/yamlFastPath';
import { firstSentence, isRecord, makeDefinition, warnUnread } from './shared';

/**
 * Roo Code's custom modes (and Kilo Code's, in the same format): one file,
 * many modes. Each mode is checked on its own, more forgivingly than Roo
 * Code (which drops every mode of a file when one is invalid): an invalid
 * mode is skipped with a warning naming it and the problem, and the others
 * load. The prompt is put together as Roo Code puts it together: the role
 * definition, then the user's custom instructions block with the mode's own
 * instructions and its `.roo/rules-<slug>/` files (read when it starts).
 */

const MODE_KEYS = ['slug', 'name', 'roleDefinition', 'whenToUse', 'description', 'customInstructions', 'groups', 'source', 'rulesFiles', 'iconName'];
const WRITE = ['Write', 'Edit', 'MultiEdit'];
/** Kilo Code runs these slugs as its own agents, not as custom modes. */
const KILO_NATIVE = ['code', 'build', 'architect', 'ask', 'debug', 'orchestrator'];

/** The heading Roo Code puts before the user's instructions in every mode's prompt. */
export const ROO_INSTRUCTIONS_HEADING =
  "====\n\nUSER'S CUSTOM INSTRUCTIONS\n\nThe following additional instructions are provided by the user, and should be followed to the best of your ability.";

/** What Roo Code replaces before parsing a modes file: characters editors and chat tools put in by themselves. */
function cleanText(text: string): string {
  return text
    .replace(/^\uFEFF/, '')
    .replace(/\u00A0/g, ' ')
    .replace(/[\u200B-\u200D\uFEFF]/g, '')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201C\u201D]/g, '"');
}

/** The file's text → its `customModes` list, or why it cannot be read. */
function modesOf(text: string, filePath: string): { modes: unknown[] } | { problem: string } {
  let data: unknown;
  const cleaned = cleanText(text);
  try {
    // The plain shapes most modes files have are read by the fast path, which gives exactly what the yaml package gives (and declines the rest).
    data = parseYamlFastPath(cleaned) ?? parseYaml(cleaned, { maxAliasCount: 100 });
  } catch (error) {
    // `.roomodes` may be JSON that is not YAML (a tab in it): Roo Code tries JSON then.
    try {
      if (!/\.roomodes$/.test(filePath) && !/\.kilocodemodes$/.test(filePath)) throw error;
      data = JSON.parse(text) as unknown;
    } catch {
      const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
      return { problem: `it is neither valid YAML nor JSON: ${reason}` };
    }
  }
  if (data === null || data === undefined) return { modes: [] };
  if (!isRecord(data)) return { problem: 'it is not a map holding "customModes"' };
  if (exceedsValueBudget(data, MAX_YAML_VALUES)) return { problem: `its YAML expands to more than ${MAX_YAML_VALUES.toLocaleString('en-US')} values through aliases` };
  // An empty map is no modes; a map without the list (a single mode written at the top) is a mistake Roo Code only logs.
  if (data.customModes === undefined) return Object.keys(data).length === 0 ? { modes: [] } : { problem: 'it has no "customModes" list of modes, so Roo Code reads no mode from it' };
  if (!Array.isArray(data.customModes)) return { problem: '"customModes" must be a list of modes' };
  return { modes: data.customModes };
}

interface GroupsRead {
  tools: string[];
  rules: PermissionRule[];
}

/** A mode's `groups` → its tools and the file restriction of its edit group; a string when invalid. */
function readGroups(raw: unknown, slug: string): GroupsRead | string {
  if (raw === undefined) return 'it has no "groups" (Roo Code requires its list of tool groups)';
  if (!Array.isArray(raw)) return '"groups" must be a list of tool groups';
  const tools = new Set<string>(ROO_ALWAYS);
  const rules: PermissionRule[] = [];
  const seen = new Set<string>();
  for (const entry of raw) {
    const [group, options] = Array.isArray(entry) ? [entry[0], entry[1]] : [entry, undefined];
    if (typeof group !== 'string') return `a group must be a name or [name, { fileRegex }], not ${quote(entry)}`;
    if (ROO_RETIRED_GROUPS.includes(group)) continue;
    if (!Object.hasOwn(ROO_GROUPS, group)) return `"${group}" is not a tool group (read, edit, command, mcp, modes)`;
    if (seen.has(group)) return `the group "${group}" is listed twice`;
    seen.add(group);
    for (const tool of ROO_GROUPS[group]!) tools.add(tool);
    if (group === 'mcp') tools.add('mcp__*');
    if (options === undefined || options === null) continue;
    if (!isRecord(options)) return `the options of group "${group}" must be { fileRegex, description }`;
    const fileRegex = options.fileRegex;
    if (fileRegex === undefined) continue;
    if (typeof fileRegex !== 'string') return `"fileRegex" must be text, not ${quote(fileRegex)}`;
    try {
      new RegExp(fileRegex);
    } catch (error) {
      return `"fileRegex" ${quote(fileRegex)} is not a valid regular expression (${(error as Error).message})`;
    }
    if (group !== 'edit') continue;
    const why = typeof options.description === 'string' && options.description.trim() ? ` (${options.description.trim()})` : '';
    // Roo Code refuses an edit to a path the pattern does not match, whatever the approvals say.
    rules.push({ tools: WRITE, pattern: fileRegex, syntax: 'regex', negate: true, action: 'deny', origin: `mode "${slug}" may only edit files matching ${fileRegex}${why}` });
  }
  return { tools: [...tools], rules };
}

/** Where Roo Code finds a mode's own rules: `.roo/rules-<slug>/` (global, then the project's), else `.roorules-<slug>`, `.clinerules-<slug>`. */
function rulesInclude(slug: string): PromptInclude {
  return { as: 'rules', paths: [`~/.roo/rules-${slug}`, `.roo/rules-${slug}`, `.roorules-${slug}`, `.clinerules-${slug}`], written: `.roo/rules-${slug}/`, required: false };
}

function readMode(raw: unknown, index: number, context: AgentFileContext, kilo: boolean, warn: FileWarnings): AgentDefinition | string {
  if (!isRecord(raw)) return `mode ${index + 1} is not a map of fields`;
  const slug = raw.slug;
  const label = typeof slug === 'string' && slug ? `mode "${slug}"` : `mode ${index + 1}`;
  if (typeof slug !== 'string' || !/^[a-zA-Z0-9-]+$/.test(slug)) return `${label}: "slug" must be letters, digits and "-"${slug === undefined ? ', and it is missing' : `, not ${quote(slug)}`}`;
  for (const key of ['name', 'roleDefinition'] as const) {
    if (typeof raw[key] !== 'string' || !(raw[key] as string).trim()) return `${label}: "${key}" is required`;
  }
  for (const key of ['whenToUse', 'description', 'customInstructions'] as const) {
    if (raw[key] !== undefined && raw[key] !== null && typeof raw[key] !== 'string') return `${label}: "${key}" must be text, not ${quote(raw[key])}`;
  }
  const groups = readGroups(raw.groups, slug);
  if (typeof groups === 'string') return `${label}: ${groups}`;
  if (kilo && KILO_NATIVE.includes(slug)) return `${label} is not loaded: Kilo Code runs "${slug}" as its own agent, not as a custom mode`;

  const unknown = Object.keys(raw).filter((key) => !MODE_KEYS.includes(key));
  warnUnread(unknown.map((key) => `${slug}.${key}`), `${kilo ? 'Kilo Code' : 'Roo Code'} drops fields a mode does not have`, warn);
  const role = (raw.roleDefinition as string).trim();
  const instructions = typeof raw.customInstructions === 'string' ? raw.customInstructions.trim() : '';
  const whenToUse = typeof raw.whenToUse === 'string' ? raw.whenToUse.trim() : '';
  const summary = typeof raw.description === 'string' ? raw.description.trim() : '';
  const name = (raw.name as string).trim();
  const extra: Record<string, unknown> = { groups: raw.groups };
  for (const key of unknown) extra[key] = raw[key];
  return makeDefinition(context, 'roo', {
    name: slug,
    displayName: name,
    // What the parent reads to pick a mode: Roo Code tells its model `whenToUse`, else the role's first sentence; Kilo Code takes description, whenToUse, then the name.
    description: kilo ? summary || whenToUse || name : whenToUse || summary || firstSentence(role),
    systemPrompt: kilo
      ? [role, instructions].filter(Boolean).join('\n\n')
      : instructions
        ? `${role}\n\n${ROO_INSTRUCTIONS_HEADING}\n\nMode-specific Instructions:\n${instructions}`
        : role,
    tools: groups.tools,
    // Every mode may hand work to another (`new_task`).
    spawns: '*',
    extra,
    permissions: groups.rules,
    promptIncludes: kilo ? [] : [rulesInclude(slug)],
  });
}

/** A custom modes file: every valid mode, each named by its slug. */
export function readModesFile(text: string, context: AgentFileContext, warn: FileWarnings): ParsedAgentFile {
  const read = modesOf(text, context.filePath);
  if ('problem' in read) return warn.skip(read.problem);
  const kilo = context.family === '.kilo';
  const definitions: AgentDefinition[] = [];
  read.modes.forEach((raw, index) => {
    const mode = readMode(raw, index, context, kilo, warn);
    if (typeof mode === 'string') {
      warn.warn(mode.includes(' is not loaded') ? mode : `${mode}; this mode is not loaded (the file's other modes are)`);
      return;
    }
    if (definitions.some((d) => d.name === mode.name)) {
      warn.warn(`mode "${mode.name}" is defined twice in this file; the first one is used`);
      return;
    }
    definitions.push(mode);
  });
  const [first, ...siblings] = definitions;
  return { definition: first ?? null, ...(siblings.length > 0 ? { siblings } : {}), warnings: warn.list };
}
