import path from 'node:path';
import { readAgentMcpServers } from '../mcpServers/agentField';
import type { AgentHook, PermissionAction, PermissionRule, PromptInclude } from '../definition';
import { quote, stringList, type WarningSink } from '../interpretation/fieldValues';
import { KIRO_CATEGORIES, KIRO_HOOK_EVENTS, KIRO_KEYS, KIRO_TOOLS } from '../formats/kiro';
import type { AgentFileContext, FileWarnings, ParsedAgentFile } from '../interpretation/interpret';
import { lookupToolName } from '../interpretation/toolNames';
import { LISTED_TOOLS } from '../../../protocol/tools';
import { fileStem, isRecord, makeDefinition, modelOf, unenforceableServerTools, warnUnread } from './shared';

/**
 * Kiro's custom agents: a JSON file, or the newer Markdown form (the body is
 * the prompt, `tools` takes category tags, `permissions` rules). What Kiro
 * runs without asking (`allowedTools`, `toolsSettings`, `permissions` that
 * allow) and what it refuses become the permission gate's rules, ordered so
 * that the last match is the strictest one, as Kiro resolves them (deny
 * over ask over allow).
 */

/**
 * Every built-in tool an agent file may name here: `@builtin` and `*` give
 * them all. The team task list tools are not among them: a team's agents get
 * them with the team, and naming them would hand them to an agent on its own.
 */
const ALL_BUILTIN = LISTED_TOOLS.filter((spec) => !spec.withSpawn && !spec.team).map((spec) => spec.name);
const STRICTNESS: Readonly<Record<PermissionAction, number>> = { allow: 0, ask: 1, deny: 2 };

/** `@server` / `@server/tool` → the MCP tool names the runtime matches against its servers. */
function mcpName(written: string): string | null {
  if (!written.startsWith('@')) return null;
  const rest = written.slice(1);
  const slash = rest.indexOf('/');
  if (slash < 0) return `mcp__${rest}`;
  const tool = rest.slice(slash + 1);
  return `mcp__${rest.slice(0, slash)}__${tool === '*' ? '*' : tool}`;
}

/** A Kiro tool name or tag → runtime tools (and MCP names); null for a name nothing knows. */
function kiroTools(written: string, markdown: boolean): { tools: string[] } | { unknown: string; reason?: string } | null {
  const name = written.trim();
  if (name === '*') return { tools: [...ALL_BUILTIN, 'mcp__*'] };
  if (name === '@builtin') return { tools: [...ALL_BUILTIN] };
  if (name === '@mcp') return { tools: ['mcp__*'] };
  const mcp = mcpName(name);
  if (mcp) return { tools: [mcp] };
  if (markdown && Object.hasOwn(KIRO_CATEGORIES, name)) return { tools: [...KIRO_CATEGORIES[name]!] };
  const mapping = lookupToolName(name, 'kiro');
  if (!mapping) return { unknown: name };
  if ('tools' in mapping) return { tools: [...mapping.tools] };
  if ('external' in mapping) return { tools: [name] };
  if ('implicit' in mapping) return { tools: [] };
  if ('unsupported' in mapping) return { unknown: name, reason: mapping.unsupported };
  return { unknown: name };
}

/** A glob over Kiro's tool names (`fs_*`), as the runtime tools the names it matches stand for. */
function globTools(pattern: string): string[] {
  const regex = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  const out = new Set<string>();
  for (const spelling of KIRO_TOOLS.spellings) {
    if (!regex.test(spelling)) continue;
    const mapping = KIRO_TOOLS.get(spelling.toLowerCase());
    if (mapping && 'tools' in mapping) for (const tool of mapping.tools) out.add(tool);
  }
  return [...out];
}

function rule(tools: string[], pattern: string | null, syntax: PermissionRule['syntax'], action: PermissionAction, origin: string): PermissionRule {
  return { tools, pattern, syntax, negate: false, action, origin };
}

