import { readAgentMcpServers } from '../mcpServers/agentField';
import type { PermissionMode } from '../../../protocol/tools';
import { boolean, quote, stringList, text } from '../interpretation/fieldValues';
import type { AgentFileContext, FileWarnings, ParsedAgentFile } from '../interpretation/interpret';
import type { ThinkingLevel } from '../kinds';
import { QWEN_AUTH_TYPES, QWEN_RESERVED_NAMES } from '../formats/qwen';
import { isRecord, makeDefinition, modelOf, toolList, warnUnread } from './shared';

/**
 * Qwen Code's subagents, checked as its SubagentValidator checks them: a
 * file that fails is skipped, with the reason. Tool names match exactly,
 * and a name Qwen Code does not know stays in the list giving nothing (an
 * allow-list is never widened because a name did not resolve).
 */

const KNOWN = [
  'name', 'description', 'tools', 'disallowedTools', 'model', 'modelConfig', 'runConfig', 'maxTurns', 'color', 'approvalMode', 'permissionMode',
  'background', 'effort', 'mcpServers', 'hooks', 'skills', 'memory', 'isolation', 'executor', 'initialPrompt',
];
const KEPT_ONLY = ['hooks', 'skills', 'memory'];
const COLORS = ['red', 'blue', 'green', 'yellow', 'purple', 'orange', 'pink', 'cyan', 'auto'];

/** Qwen Code's approval modes, and the permission mode each is here (null: the parent's). */
const APPROVAL_MODES: Readonly<Record<string, PermissionMode | null>> = {
  plan: 'plan',
  default: 'default',
  'auto-edit': 'acceptEdits',
  yolo: 'bypassPermissions',
  // The subagent's approvals go to its parent's user: the parent's mode.
  bubble: null,
};
/** Claude Code's permission modes as Qwen Code bridges them to its own. */
const CLAUDE_MODES: Readonly<Record<string, PermissionMode>> = {
  default: 'default',
  plan: 'plan',
  acceptEdits: 'acceptEdits',
  auto: 'acceptEdits',
  bypassPermissions: 'bypassPermissions',
  dontAsk: 'default',
};
const EFFORTS: Readonly<Record<string, ThinkingLevel>> = { low: 'low', med: 'medium', medium: 'medium', high: 'high', xhigh: 'xhigh', max: 'xhigh' };

/** Why Qwen Code's validator refuses the name, or null. */
function nameProblem(name: string): string | null {
  if (name.length < 2 || name.length > 50) return `its name "${name}" must be 2 to 50 characters long`;
  if (!/^[A-Za-z0-9_-]+$/.test(name)) return `its name "${name}" may hold only letters, digits, "-" and "_"`;
  if (/^[-_]|[-_]$/.test(name)) return `its name "${name}" may not start or end with "-" or "_"`;
  if (QWEN_RESERVED_NAMES.includes(name.toLowerCase())) return `"${name}" is a name Qwen Code keeps for itself`;
  return null;
}

/** `authType:model-id` → the model id; a prefix that is not an auth type leaves the whole text the id. */
function modelId(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const colon = raw.indexOf(':');
  if (colon > 0 && QWEN_AUTH_TYPES.includes(raw.slice(0, colon))) return raw.slice(colon + 1);
  // `fast` without a configured fast model is the parent's model in Qwen Code.
  return raw.trim() === 'fast' ? 'inherit' : raw;
}

function positive(value: unknown): number | null | undefined {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null;
}

