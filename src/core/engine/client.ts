import Anthropic from '@anthropic-ai/sdk';
import { NO_API_KEY_MESSAGE } from '../../protocol/admission';
import { EngineError } from './errors';

export interface ClientConfig {
  /** From VS Code's SecretStorage or `ANTHROPIC_API_KEY`. */
  apiKey: string | undefined;
  /** The `subagents.apiBaseUrl` setting; `ANTHROPIC_BASE_URL` in `env` wins over it (see apiBaseUrl). */
  baseUrl?: string;
  env?: NodeJS.ProcessEnv;
}

export { NO_API_KEY_MESSAGE };

/**
 * Where requests go, by one rule for every surface: `ANTHROPIC_BASE_URL` from
 * the environment, else the `apiBaseUrl` setting (VS Code's, or the CLI's
 * settings files), else the Anthropic API (undefined). The environment wins
 * because it is the user's own choice for this one process (a proxy, a test
 * server), made after the settings were written; a workspace cannot set it.
 */
export function apiBaseUrl(setting: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return env.ANTHROPIC_BASE_URL || setting || undefined;
}

/** The one place an Anthropic client is made: the real SDK client, pointed where the user says. */
export function createClient(config: ClientConfig): Anthropic {
  const env = config.env ?? process.env;
  const apiKey = config.apiKey ?? env.ANTHROPIC_API_KEY;
  if (!apiKey) throw new EngineError(NO_API_KEY_MESSAGE);
  const baseURL = apiBaseUrl(config.baseUrl, env);
  // Retries are the engine's (turnStream.ts), so that each one is shown and no wait is unbounded.
  return new Anthropic({ apiKey, baseURL, maxRetries: 0 });
}
