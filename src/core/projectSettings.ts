import { RESTRICTED_SETTING_KEYS, type SettingKey, type Settings } from './config';

/**
 * What a project's own settings may do to the user's, key by key. A
 * project's settings file is someone else's file until the user trusts the
 * folder, so an untrusted one may only tighten what the user set: a lower
 * limit, a budget where there was none, hooks off, more agents disabled.
 * The restricted keys it may not set at all. The run history's retention is
 * shared by every project, so it follows the user's settings alone, trusted
 * project or not.
 */
type Rule =
  /** Only a trusted project may set it (where requests go, what loads, how much runs unasked). */
  | 'restricted'
  /** Only the user may set it, whatever the trust. */
  | 'userOnly'
  /** A number where lower is narrower. */
  | 'lower'
  /** A budget: lower is narrower, and 0 means none (the widest). */
  | 'budget'
  /** A switch where off is narrower. */
  | 'off'
  /** A list of what is refused: the project's adds to the user's. */
  | 'union'
  /** A preference that widens nothing (which model answers; its price is bounded by the budgets). */
  | 'free';

const RULES: Record<SettingKey, Rule> = {
  defaultModel: 'free',
  modelAliases: 'free',
  apiBaseUrl: 'restricted',
  maxDepth: 'lower',
  maxConcurrency: 'lower',
  maxBackgroundAgents: 'lower',
  maxTurns: 'lower',
  disabledAgents: 'union',
  pluginDirs: 'restricted',
  loadClaudePlugins: 'restricted',
  permissionMode: 'restricted',
  'isolation.autoApproveEdits': 'restricted',
  'budget.maxTokens': 'budget',
  'budget.maxCostUsd': 'budget',
  'history.retentionDays': 'userOnly',
  'history.maxRuns': 'userOnly',
  'history.maxEventsPerRun': 'userOnly',
  'hooks.enabled': 'off',
  'network.idleTimeoutSeconds': 'lower',
  'network.turnTimeoutSeconds': 'lower',
  'network.maxRetries': 'lower',
  'network.maxRetryWaitSeconds': 'lower',
  'mcp.callTimeoutSeconds': 'lower',
  'mcp.startupTimeoutSeconds': 'lower',
  // Off starts fewer servers.
  'mcp.inheritClaudeCodeServers': 'off',
  'mcp.startInPlanMode': 'off',
  // The pool holds at most as many worktrees as were in use at once anyway; where an agent starts is the project's business.
  'worktrees.poolSize': 'free',
  // The user's disk: a project may ask for less, never more.
  'worktrees.poolDiskBudgetMB': 'lower',
  'worktrees.baseRef': 'free',
  'worktrees.setupCommand': 'restricted',
  // Where teammates work widens nothing: an edit in your own folder still asks as the permission mode says.
  'teams.isolation': 'free',
  'teams.maxTeammates': 'lower',
  // One agent host serves every project of the user.
  'host.enabled': 'userOnly',
  'host.idleExitSeconds': 'userOnly',
  'host.unattendedApprovalSeconds': 'userOnly',
};

for (const key of RESTRICTED_SETTING_KEYS) if (RULES[key] !== 'restricted') throw new Error(`${key} is restricted`);

/** The keys only the user's own settings may set. */
export const USER_ONLY_SETTING_KEYS = (Object.keys(RULES) as SettingKey[]).filter((key) => RULES[key] === 'userOnly');

export type ProjectValue =
  | { apply: true; value: unknown; note?: string }
  /** `withheld`: trust would let it apply; otherwise no project may set it. */
  | { apply: false; withheld: boolean; reason: string };

const shown = (value: unknown) => JSON.stringify(value);

/**
 * Whether a project's `value` for `key` applies over `base` (the user's
 * value, or the default), and what applies. `trusted`: the project's folder
 * is trusted, so anything but the user-only keys applies as written.
 */
export function projectValue<K extends SettingKey>(key: K, value: Settings[K], base: Settings[K], trusted: boolean): ProjectValue {
  const rule: Rule = RULES[key];
  if (rule === 'userOnly') return { apply: false, withheld: false, reason: "the run history is shared by every project, so only your user settings set how much of it is kept" };
  if (rule === 'free') return { apply: true, value };
  if (trusted) return { apply: true, value };
  const narrowOnly = "an untrusted project's settings can only narrow yours";
  switch (rule) {
    case 'restricted':
      return { apply: false, withheld: true, reason: "an untrusted project's settings cannot set it for you (as in VS Code's Restricted Mode)" };
    case 'lower':
      return (value as number) <= (base as number) ? { apply: true, value } : { apply: false, withheld: true, reason: `${shown(value)} is wider than your ${shown(base)}, and ${narrowOnly}` };
    case 'budget': {
      const [v, b] = [value as number, base as number];
      if (v !== 0 && (b === 0 || v <= b)) return { apply: true, value };
      return { apply: false, withheld: true, reason: `${v === 0 ? '0 (no budget)' : shown(v)} is wider than your ${b === 0 ? '0 (no budget)' : shown(b)}, and ${narrowOnly}` };
    }
    case 'off':
      return value === false || base === true ? { apply: true, value } : { apply: false, withheld: true, reason: `it would turn on what you turned off, and ${narrowOnly}` };
    case 'union': {
      const [v, b] = [value as string[], base as string[]];
      const kept = b.filter((name) => !v.includes(name));
      const merged = [...b, ...v.filter((name) => !b.includes(name))];
      return kept.length === 0
        ? { apply: true, value: merged }
        : { apply: true, value: merged, note: `it cannot take ${kept.map(shown).join(', ')} off your list (${narrowOnly}); the project's entries are added to yours` };
    }
  }
}