export function readQwen(fields: Record<string, unknown>, body: string, context: AgentFileContext, warn: FileWarnings): ParsedAgentFile {
  const name = typeof fields.name === 'number' ? String(fields.name) : typeof fields.name === 'string' ? fields.name.trim() : '';
  if (!name) return warn.skip('it has no "name" (Qwen Code requires one)');
  const description = typeof fields.description === 'string' ? fields.description.trim() : '';
  if (!description) return warn.skip('it has no "description" (Qwen Code requires one)');
  const problem = nameProblem(name);
  if (problem) return warn.skip(`${problem} (Qwen Code refuses it)`);
  if (body.trim().length < 10) return warn.skip('its system prompt (the text after the frontmatter) is shorter than 10 characters, which Qwen Code refuses');
  if (fields.executor !== undefined) return warn.skip('it runs an external agent ("executor"), which this runtime cannot start');

  const runConfig = isRecord(fields.runConfig) ? fields.runConfig : {};
  if (fields.runConfig !== undefined && !isRecord(fields.runConfig)) return warn.skip(`"runConfig" must be a map, not ${quote(fields.runConfig)} (Qwen Code refuses it)`);
  const runTurns = positive(runConfig.max_turns);
  if (runTurns === null) return warn.skip(`"runConfig.max_turns" must be a whole number above 0, not ${quote(runConfig.max_turns)} (Qwen Code refuses it)`);
  const minutes = runConfig.max_time_minutes;
  if (minutes !== undefined && !(typeof minutes === 'number' && minutes > 0)) return warn.skip(`"runConfig.max_time_minutes" must be above 0, not ${quote(minutes)} (Qwen Code refuses it)`);

  let permissionMode: PermissionMode | null = null;
  if (fields.approvalMode !== undefined) {
    const mode = typeof fields.approvalMode === 'string' ? fields.approvalMode.trim() : '';
    if (!Object.hasOwn(APPROVAL_MODES, mode)) return warn.skip(`"approvalMode" must be one of ${Object.keys(APPROVAL_MODES).join(', ')}, not ${quote(fields.approvalMode)} (Qwen Code refuses it)`);
    permissionMode = APPROVAL_MODES[mode]!;
  } else if (fields.permissionMode !== undefined) {
    const mode = typeof fields.permissionMode === 'string' ? fields.permissionMode.trim() : '';
    if (Object.hasOwn(CLAUDE_MODES, mode)) permissionMode = CLAUDE_MODES[mode]!;
    else warn.warn(`"permissionMode" must be one of ${Object.keys(CLAUDE_MODES).join(', ')}, not ${quote(fields.permissionMode)}; it is ignored`);
  }

  // Tools: an absent or empty list is every tool; names as Qwen Code spells them.
  if (fields.tools !== undefined && fields.tools !== null && typeof fields.tools !== 'string' && !Array.isArray(fields.tools)) {
    return warn.skip(`"tools" must be a list of tool names, not ${quote(fields.tools)} (Qwen Code refuses it)`);
  }
  if (Array.isArray(fields.tools) && fields.tools.some((t) => typeof t !== 'string' || !t.trim())) return warn.skip('"tools" holds an entry that is not a tool name (Qwen Code refuses it)');
  const listed = stringList(fields.tools, 'tools', warn) ?? [];
  const tools = listed.length === 0 || listed.includes('*') ? null : toolList(listed, 'qwen', warn).tools;
  const disallowedList = stringList(fields.disallowedTools, 'disallowedTools', warn);
  const disallowedTools = disallowedList ? toolList(disallowedList, 'qwen', warn).tools : [];

  // Colour names in any case; "Automatic Color" is what Qwen Code's own creation wizard wrote for `auto`.
  const written = text(fields.color, 'color', warn);
  const color = written && /^automatic colou?r$/i.test(written) ? 'auto' : COLORS.includes(written?.toLowerCase() ?? '') ? written!.toLowerCase() : written;
  if (color && !COLORS.includes(color)) warn.warn(`"color" must be one of ${COLORS.join(', ')}, not ${quote(color)}; Qwen Code drops it`);
  const effort = typeof fields.effort === 'string' ? EFFORTS[fields.effort.trim()] : undefined;
  if (fields.effort !== undefined && !effort) warn.warn(`"effort" must be one of low, medium, high, xhigh, max, not ${quote(fields.effort)}; it is ignored`);
  const maxTurns = positive(fields.maxTurns);
  if (maxTurns === null) warn.warn(`"maxTurns" must be a whole number above 0, not ${quote(fields.maxTurns)}; it is ignored`);
  const isolation = fields.isolation === 'worktree' ? 'worktree' : null;
  if (fields.isolation !== undefined && !isolation) warn.warn(`"isolation" must be worktree, not ${quote(fields.isolation)}; it is ignored`);

  const unknown = Object.keys(fields).filter((key) => !KNOWN.includes(key));
  warnUnread(unknown, 'Qwen Code does not read them either', warn);
  warnUnread(KEPT_ONLY.filter((key) => fields[key] !== undefined), 'Claude Code hooks, skills and memory are not used here', warn);
  if (minutes !== undefined) warnUnread(['runConfig.max_time_minutes'], 'a time limit is not enforced here', warn);
  const extra: Record<string, unknown> = {};
  for (const key of [...unknown, ...KEPT_ONLY, 'runConfig']) if (fields[key] !== undefined) extra[key] = fields[key];

  const modelRaw = fields.model ?? (isRecord(fields.modelConfig) ? fields.modelConfig.model : undefined);
  const mcpServers = fields.mcpServers ?? null;
  return {
    definition: makeDefinition(context, 'qwen', {
      name,
      description,
      systemPrompt: body.trim(),
      tools,
      disallowedTools,
      spawns: tools === null || tools.includes('Task') ? '*' : [],
      model: modelOf(modelId(modelRaw), 'model', warn),
      thinkingLevel: effort ?? null,
      maxTurns: maxTurns ?? runTurns ?? null,
      permissionMode,
      isolation,
      background: boolean(fields.background, 'background', warn) === true,
      color: color && COLORS.includes(color) && color !== 'auto' ? color : null,
      extra,
      mcpServers,
      mcp: readAgentMcpServers(mcpServers, 'qwen', context.source, warn),
      initialPrompt: text(fields.initialPrompt, 'initialPrompt', warn) || null,
    }),
    warnings: warn.list,
  };
}
