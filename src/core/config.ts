import path from 'node:path';
import * as z from 'zod';
import { DEFAULT_MODEL_ALIASES } from './modelAliases';

/** The setting's default aliases (modelAliases.ts), where the settings live. */
export { DEFAULT_MODEL_ALIASES };

/**
 * The product's settings: one schema, read by the VS Code surface from
 * `workspace.getConfiguration('subagents')` and by the CLI from its settings
 * files, environment and flags (src/cli/settingsFiles.ts). Keys are the setting ids without the `subagents.` prefix. The
 * declarations in package.json must match this schema key for key and default
 * for default (test/unit/core/config.test.ts checks both directions).
 */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'bypassPermissions'] as const;

/** Each setting's schema, without its default (SETTING_DEFAULTS holds those). */
function buildSchemas() {
  return {
    defaultModel: z.string().min(1),
    modelAliases: z.record(z.string(), z.string()),
    apiBaseUrl: z.string(),
    maxDepth: z.number().int().min(1).max(10),
    maxConcurrency: z.number().int().min(1).max(64),
    maxBackgroundAgents: z.number().int().min(0).max(256),
    maxTurns: z.number().int().min(1),
    disabledAgents: z.array(z.string()),
    pluginDirs: z.array(z.string()),
    loadClaudePlugins: z.boolean(),
    permissionMode: z.enum(PERMISSION_MODES),
    'isolation.autoApproveEdits': z.boolean(),
    'budget.maxTokens': z.number().int().min(0),
    'budget.maxCostUsd': z.number().min(0),
    'history.retentionDays': z.number().int().min(1),
    'history.maxRuns': z.number().int().min(1),
    'history.maxEventsPerRun': z.number().int().min(100),
    'hooks.enabled': z.boolean(),
    'network.idleTimeoutSeconds': z.number().min(1).max(3600),
    'network.turnTimeoutSeconds': z.number().min(10).max(86_400),
    'network.maxRetries': z.number().int().min(0).max(20),
    'network.maxRetryWaitSeconds': z.number().min(1).max(3600),
    'mcp.callTimeoutSeconds': z.number().min(1).max(86_400),
    'mcp.startupTimeoutSeconds': z.number().min(1).max(3600),
    'mcp.inheritClaudeCodeServers': z.boolean(),
    'mcp.startInPlanMode': z.boolean(),
    'worktrees.poolSize': z.number().int().min(-1).max(256),
    'worktrees.poolDiskBudgetMB': z.number().int().min(0),
    'worktrees.baseRef': z.string(),
    'worktrees.setupCommand': z.string(),
    'teams.isolation': z.enum(['worktree', 'none']),
    'teams.maxTeammates': z.number().int().min(1).max(64),
    'host.enabled': z.boolean(),
    'host.idleExitSeconds': z.number().min(5).max(604_800),
    'host.unattendedApprovalSeconds': z.number().min(5).max(604_800),
  };
}

type SettingSchemas = ReturnType<typeof buildSchemas>;
export type Settings = { [K in keyof SettingSchemas]: z.infer<SettingSchemas[K]> };
export type SettingKey = keyof Settings;

/**
 * Every setting's default, as a plain object rather than the schemas'
 * `.default()`s: a command that reads no settings file (most listings, CI)
 * needs the defaults and nothing else, and building the schemas — loading
 * zod — was the largest part of `subagents agents`' start-up. A test checks
 * that each default passes its own schema.
 */
