import Anthropic from '@anthropic-ai/sdk';
import { EngineError } from './errors';

export interface ClientConfig {
  /** From VS Code's SecretStorage or `ANTHROPIC_API_KEY`. */
  apiKey: string | undefined;
  /** The `subagents.apiBaseUrl` setting; empty falls back to `ANTHROPIC_BASE_URL`, then the Anthropic API. */
  baseUrl?: string;
  env?: NodeJS.ProcessEnv;
}

export const NO_API_KEY_MESSAGE =
  'No Anthropic API key. Set ANTHROPIC_API_KEY in the environment, or run "Subagents: Set API Key" in VS Code.';

/** The one place an Anthropic client is made: the real SDK client, pointed where the user says. */
export function createClient(config: ClientConfig): Anthropic {
  const env = config.env ?? process.env;
  const apiKey = config.apiKey ?? env.ANTHROPIC_API_KEY;
  if (!apiKey) throw new EngineError(NO_API_KEY_MESSAGE);
  const baseURL = config.baseUrl || env.ANTHROPIC_BASE_URL || undefined;
  // Retries are the engine's (turnStream.ts), so that each one is shown and no wait is unbounded.
  return new Anthropic({ apiKey, baseURL, maxRetries: 0 });
}