/** `allowedTools`: run without asking. */
function allowedToolRules(raw: unknown, warn: WarningSink): PermissionRule[] {
  const names = stringList(raw, 'allowedTools', warn) ?? [];
  const rules: PermissionRule[] = [];
  for (const name of names) {
    if (name === '*') {
      warn.warn('"allowedTools" may not hold "*" alone (Kiro refuses it); it is ignored');
      continue;
    }
    const mcp = mcpName(name);
    const tools = mcp ? [mcp] : /[*?]/.test(name) ? globTools(name) : (kiroTools(name, false) as { tools?: string[] } | null)?.tools ?? [];
    if (tools.length === 0) {
      warn.warn(`"allowedTools" names "${name}", which is no tool here; it is ignored`);
      continue;
    }
    rules.push(rule(tools, null, 'glob', 'allow', `allowedTools "${name}"`));
  }
  return rules;
}

const WRITE = ['Write', 'Edit', 'MultiEdit'];
const READ = ['Read'];

/** `toolsSettings`: per-tool paths and command patterns. */
function settingsRules(raw: unknown, warn: WarningSink): PermissionRule[] {
  if (raw === undefined || raw === null) return [];
  if (!isRecord(raw)) {
    warn.warn('"toolsSettings" must be a map of tool names to their settings; it is ignored');
    return [];
  }
  const rules: PermissionRule[] = [];
  const list = (value: unknown, where: string) => stringList(value, `toolsSettings.${where}`, warn) ?? [];
  for (const [tool, settings] of Object.entries(raw)) {
    if (!isRecord(settings)) continue;
    const key = tool === 'execute_bash' ? 'shell' : tool === 'fs_write' ? 'write' : tool === 'fs_read' ? 'read' : tool;
    const unused: string[] = [];
    for (const setting of Object.keys(settings)) {
      const value = settings[setting];
      const where = `${tool}.${setting}`;
      if (key === 'shell' && setting === 'allowedCommands') for (const p of list(value, where)) rules.push(rule(['Bash'], p, 'anchored', 'allow', `toolsSettings.${where} "${p}"`));
      else if (key === 'shell' && setting === 'deniedCommands') for (const p of list(value, where)) rules.push(rule(['Bash'], p, 'anchored', 'deny', `toolsSettings.${where} "${p}"`));
      else if (key === 'shell' && setting === 'denyByDefault' && value === true) rules.push(rule(['Bash'], null, 'glob', 'deny', `toolsSettings.${where}`));
      else if ((key === 'write' || key === 'read') && (setting === 'allowedPaths' || setting === 'deniedPaths')) {
        const action = setting === 'allowedPaths' ? 'allow' : 'deny';
        for (const p of list(value, where)) rules.push(rule(key === 'write' ? WRITE : READ, p, 'glob', action, `toolsSettings.${where} "${p}"`));
      } else if (key === 'web_fetch' && (setting === 'trusted' || setting === 'blocked')) {
        for (const p of list(value, where)) rules.push(rule(['WebFetch'], p, 'anchored', setting === 'trusted' ? 'allow' : 'deny', `toolsSettings.${where} "${p}"`));
      } else unused.push(`toolsSettings.${where}`);
    }
    warnUnread(unused, 'only the shell\'s commands, read and write paths and web_fetch\'s URLs are enforced here', warn);
  }
  return rules;
}

