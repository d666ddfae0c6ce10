import { APIConnectionError, APIError, type Anthropic } from '@anthropic-ai/sdk';

/**
 * Checking an API key when it is set, not at the first run: its form (as
 * typed), then one cheap authenticated request where the API can be reached
 * (listing one model costs no tokens). What the user is told says what is
 * wrong and what to do.
 */

/** Anthropic's keys: `sk-ant-` then letters, digits, `-` and `_`. */
const ANTHROPIC_KEY = /^sk-ant-[A-Za-z0-9_-]{16,}$/;

/**
 * What is wrong with a key as typed, or null. `anthropicApi`: the key goes to
 * the Anthropic API itself (no other base URL), whose keys have one form; a
 * compatible endpoint's keys may look like anything but spaces.
 */
export function keyFormatProblem(key: string, anthropicApi: boolean): string | null {
  const trimmed = key.trim();
  if (!trimmed) return 'Enter a key, or press Escape to cancel.';
  if (/\s/.test(trimmed)) return 'A key has no spaces or line breaks: paste it again, alone.';
  if (!anthropicApi) return null;
  if (!trimmed.startsWith('sk-ant-')) return 'This is not an Anthropic API key: those start with "sk-ant-". Copy one from the Anthropic Console (API Keys).';
  if (!ANTHROPIC_KEY.test(trimmed)) return 'This key is cut short or has characters an Anthropic key does not: copy it again from the Anthropic Console.';
  return null;
}

export type KeyCheck =
  /** The API accepted it. */
  | { kind: 'valid' }
  /** The API refused it (401, 403): `message` says so, with the API's words. */
  | { kind: 'refused'; status: number; message: string }
  /** The API could not be asked (offline, a proxy, a 5xx): the key is neither good nor bad yet. */
  | { kind: 'unchecked'; message: string };

/** One authenticated request with `client` (made with the key to check): a one-model listing, free. */
export async function checkKey(client: Anthropic, signal?: AbortSignal): Promise<KeyCheck> {
  try {
    await client.models.list({ limit: 1 }, { signal, maxRetries: 1, timeout: 15_000 });
    return { kind: 'valid' };
  } catch (error) {
    if (error instanceof APIError && (error.status === 401 || error.status === 403)) {
      const detail = (error.error as { error?: { message?: string } } | undefined)?.error?.message ?? error.message;
      return { kind: 'refused', status: error.status, message: `The API refused this key (${error.status}): ${detail}` };
    }
    if (error instanceof APIError && error.status === 404) return { kind: 'unchecked', message: 'This endpoint has no models listing to check the key with.' };
    if (error instanceof APIConnectionError) return { kind: 'unchecked', message: `The API could not be reached to check the key (${error.message}).` };
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'unchecked', message: `The key could not be checked (${message}).` };
  }
}

/** The engine's message for a run that ended on a refused key starts with this (describeApiError). */
export const KEY_REJECTED_PREFIX = 'The API key was rejected (401)';

export function isKeyRejection(error: string | null | undefined): boolean {
  return Boolean(error?.startsWith(KEY_REJECTED_PREFIX));
}
