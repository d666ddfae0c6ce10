import Anthropic from '@anthropic-ai/sdk';
import { NO_API_KEY_MESSAGE } from '../../../protocol/admission';
import { apiBaseUrl } from './baseUrl';
import { EngineError } from '../errors';

export { apiBaseUrl };

export interface ClientConfig {
  /** From VS Code's SecretStorage or `ANTHROPIC_API_KEY`. */
  apiKey: string | undefined;
  /** The `subagents.apiBaseUrl` setting; `ANTHROPIC_BASE_URL` in `env` wins over it (see apiBaseUrl). */
  baseUrl?: string;
  env?: NodeJS.ProcessEnv;
}

export { NO_API_KEY_MESSAGE };

/** The one place an Anthropic client is made: the real SDK client, pointed where the user says. */
export function createClient(config: ClientConfig): Anthropic {
  const env = config.env ?? process.env;
  const apiKey = config.apiKey ?? env.ANTHROPIC_API_KEY;
  if (!apiKey) throw new EngineError(NO_API_KEY_MESSAGE);
  const baseURL = apiBaseUrl(config.baseUrl, env);
  // Retries are the engine's (turnStream.ts), so that each one is shown and no wait is unbounded.
  return new Anthropic({ apiKey, baseURL, maxRetries: 0 });
}
