/**
 * Claude Code's hook settings format, for the events this product fires
 * (SubagentStart, SubagentStop, and the team events TeammateIdle,
 * TaskCreated and TaskCompleted):
 * `{ "hooks": { "SubagentStart": [ { "matcher", "hooks": [ {
 * "type": "command", "command", "timeout" } ] } ] } }`. Parsing is pure and
 * forgiving: every problem becomes a message and only the broken part is
 * dropped, so one typo never disables the rest of a user's hooks. Other
 * events (PreToolUse, Stop, …) belong to Claude Code itself and are ignored
 * without a word.
 */

export const HOOK_EVENTS = ['SubagentStart', 'SubagentStop', 'TeammateIdle', 'TaskCreated', 'TaskCompleted'] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Events whose hooks run on every occurrence, as in Claude Code: a matcher on them is ignored. */
export const UNMATCHED_EVENTS: ReadonlySet<HookEventName> = new Set(['TeammateIdle', 'TaskCreated', 'TaskCompleted']);

export interface CommandHook {
  command: string;
  /** The hook's own `timeout`, in seconds; null means the runner's default. */
  timeoutSec: number | null;
  /** The settings file it came from, for messages. */
  source: string;
}

export interface HookGroup {
  matcher: string;
  matches(agentName: string): boolean;
  hooks: CommandHook[];
}

export interface HookSettings {
  /** Claude Code's kill switch: `"disableAllHooks": true` in any settings file. */
  disableAllHooks: boolean;
  events: Record<HookEventName, HookGroup[]>;
  /** Human-readable problems, each naming the file; logged once per file version. */
  problems: string[];
}

/** Hook types Claude Code knows but this product does not run. */
const OTHER_HOOK_TYPES = new Set(['prompt', 'agent', 'http', 'mcp_tool']);

export function emptyHookSettings(problems: string[] = []): HookSettings {
  return { disableAllHooks: false, events: { SubagentStart: [], SubagentStop: [], TeammateIdle: [], TaskCreated: [], TaskCompleted: [] }, problems };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Claude Code's match-all matchers: none, empty or `*`. */
export function matchesEveryAgent(matcher: string | undefined): matcher is undefined | '' | '*' {
  return matcher === undefined || matcher === '' || matcher === '*';
}

/**
 * Claude Code's matcher rule for agent types: empty, missing or `*` matches
 * every agent; anything else is a regular expression searched (not anchored)
 * in the agent's name. An invalid expression matches nothing.
 */
export function compileMatcher(matcher: string | undefined): { matches: (name: string) => boolean; error?: string } {
  if (matchesEveryAgent(matcher)) return { matches: () => true };
  try {
    const regex = new RegExp(matcher);
    return { matches: (name) => regex.test(name) };
  } catch (error) {
    return { matches: () => false, error: error instanceof Error ? error.message : String(error) };
  }
}

export function parseHookSettings(text: string, file: string): HookSettings {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return emptyHookSettings([`${file} is not valid JSON (${reason}); none of its hooks will run until it is fixed.`]);
  }
  if (!isRecord(json)) return emptyHookSettings([`${file} must hold a JSON object; none of its hooks will run.`]);

  const result = emptyHookSettings();
  result.disableAllHooks = json.disableAllHooks === true;
  const hooks = json.hooks;
  if (hooks === undefined) return result;
  if (!isRecord(hooks)) {
    result.problems.push(`${file}: "hooks" must be an object; its hooks are ignored.`);
    return result;
  }
  for (const event of HOOK_EVENTS) {
    const groups = hooks[event];
    if (groups === undefined) continue;
    if (!Array.isArray(groups)) {
      result.problems.push(`${file}: "hooks.${event}" must be an array of matcher groups; ignored.`);
      continue;
    }
    groups.forEach((group, index) => {
      const parsed = parseGroup(group, `${file}: hooks.${event}[${index}]`, file, result.problems);
      if (parsed) result.events[event].push(parsed);
    });
  }
  return result;
}

function parseGroup(group: unknown, where: string, file: string, problems: string[]): HookGroup | null {
  if (!isRecord(group)) {
    problems.push(`${where} must be an object with "matcher" and "hooks"; ignored.`);
    return null;
  }
  if (group.matcher !== undefined && typeof group.matcher !== 'string') {
    problems.push(`${where}: "matcher" must be a string; this group is ignored.`);
    return null;
  }
  const matcher = group.matcher ?? '';
  const compiled = compileMatcher(matcher);
  if (compiled.error) problems.push(`${where}: invalid matcher "${matcher}" (${compiled.error}); this group matches no agent.`);
  if (!Array.isArray(group.hooks)) {
    problems.push(`${where}: "hooks" must be an array; this group is ignored.`);
    return null;
  }
  const hooks: CommandHook[] = [];
  group.hooks.forEach((hook: unknown, index) => {
    const parsed = parseHook(hook, `${where}.hooks[${index}]`, file, problems);
    if (parsed) hooks.push(parsed);
  });
  return { matcher, matches: compiled.matches, hooks };
}

function parseHook(hook: unknown, where: string, file: string, problems: string[]): CommandHook | null {
  if (!isRecord(hook)) {
    problems.push(`${where} must be an object; ignored.`);
    return null;
  }
  if (hook.type !== 'command') {
    const known = typeof hook.type === 'string' && OTHER_HOOK_TYPES.has(hook.type);
    problems.push(known ? `${where}: hooks of type "${String(hook.type)}" are not supported here, only "command"; skipped.` : `${where}: "type" must be "command"; skipped.`);
    return null;
  }
  if (typeof hook.command !== 'string' || hook.command.trim() === '') {
    problems.push(`${where}: "command" must be a non-empty string; skipped.`);
    return null;
  }
  let timeoutSec: number | null = null;
  if (hook.timeout !== undefined) {
    if (typeof hook.timeout === 'number' && Number.isFinite(hook.timeout) && hook.timeout > 0) timeoutSec = hook.timeout;
    else problems.push(`${where}: "timeout" must be a positive number of seconds; using the default.`);
  }
  return { command: hook.command, timeoutSec, source: file };
}

/**
 * The hooks of one event that apply to one agent, over settings files in
 * order (user, project, local). Identical commands run once, as in Claude
 * Code: a hook listed in both user and project settings is not doubled.
 */
export function selectHooks(
  sources: readonly HookSettings[],
  event: HookEventName,
  agentName: string,
  /** Whether a group's matcher matches the agent (default: its regex, here); CommandHooks runs matchers time-bounded. */
  matches: (group: HookGroup) => boolean = (group) => group.matches(agentName),
): CommandHook[] {
  if (sources.some((s) => s.disableAllHooks)) return [];
  const seen = new Set<string>();
  const selected: CommandHook[] = [];
  for (const source of sources) {
    for (const group of source.events[event]) {
      if (!UNMATCHED_EVENTS.has(event) && !matches(group)) continue;
      for (const hook of group.hooks) {
        if (seen.has(hook.command)) continue;
        seen.add(hook.command);
        selected.push(hook);
      }
    }
  }
  return selected;
}
