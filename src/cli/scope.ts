import type { Settings } from '../core/config';
import { apiBaseUrl } from '../core/engine/loop/baseUrl';
import { shareableEnv, type ScopeSpec } from '../core/runtime/scopeSpec';
import { TRUST_NOTHING, type ProjectTrust } from '../core/trust/projectTrust';
import { userHome, type CliIO } from './command';
import { TRUSTED_PROJECTS, userSettingsFile } from './settingsFiles';
import { trustSpec } from './trust';

// Apart from src/cli/session.ts (which opens a runtime): a run handed to the
// agent host needs its scope but none of the engine.

/** The scope a command runs in: its folder, the settings and trust decided for it, the key and environment it was started with. */
export function cliScope(io: CliIO, opts: { cwd: string; settings: Settings; trust?: ProjectTrust; pluginDirs?: readonly string[]; session?: number }): ScopeSpec {
  const apiKey = io.env.ANTHROPIC_API_KEY || undefined;
  return {
    cwd: opts.cwd,
    surface: 'cli',
    settings: opts.settings,
    trust: trustSpec(opts.trust ?? TRUST_NOTHING),
    credentials: { ...(apiKey ? { apiKey } : {}), ...optional('baseUrl', apiBaseUrl(opts.settings.apiBaseUrl, io.env)) },
    env: shareableEnv(io.env),
    home: userHome(io.env),
    pluginDirs: opts.pluginDirs ?? [],
    trustHint: `pass --trust-project, or add the folder to "${TRUSTED_PROJECTS}" in ${userSettingsFile(io.env)}`,
    session: opts.session ?? Date.now(),
  };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

