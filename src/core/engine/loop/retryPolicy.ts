import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { formatWait, IdleTimeoutError, type NetworkPolicy } from './network';

/**
 * Which failed attempts of a model turn are worth sending again, what a
 * surface says about each, and how long to wait. The rules for HTTP
 * answers are the SDK's (`x-should-retry`, 408, 409, 429, 5xx; `retry-after`
 * and `retry-after-ms`), taken over because the SDK's own retries are off:
 * it would retry silently and honour any wait a server names.
 */

export interface RetryDecision {
  /** Short, for the `retry` event: `rate limited (429)`, `no data for 60 s`, `connection lost`. */
  reason: string;
  /** The wait the server asked for, when it named one. */
  serverDelayMs?: number;
  /** The attempt got no byte at all for a whole idle timeout. */
  silent?: boolean;
}

const STATUS_REASONS: Record<number, string> = { 408: 'request timeout (408)', 409: 'conflict (409)', 429: 'rate limited (429)', 529: 'overloaded (529)' };
const RETRYABLE_STREAM_ERRORS = new Set(['overloaded_error', 'api_error', 'rate_limit_error']);
const BROKEN_STREAM = /terminated|ECONNRESET|socket hang up|other side closed|premature close|stream ended without/i;

/** Whether to retry an attempt that failed with `error`; `abortReason` is why the attempt's own signal fired, if it did. */
export function retryDecision(error: unknown, abortReason: unknown, policy: NetworkPolicy): RetryDecision | null {
  if (abortReason instanceof IdleTimeoutError) return { reason: `no data for ${formatWait(policy.idleTimeoutMs)}`, silent: true };
  if (error instanceof APIUserAbortError) return null;
  if (error instanceof APIConnectionError) return { reason: `connection failed${causeCode(error)}` };
  if (error instanceof APIError) {
    if (error.status === undefined) {
      // An `error` event inside a stream that had started.
      const type = (error as APIError & { type?: string }).type ?? (error.error as { error?: { type?: string } } | undefined)?.error?.type;
      return type && RETRYABLE_STREAM_ERRORS.has(type) ? { reason: `${type.replace(/_error$/, '').replace('_', ' ')} (mid-stream)` } : null;
    }
    if (!shouldRetryStatus(error.status, error.headers)) return null;
    return { reason: STATUS_REASONS[error.status] ?? (error.status >= 500 ? `server error (${error.status})` : `HTTP ${error.status}`), serverDelayMs: requestedWait(error.headers) };
  }
  const message = error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error);
  return BROKEN_STREAM.test(message) ? { reason: 'connection lost' } : null;
}

function shouldRetryStatus(status: number, headers: Headers | undefined): boolean {
  const told = headers?.get('x-should-retry');
  if (told === 'true') return true;
  if (told === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The wait a response asks for (`retry-after-ms`, else `retry-after` in seconds or as a date), if any. */
export function requestedWait(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (ms > 0) return ms;
  const after = headers?.get('retry-after');
  if (!after) return undefined;
  const seconds = Number.parseFloat(after);
  const wait = Number.isNaN(seconds) ? Date.parse(after) - now : seconds * 1000;
  return wait > 0 ? wait : undefined;
}

/**
 * How long to wait before retry number `retry` (1-based): the server's wait,
 * capped, or exponential backoff with jitter. The reason says when the cap
 * shortened what the server asked for.
 */
export function retryWait(decision: RetryDecision, retry: number, policy: NetworkPolicy, random = Math.random): { delayMs: number; reason: string } {
  const asked = decision.serverDelayMs;
  if (asked !== undefined) {
    if (asked <= policy.maxRetryWaitMs) return { delayMs: Math.round(asked), reason: decision.reason };
    return {
      delayMs: policy.maxRetryWaitMs,
      reason: `${decision.reason}; the API asked to wait ${formatWait(asked)}, waiting ${formatWait(policy.maxRetryWaitMs)} (subagents.network.maxRetryWaitSeconds)`,
    };
  }
  const backoff = Math.min(policy.baseDelayMs * 2 ** (retry - 1), 8000) * (1 - random() * 0.25);
  return { delayMs: Math.round(backoff), reason: decision.reason };
}

function causeCode(error: APIConnectionError): string {
  const cause = (error as { cause?: { code?: unknown; cause?: { code?: unknown } } }).cause;
  const code = cause?.code ?? cause?.cause?.code;
  return typeof code === 'string' ? ` (${code})` : '';
}
