import { Worker } from 'node:worker_threads';

/**
 * Regular expressions written by someone else (an agent file's output
 * schema, a model's spawn call, a hook matcher) run here: on a worker
 * thread, stopped at a deadline. JavaScript regexes backtrack, so a pattern
 * like `^(a+)+$` on 43 characters never finishes; on the main thread no
 * timer could fire, and in VS Code the whole extension host would stop.
 * A worker can be terminated mid-match, which no static check can promise
 * (ReDoS checkers miss patterns and flag safe ones), and it keeps the exact
 * semantics of `new RegExp(pattern).test(text)`. The SDK's Grep tool runs
 * its pattern the same way (or in ripgrep, whose engine does not backtrack).
 */

/** Long enough for any sane pattern on any sane input; short enough that a runaway one is noticed at once. */
export const REGEX_DEADLINE_MS = 1000;

/** How long a worker may take to start before the batch is given up as failed. */
const WORKER_START_MS = 15_000;

// Plain JavaScript, evaluated in the worker: it needs nothing of the bundle. It says which pattern
// it starts before running it, and posts each answer as it has it, so a pattern that runs away
// loses only its own answer.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { patterns, texts } = workerData;
for (let i = 0; i < patterns.length; i++) {
  parentPort.postMessage({ starting: i });
  let re;
  try { re = new RegExp(patterns[i]); } catch (error) { parentPort.postMessage({ index: i, result: { error: String(error && error.message || error) } }); continue; }
  const matches = [];
  for (const text of texts) { re.lastIndex = 0; matches.push(re.test(text)); }
  parentPort.postMessage({ index: i, result: { matches } });
}
`;

/** The timers the deadlines run on (a test's own, to see which deadline is armed when). */
export interface DeadlineTimers {
  set(ms: number, fire: () => void): unknown;
  clear(handle: unknown): void;
}

const REAL_TIMERS: DeadlineTimers = {
  set: (ms, fire) => setTimeout(fire, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** One pattern's answer: a boolean per text, its syntax error, or that it ran past the deadline. */
export type PatternResult = { matches: boolean[] } | { error: string } | { timedOut: true };

/** What a pattern that ran past the deadline did, for messages. */
export function timeoutMessage(pattern: string, deadlineMs = REGEX_DEADLINE_MS): string {
  return `the pattern ${JSON.stringify(pattern)} took more than ${deadlineMs} ms and was stopped: it backtracks catastrophically on this input`;
}

/**
 * Tests every pattern against every text, off the main thread: one result
 * per pattern, in order. A pattern still running `deadlineMs` after it
 * started is stopped (its thread terminated) and answers `timedOut`; the
 * patterns after it go on in a fresh thread.
 */
export async function testPatterns(patterns: readonly string[], texts: readonly string[], deadlineMs = REGEX_DEADLINE_MS, timers: DeadlineTimers = REAL_TIMERS): Promise<PatternResult[]> {
  const results: PatternResult[] = [];
  while (results.length < patterns.length) {
    const start = results.length;
    const answered = await runBatch(patterns.slice(start), texts, deadlineMs, timers);
    results.push(...answered.results);
    if (answered.timedOut) results.push({ timedOut: true });
  }
  return results;
}

/** Runs patterns in one thread until they are all answered or one runs past the deadline (it comes right after the answers). */
function runBatch(patterns: readonly string[], texts: readonly string[], deadlineMs: number, timers: DeadlineTimers): Promise<{ results: PatternResult[]; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    // No environment: the API key has no business in a thread that runs someone else's pattern.
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { patterns, texts }, env: {}, execArgv: [], stdout: true, stderr: true, resourceLimits: { stackSizeMb: 8 } });
    const results: PatternResult[] = [];
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      timers.clear(timer);
      void worker.terminate();
      outcome();
    };
    let timer = timers.set(WORKER_START_MS, () => finish(() => reject(new Error('the pattern worker did not start'))));
    worker.on('message', (message: { starting?: number; index?: number; result?: PatternResult }) => {
      if (message.starting !== undefined) {
        // Each pattern's deadline counts from its own start, so a slow thread start on a busy machine is not its fault.
        timers.clear(timer);
        timer = timers.set(deadlineMs, () => finish(() => resolve({ results, timedOut: true })));
      }
      if (message.result) {
        results.push(message.result);
        if (results.length === patterns.length) finish(() => resolve({ results, timedOut: false }));
      }
    });
    worker.on('error', (error) => finish(() => reject(error)));
    worker.on('exit', (code) => finish(() => reject(new Error(`the pattern worker stopped (exit code ${code})`))));
  });
}
