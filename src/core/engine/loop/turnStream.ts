import type Anthropic from '@anthropic-ai/sdk';
import { APIConnectionError, APIError } from '@anthropic-ai/sdk';
import type { BetaMessage, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { MessageAccumulator } from './messageAccumulator';
import { formatWait, idleWatchdog, IdleTimeoutError, MAX_SILENT_ATTEMPTS, TurnTimeoutError, type NetworkPolicy } from './network';
import { retryDecision, retryWait } from './retryPolicy';
import { KEY_REJECTED_PREFIX } from './keyCheck';

/**
 * Streams one model turn and survives network faults (silence, dropped
 * connections, retryable errors; docs/running-agents.md, "Faults"). Every
 * attempt is watched for silence (no byte for `idleTimeoutMs`), the whole
 * turn is bounded (`turnTimeoutMs`), and failed attempts are retried here,
 * never inside the SDK, so each retry and each wait is reported through
 * `onRetry` before it happens.
 */

export type TurnParams = Omit<MessageCreateParamsNonStreaming, 'stream'>;

export interface TurnOptions {
  signal: AbortSignal;
  onText(delta: string): void;
  /** Called before a retry; the partial output of the failed attempt is void. */
  onRetry(attempt: number, delayMs: number, reason: string): void;
  policy: NetworkPolicy;
}

/** What a turn produced: the assistant message, and its tool calls whose input was not valid JSON. */
export interface TurnResult {
  message: BetaMessage;
  invalidInputs: ReadonlyMap<string, string>;
}

/** The turn cannot be completed; `message` is meant for the user. */
export class TurnError extends Error {
  override name = 'TurnError';
}

/** A message for the user about an error that ended the turn. */
export function describeApiError(error: unknown, baseURL?: string): string {
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    const root = (cause as { cause?: unknown } | undefined)?.cause;
    const detail = cause instanceof Error ? `${cause.message}${root instanceof Error ? `: ${root.message}` : ''}` : error.message;
    return `Could not reach the model API${baseURL ? ` at ${baseURL}` : ''} (${detail}), even after retrying. Check the network, or the API base URL (subagents.apiBaseUrl / ANTHROPIC_BASE_URL).`;
  }
  if (error instanceof APIError && error.status !== undefined) {
    const detail = (error.error as { error?: { message?: string } } | undefined)?.error?.message ?? error.message;
    switch (error.status) {
      case 401:
        return `${KEY_REJECTED_PREFIX}: ${detail}. Set a valid key (Subagents: Set API Key, or ANTHROPIC_API_KEY).`;
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

/** One HTTP attempt: the request, streamed and accumulated, under the idle watchdog. */
async function attemptTurn(client: Anthropic, params: TurnParams, options: TurnOptions, signal: AbortSignal, abort: (reason: Error) => void, remainingMs: number): Promise<TurnResult> {
  const { policy } = options;
  const stream = await client.beta.messages.create(
    { ...params, stream: true },
    {
      signal,
      maxRetries: 0,
      // The SDK's own timeout covers only the wait for headers; the watchdog and the turn bound cover the rest.
      timeout: Math.max(1, remainingMs),
      middleware: [idleWatchdog(policy.idleTimeoutMs, () => abort(new IdleTimeoutError(`No data for ${formatWait(policy.idleTimeoutMs)}.`)))],
    },
  );
  const accumulator = new MessageAccumulator();
  for await (const event of stream) {
    const text = accumulator.add(event);
    if (text) options.onText(text);
  }
  return { message: accumulator.finish(), invalidInputs: accumulator.invalidInputs };
}

export async function streamTurn(client: Anthropic, params: TurnParams, options: TurnOptions): Promise<TurnResult> {
  const { policy } = options;
  const deadline = Date.now() + policy.turnTimeoutMs;
  const bound = new AbortController();
  const turnTimer = setTimeout(
    () => bound.abort(new TurnTimeoutError(`The model did not finish its turn within ${formatWait(policy.turnTimeoutMs)} (subagents.network.turnTimeoutSeconds); giving up.`)),
    policy.turnTimeoutMs,
  );
  // Stopped by the agent's signal or by the bound on the turn; each attempt adds its own idle watchdog.
  const turn = AbortSignal.any([options.signal, bound.signal]);
  let silentInARow = 0;
  try {
    for (let attempt = 1; ; attempt++) {
      turn.throwIfAborted();
      const idle = new AbortController();
      try {
        return await attemptTurn(client, params, options, AbortSignal.any([turn, idle.signal]), (reason) => idle.abort(reason), deadline - Date.now());
      } catch (error) {
        turn.throwIfAborted();
        const decision = retryDecision(error, idle.signal.aborted ? idle.signal.reason : undefined, policy);
        if (decision === null) throw new TurnError(describeApiError(error, client.baseURL));
        silentInARow = decision.silent ? silentInARow + 1 : 0;
        if (attempt > policy.maxRetries || silentInARow >= MAX_SILENT_ATTEMPTS) throw new TurnError(givingUp(error, decision.silent === true, attempt, policy, client.baseURL));
        const { delayMs, reason } = retryWait(decision, attempt, policy);
        if (Date.now() + delayMs >= deadline) throw new TurnError(`${describeApiError(error, client.baseURL)} Waiting ${formatWait(delayMs)} more would pass the bound on one turn (subagents.network.turnTimeoutSeconds); giving up.`);
        options.onRetry(attempt, delayMs, reason);
        await sleep(delayMs, turn);
      }
    }
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    if (bound.signal.aborted) throw new TurnError((bound.signal.reason as Error).message);
    throw error;
  } finally {
    clearTimeout(turnTimer);
  }
}

function givingUp(error: unknown, silent: boolean, attempts: number, policy: NetworkPolicy, baseURL: string): string {
  if (silent) {
    return `The model API${baseURL ? ` at ${baseURL}` : ''} sent no data for ${formatWait(policy.idleTimeoutMs)}, ${attempts} times in a row; giving up. Check the network and the API base URL, or raise subagents.network.idleTimeoutSeconds for a slow endpoint.`;
  }
  if (error instanceof APIConnectionError) return describeApiError(error, baseURL);
  if (error instanceof APIError && error.status === undefined) {
    return `The model's response stream failed ${attempts} times in a row; giving up. ${describeApiError(error, baseURL)}`;
  }
  if (!(error instanceof APIError)) return `The model's response stream broke ${attempts} times in a row (${describeApiError(error, baseURL)}); giving up.`;
  return describeApiError(error, baseURL);
}
