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

/**
 * Has Node load its fetch implementation (undici) now. Node loads it on the
 * first use of `Headers`, `Request`, `Response` or `fetch`, which the SDK's
 * first request makes: about 30 ms of module evaluation on the way to the
 * first request, which a process with work under way elsewhere (a command
 * waiting on the disk) can do while it waits instead.
 */
export function warmUpRequests(): void {
  void globalThis.Headers;
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