/** The newer Markdown form's `permissions: [{ capability, effect, match, exclude }]`. */
function permissionListRules(raw: unknown, warn: WarningSink): PermissionRule[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    warn.warn('"permissions" must be a list of { capability, effect, match }; it is ignored');
    return [];
  }
  const rules: PermissionRule[] = [];
  const capabilities: Readonly<Record<string, string[]>> = {
    shell: ['Bash'], fs_read: READ, read: READ, fs_write: WRITE, write: WRITE, web: ['WebFetch', 'WebSearch'], mcp: ['mcp__*'], all: ['*'],
  };
  for (const entry of raw) {
    const item = isRecord(entry) ? entry : {};
    const capability = typeof item.capability === 'string' ? item.capability : '';
    const effect = item.effect;
    if (!Object.hasOwn(capabilities, capability) || (effect !== 'allow' && effect !== 'ask' && effect !== 'deny')) {
      warn.warn(`a permission needs a known "capability" (${Object.keys(capabilities).join(', ')}) and an "effect" (allow, ask, deny), not ${quote(entry)}; it is ignored`);
      continue;
    }
    const tools = capabilities[capability]!;
    const match = stringList(item.match, 'permissions.match', warn) ?? [];
    const exclude = stringList(item.exclude, 'permissions.exclude', warn) ?? [];
    const origin = `permissions ${capability}: ${effect}`;
    if (match.length === 0) rules.push(rule(tools, null, 'glob', effect, origin));
    for (const p of match) rules.push(rule(tools, p, 'glob', effect, `${origin} "${p}"`));
    // An excluded resource is not covered by the rule: the mode decides it, unless another rule does.
    if (exclude.length > 0) warnUnread(['permissions.exclude'], 'exclusions are not enforced here; the rule covers those resources too', warn);
  }
  return rules;
}