export const SETTING_DEFAULTS: Readonly<Settings> = {
  defaultModel: 'sonnet',
  modelAliases: { ...DEFAULT_MODEL_ALIASES },
  apiBaseUrl: '',
  maxDepth: 3,
  maxConcurrency: 4,
  maxBackgroundAgents: 8,
  maxTurns: 100,
  disabledAgents: [],
  pluginDirs: [],
  loadClaudePlugins: true,
  permissionMode: 'default',
  'isolation.autoApproveEdits': true,
  'budget.maxTokens': 0,
  'budget.maxCostUsd': 0,
  'history.retentionDays': 30,
  'history.maxRuns': 200,
  'history.maxEventsPerRun': 2000,
  'hooks.enabled': true,
  'network.idleTimeoutSeconds': 60,
  'network.turnTimeoutSeconds': 600,
  'network.maxRetries': 4,
  'network.maxRetryWaitSeconds': 60,
  'mcp.callTimeoutSeconds': 300,
  'mcp.startupTimeoutSeconds': 30,
  'mcp.inheritClaudeCodeServers': true,
  'mcp.startInPlanMode': false,
  'worktrees.poolSize': -1,
  'worktrees.poolDiskBudgetMB': 5120,
  'worktrees.baseRef': 'HEAD',
  'worktrees.setupCommand': '',
  'teams.isolation': 'worktree',
  'teams.maxTeammates': 16,
  'host.enabled': true,
  'host.idleExitSeconds': 600,
  'host.unattendedApprovalSeconds': 1800,
};

let schemas: SettingSchemas | undefined;

/** The schema of one setting's value, built on first use. */
export function settingSchema<K extends SettingKey>(key: K): SettingSchemas[K] {
  return (schemas ??= buildSchemas())[key];
}

/**
 * The settings a folder's own configuration must not set for the user: where
 * requests (and the API key) go, which code loads as agents, how much agents
 * may do unasked. VS Code ignores them from an untrusted workspace (package.json
 * `restrictedConfigurations`, checked against this list by a test); the CLI
 * ignores them from a project's settings file unless the user trusts it.
 */
export const RESTRICTED_SETTING_KEYS = ['apiBaseUrl', 'pluginDirs', 'loadClaudePlugins', 'permissionMode', 'isolation.autoApproveEdits', 'worktrees.setupCommand'] as const satisfies readonly SettingKey[];

export type PermissionMode = (typeof PERMISSION_MODES)[number];

export const SETTING_KEYS = Object.keys(SETTING_DEFAULTS) as SettingKey[];

/**
 * The worktree pool's settings as the worktree manager reads them, each time
 * they matter: `worktrees.poolSize` (-1: at least `maxConcurrency`, growing
 * to the widest fan-out run in the repository) and `worktrees.poolDiskBudgetMB`.
 */
export function worktreePoolOptions(read: () => Settings): { poolSize: () => number; poolGrows: () => boolean; poolBudgetBytes: () => number } {
  return {
    poolSize: () => {
      const settings = read();
      const size = settings['worktrees.poolSize'];
      return size < 0 ? settings.maxConcurrency : size;
    },
    poolGrows: () => read()['worktrees.poolSize'] < 0,
    poolBudgetBytes: () => read()['worktrees.poolDiskBudgetMB'] * 1024 * 1024,
  };
}

/** A dir as users write it in settings (`pluginDirs`): `~/x` from the home folder, a relative one from `base`. */
export function resolveUserPath(dir: string, base: string, home: string): string {
  if (dir === '~' || dir.startsWith('~/')) return path.join(home, dir.slice(1));
  return path.resolve(base, dir);
}

/** The defaults, as a fully populated settings object of its own (its lists and maps are copies). */
export function defaultSettings(): Settings {
  const settings = { ...SETTING_DEFAULTS } as Record<SettingKey, unknown>;
  for (const key of SETTING_KEYS) {
    const value = settings[key];
    if (Array.isArray(value)) settings[key] = [...value];
    else if (typeof value === 'object' && value !== null) settings[key] = { ...value };
  }
  return settings as Settings;
}

/**
 * Validates raw values (from VS Code or the CLI) key by key: a value of the
 * wrong type falls back to its default and is reported, instead of one bad
 * setting making every other setting unusable.
 */
export function parseSettings(raw: Partial<Record<SettingKey, unknown>>): {
  settings: Settings;
  problems: string[];
} {
  const settings = defaultSettings() as Record<SettingKey, unknown>;
  const problems: string[] = [];
  for (const key of SETTING_KEYS) {
    const value = raw[key];
    if (value === undefined) continue;
    const parsed = settingSchema(key).safeParse(value);
    if (parsed.success) settings[key] = parsed.data;
    else problems.push(`subagents.${key}: ${parsed.error.issues[0]?.message ?? 'invalid value'}; using the default`);
  }
  return { settings: settings as Settings, problems };
}
