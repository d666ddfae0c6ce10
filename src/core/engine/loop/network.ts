import type { Middleware } from '@anthropic-ai/sdk';
import type { Settings } from '../../config';

/**
 * How long the engine waits on the model API, and how often it tries again.
 * The SDK's own retries are switched off for our requests: every
 * retry is the engine's, so every retry is a `retry` event a surface shows,
 * and no server can make an agent sleep for longer than `maxRetryWaitMs`.
 */
export interface NetworkPolicy {
  /** No byte from the API for this long (waiting for headers or mid-stream): the attempt is abandoned and retried. */
  idleTimeoutMs: number;
  /** One model turn, every attempt and wait included: past this the agent fails. */
  turnTimeoutMs: number;
  /** Retries of one turn after the first attempt. */
  maxRetries: number;
  /** Cap on a wait the server asks for (`retry-after`). */
  maxRetryWaitMs: number;
  /** Backoff before the first retry when the server names no wait; doubles per retry, up to 8 s. */
  baseDelayMs: number;
}

/**
 * An endpoint that stayed silent for a whole idle timeout this many times in
 * a row within one turn is not coming back soon: give up rather than spend
 * every retry on it (a dead endpoint fails in about three idle timeouts).
 */
export const MAX_SILENT_ATTEMPTS = 3;

export function networkPolicy(settings: Settings, overrides: Partial<NetworkPolicy> = {}): NetworkPolicy {
  return {
    idleTimeoutMs: settings['network.idleTimeoutSeconds'] * 1000,
    turnTimeoutMs: settings['network.turnTimeoutSeconds'] * 1000,
    maxRetries: settings['network.maxRetries'],
    maxRetryWaitMs: settings['network.maxRetryWaitSeconds'] * 1000,
    baseDelayMs: 500,
    ...overrides,
  };
}

/** The abort reason of an attempt the idle watchdog gave up on. */
export class IdleTimeoutError extends Error {
  override name = 'IdleTimeoutError';
}

/** The abort reason of an attempt cut off by the bound on the whole turn. */
export class TurnTimeoutError extends Error {
  override name = 'TurnTimeoutError';
}

/**
 * SDK middleware that calls `onIdle` when no byte arrives for `idleMs`: while
 * waiting for the response headers, and between chunks of the body. It
 * watches bytes, not parsed events, so the API's `ping` keep-alives count
 * as life during a long server-side tool call.
 */
export function idleWatchdog(idleMs: number, onIdle: () => void): Middleware {
  return async (request, next) => {
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(onIdle, idleMs);
    };
    const disarm = () => clearTimeout(timer);
    arm();
    let response: Response;
    try {
      response = await next(request);
    } catch (error) {
      disarm();
      throw error;
    }
    const source = response.body;
    if (!source) {
      disarm();
      return response;
    }
    arm();
    const reader = source.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            disarm();
            controller.close();
            return;
          }
          arm();
          controller.enqueue(value);
        } catch (error) {
          disarm();
          controller.error(error);
        }
      },
      cancel(reason) {
        disarm();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** `0.3 s`, `45 s`, `5 min`, `1 h`: durations in messages. */
export function formatWait(ms: number): string {
  if (ms < 120_000) return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Number((ms / 3_600_000).toFixed(1))} h`;
}