/** `file://path` (relative to `base`), `~/` the home folder; null for another scheme. */
function fileUri(written: string, base: string | null): string | null {
  if (!written.startsWith('file://')) return null;
  let target = written.slice('file://'.length);
  if (target.startsWith('~/')) return target;
  if (path.isAbsolute(target)) return target;
  target = target.replace(/^\.\//, '');
  return base ? path.join(base, target) : target;
}

function hooksOf(raw: unknown, warn: WarningSink): AgentHook[] {
  if (raw === undefined || raw === null) return [];
  if (!isRecord(raw)) {
    warn.warn('"hooks" must be a map of events to lists of { command }; it is ignored');
    return [];
  }
  const hooks: AgentHook[] = [];
  for (const [event, entries] of Object.entries(raw)) {
    const mapped = Object.hasOwn(KIRO_HOOK_EVENTS, event) ? KIRO_HOOK_EVENTS[event] : undefined;
    if (!mapped) {
      warn.warn(mapped === null ? `hook event "${event}" is not fired here (only agentSpawn and stop are); its hooks do not run` : `hooks: "${event}" is not a Kiro hook event; it is ignored`);
      continue;
    }
    for (const entry of Array.isArray(entries) ? entries : [entries]) {
      const command = isRecord(entry) && typeof entry.command === 'string' ? entry.command.trim() : '';
      if (!command) {
        warn.warn(`a "${event}" hook needs a "command", not ${quote(entry)}; it is ignored`);
        continue;
      }
      const ms = isRecord(entry) ? entry.timeout_ms : undefined;
      hooks.push({ event: mapped, command, timeoutSec: typeof ms === 'number' && ms > 0 ? ms / 1000 : null, written: event });
    }
  }
  return hooks;
}

export function readKiro(fields: Record<string, unknown>, body: string | null, context: AgentFileContext, warn: FileWarnings): ParsedAgentFile {
  const markdown = body !== null;
  const unknown = Object.keys(fields).filter((key) => !KIRO_KEYS.includes(key) && key !== 'permissions');
  // Kiro CLI (after Q Developer CLI) refuses a JSON agent with a key it does not know.
  if (!markdown && unknown.length > 0) return warn.skip(`it has ${unknown.length === 1 ? 'a key' : 'keys'} Kiro does not know (${unknown.map((k) => `"${k}"`).join(', ')}), which makes Kiro refuse it`);
  // A Markdown agent is named by its path below the agents folder (`team/planner`), a JSON one by its file.
  const below = markdown ? (context.relPath ?? /[\\/]\.kiro[\\/]agents[\\/](.+)$/.exec(context.filePath)?.[1]?.replace(/\\/g, '/')) : undefined;
  const stem = below ? below.replace(/\.md$/i, '') : fileStem(context.filePath);
  const name = typeof fields.name === 'string' && fields.name.trim() ? fields.name.trim() : stem;
  for (const key of ['name', 'description', 'prompt', 'model'] as const) {
    if (fields[key] !== undefined && fields[key] !== null && typeof fields[key] !== 'string') return warn.skip(`"${key}" must be text, not ${quote(fields[key])} (Kiro refuses it)`);
  }

  const includes: PromptInclude[] = [];
  let systemPrompt = markdown ? body.trim() : '';
  if (!markdown && typeof fields.prompt === 'string') {
    const file = fileUri(fields.prompt.trim(), path.dirname(context.filePath));
    if (file) includes.push({ as: 'prompt', paths: [file], written: fields.prompt.trim(), required: true });
    else systemPrompt = fields.prompt.trim();
  }
  for (const resource of stringList(fields.resources, 'resources', warn) ?? []) {
    // Relative resources are the workspace's files: read from the agent's working folder when it starts.
    const file = fileUri(resource, null);
    if (file) includes.push({ as: 'context', paths: [file], written: resource, required: false });
    else warn.warn(`resource "${resource}" is not a file:// resource; only files are added to the context here`);
  }

  const tools = new Set<string>();
  const unknownTools: string[] = [];
  const reasons: string[] = [];
  for (const written of stringList(fields.tools, 'tools', warn) ?? []) {
    const mapped = kiroTools(written, markdown);
    if (mapped && 'tools' in mapped) for (const tool of mapped.tools) tools.add(tool);
    else if (mapped) {
      unknownTools.push(mapped.unknown);
      if (mapped.reason) reasons.push(`"${mapped.unknown}": ${mapped.reason}`);
    } else unknownTools.push(written);
  }
  if (unknownTools.length > 0) warn.warn(`${unknownTools.length === 1 ? 'tool' : 'tools'} ${unknownTools.map((t) => `"${t}"`).join(', ')} ${unknownTools.length === 1 ? 'is' : 'are'} not available in this runtime${reasons.length ? ` (${reasons.join('; ')})` : ''}; ignored`);

  const rules = [...allowedToolRules(fields.allowedTools, warn), ...settingsRules(fields.toolsSettings, warn), ...permissionListRules(fields.permissions, warn)];
  // Kiro resolves by strictness (deny over ask over allow); the gate takes the last match, so the strictest go last.
  rules.sort((a, b) => STRICTNESS[a.action] - STRICTNESS[b.action]);
  const notOffered = unenforceableServerTools(rules, warn);

  warnUnread(
    ['toolAliases', 'includeMcpJson', 'useLegacyMcpJson', 'keyboardShortcut', 'welcomeMessage'].filter((k) => fields[k] !== undefined),
    'Kiro\'s tool aliases, its mcp.json files and its UI settings are not used here',
    warn,
  );
  if (markdown) warnUnread(unknown, 'Kiro does not read them either', warn);
  const extra: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) if (!['name', 'description', 'prompt', 'tools', 'model', 'mcpServers', 'resources', 'hooks'].includes(key)) extra[key] = fields[key];
  const mcpServers = fields.mcpServers ?? null;
  return {
    definition: makeDefinition(context, 'kiro', {
      name,
      description: typeof fields.description === 'string' ? fields.description.trim() : '',
      systemPrompt,
      // Without a tools list a Kiro agent sees no tool.
      tools: [...tools].filter((tool) => !notOffered.includes(tool)),
      spawns: tools.has('Task') ? '*' : [],
      model: modelOf(fields.model, 'model', warn, { familyVersions: true }),
      extra,
      mcpServers,
      mcp: readAgentMcpServers(mcpServers, 'kiro', context.source, warn),
      permissions: rules,
      promptIncludes: includes,
      hooks: hooksOf(fields.hooks, warn),
    }),
    warnings: warn.list,
  };
}
