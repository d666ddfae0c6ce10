/**
 * Where requests go, by one rule for every surface: `ANTHROPIC_BASE_URL` from
 * the environment, else the `apiBaseUrl` setting (VS Code's, or the CLI's
 * settings files), else the Anthropic API (undefined). The environment wins
 * because it is the user's own choice for this one process (a proxy, a test
 * server), made after the settings were written; a workspace cannot set it.
 * A module of its own: a client sending its key and address to the agent
 * host resolves this without loading the SDK.
 */
export function apiBaseUrl(setting: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return env.ANTHROPIC_BASE_URL || setting || undefined;
}
