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


export const settingsSchema = z.object({
  defaultModel: z.string().min(1).default('sonnet'),
  modelAliases: z.record(z.string(), z.string()).default({ ...DEFAULT_MODEL_ALIASES }),
  apiBaseUrl: z.string().default(''),
  maxDepth: z.number().int().min(1).max(10).default(3),
  maxConcurrency: z.number().int().min(1).max(64).default(4),
  maxBackgroundAgents: z.number().int().min(0).max(256).default(8),
  maxTurns: z.number().int().min(1).default(100),
  disabledAgents: z.array(z.string()).default([]),
  pluginDirs: z.array(z.string()).default([]),
  loadClaudePlugins: z.boolean().default(true),
  permissionMode: z.enum(PERMISSION_MODES).default('default'),
  'isolation.autoApproveEdits': z.boolean().default(true),
  'budget.maxTokens': z.number().int().min(0).default(0),
  'budget.maxCostUsd': z.number().min(0).default(0),
  'history.retentionDays': z.number().int().min(1).default(30),
  'history.maxRuns': z.number().int().min(1).default(200),
  'history.maxEventsPerRun': z.number().int().min(100).default(2000),
  'hooks.enabled': z.boolean().default(true),
  'network.idleTimeoutSeconds': z.number().min(1).max(3600).default(60),
  'network.turnTimeoutSeconds': z.number().min(10).max(86_400).default(600),
  'network.maxRetries': z.number().int().min(0).max(20).default(4),
  'network.maxRetryWaitSeconds': z.number().min(1).max(3600).default(60),
  'mcp.callTimeoutSeconds': z.number().min(1).max(86_400).default(300),
  'mcp.startupTimeoutSeconds': z.number().min(1).max(3600).default(30),
  'mcp.inheritClaudeCodeServers': z.boolean().default(true),
  'mcp.startInPlanMode': z.boolean().default(false),
  'worktrees.poolSize': z.number().int().min(-1).max(256).default(-1),
  'worktrees.poolDiskBudgetMB': z.number().int().min(0).default(5120),
  'worktrees.baseRef': z.string().default('HEAD'),
  'worktrees.setupCommand': z.string().default(''),
  'teams.isolation': z.enum(['worktree', 'none']).default('worktree'),
  'teams.maxTeammates': z.number().int().min(1).max(64).default(16),
  'host.enabled': z.boolean().default(true),
  'host.idleExitSeconds': z.number().min(5).max(604_800).default(600),
  'host.unattendedApprovalSeconds': z.number().min(5).max(604_800).default(1800),
});

/**
 * The settings a folder's own configuration must not set for the user: where
 * requests (and the API key) go, which code loads as agents, how much agents
 * may do unasked. VS Code ignores them from an untrusted workspace (package.json
 * `restrictedConfigurations`, checked against this list by a test); the CLI
 * ignores them from a project's settings file unless the user trusts it.
 */
export const RESTRICTED_SETTING_KEYS = ['apiBaseUrl', 'pluginDirs', 'loadClaudePlugins', 'permissionMode', 'isolation.autoApproveEdits', 'worktrees.setupCommand'] as const satisfies readonly (keyof typeof settingsSchema.shape)[];

export type Settings = z.infer<typeof settingsSchema>;
export type SettingKey = keyof Settings;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export const SETTING_KEYS = Object.keys(settingsSchema.shape) as SettingKey[];

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

/** The defaults, as a fully populated settings object. */
export function defaultSettings(): Settings {
  return settingsSchema.parse({});
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
    const parsed = settingsSchema.shape[key].safeParse(value);
    if (parsed.success) settings[key] = parsed.data;
    else problems.push(`subagents.${key}: ${parsed.error.issues[0]?.message ?? 'invalid value'}; using the default`);
  }
  return { settings: settings as Settings, problems };
}
