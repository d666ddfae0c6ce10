import type Anthropic from '@anthropic-ai/sdk';
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { BetaMessage, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/beta/messages/messages';

/**
 * Streams one model turn (S3.1) and survives the faults of S3.10. Rate limits
 * (429), overload (529) and 5xx answers are retried by the SDK itself, with
 * backoff that honours `retry-after` (the client's `maxRetries`). What the SDK
 * cannot retry is a stream that breaks after it started: a dropped connection
 * or an in-stream `overloaded_error`. Those are retried here, resending the
 * same request, with exponential backoff and a bound.
 */

export type TurnParams = Omit<MessageCreateParamsNonStreaming, 'stream'>;

export interface TurnOptions {
  signal: AbortSignal;
  onText(delta: string): void;
  /** Called before a retry; the partial output of the failed attempt is void. */
  onRetry(attempt: number, delayMs: number, reason: string): void;
  maxAttempts: number;
  baseDelayMs: number;
}

/** The turn cannot be completed; `message` is meant for the user. */
export class TurnError extends Error {
  override name = 'TurnError';
}

const RETRYABLE_STREAM_ERRORS = new Set(['overloaded_error', 'api_error', 'rate_limit_error']);

/** Why a failed attempt may be retried, or null when it must not be. */
export function retryReason(error: unknown): string | null {
  // A request that never got an answer (refused, timed out) was already
  // retried by the SDK; retrying it here again would multiply the waits.
  if (error instanceof APIUserAbortError || error instanceof APIConnectionError) return null;
  if (error instanceof APIError) {
    // With a status, the SDK has already retried it as far as it should.
    if (error.status !== undefined) return null;
    const type = (error as APIError & { type?: string }).type ?? (error.error as { error?: { type?: string } } | undefined)?.error?.type;
    return type && RETRYABLE_STREAM_ERRORS.has(type) ? type.replace('_error', '') : null;
  }
  const message = error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error);
  if (/terminated|ECONNRESET|socket hang up|other side closed|premature close|stream ended without/i.test(message)) return 'connection lost';
  return null;
}

/** A message for the user about an error that ended the turn. */
export function describeApiError(error: unknown, baseURL?: string): string {
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? cause.message : error.message;
    return `Could not reach the model API${baseURL ? ` at ${baseURL}` : ''} (${detail}), even after retrying. Check the network, or the API base URL (subagents.apiBaseUrl / ANTHROPIC_BASE_URL).`;
  }
  if (error instanceof APIError && error.status !== undefined) {
    const detail = (error.error as { error?: { message?: string } } | undefined)?.error?.message ?? error.message;
    switch (error.status) {
      case 401:
        return `The API key was rejected (401): ${detail}. Set a valid key (Subagents: Set API Key, or ANTHROPIC_API_KEY).`;
      case 403:
        return `The API refused the request (403): ${detail}.`;
      case 404:
        return `Not found (404): ${detail}. Check the model id and the API base URL.`;
      case 429:
        return `Rate limited (429) even after retrying: ${detail}. Wait a moment or lower subagents.maxConcurrency.`;
      case 529:
        return `The API is overloaded (529) even after retrying: ${detail}. Try again later.`;
      default:
        return error.status >= 500 ? `The API failed (${error.status}) even after retrying: ${detail}.` : `The API rejected the request (${error.status}): ${detail}.`;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export async function streamTurn(client: Anthropic, params: TurnParams, options: TurnOptions): Promise<BetaMessage> {
  for (let attempt = 1; ; attempt++) {
    options.signal.throwIfAborted();
    try {
      const stream = client.beta.messages.stream(params, { signal: options.signal });
      stream.on('text', (delta) => options.onText(delta));
      return await stream.finalMessage();
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      const reason = retryReason(error);
      if (reason === null) throw new TurnError(describeApiError(error, client.baseURL));
      if (attempt >= options.maxAttempts) {
        throw new TurnError(`The model's response stream failed (${reason}) ${attempt} times in a row; giving up. ${describeApiError(error, client.baseURL)}`);
      }
      const delay = Math.min(options.baseDelayMs * 2 ** (attempt - 1), 8000) * (1 - Math.random() * 0.25);
      options.onRetry(attempt, Math.round(delay), reason);
      await sleep(delay, options.signal);
    }
  }
}
