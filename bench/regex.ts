/**
 * How long after its start a runaway regular expression is really stopped
 * (src/core/regex/boundedRegex.ts), at the default deadline: the time from
 * the pattern's start (its deadline armed) to the answer `timedOut`, over a
 * number of rounds, with what the main thread did meanwhile (it must keep
 * running). The functional tests check which deadline is armed and that it
 * is never cut short; the elapsed time is measured here, not asserted in a
 * test on a busy machine.
 *
 * Run: node_modules/node/bin/node --import tsx bench/regex.ts
 */
import os from 'node:os';
import { REGEX_DEADLINE_MS, testPatterns, type DeadlineTimers } from '../src/core/regex/boundedRegex';
import { median, writeResults } from './lib/results';

const ROUNDS = 15;
const RUNAWAY = '^(a+)+$';
const INPUT = `${'a'.repeat(40)}!`;

async function round(): Promise<{ overshootMs: number; totalMs: number; ticks: number }> {
  let armedAt = 0;
  const timers: DeadlineTimers = {
    set: (ms, fire) => {
      if (ms === REGEX_DEADLINE_MS) armedAt = performance.now();
      return setTimeout(fire, ms);
    },
    clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
  };
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 10);
  const started = performance.now();
  const [result] = await testPatterns([RUNAWAY], [INPUT], REGEX_DEADLINE_MS, timers);
  const ended = performance.now();
  clearInterval(ticker);
  if (!result || !('timedOut' in result)) throw new Error(`the runaway pattern was not stopped: ${JSON.stringify(result)}`);
  return { overshootMs: ended - armedAt - REGEX_DEADLINE_MS, totalMs: ended - started, ticks };
}

async function main(): Promise<void> {
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round());
  const overshoot = rounds.map((r) => r.overshootMs);
  const results = {
    deadlineMs: REGEX_DEADLINE_MS,
    rounds: ROUNDS,
    overshootMs: { median: median(overshoot), max: Math.max(...overshoot), min: Math.min(...overshoot) },
    totalMs: { median: median(rounds.map((r) => r.totalMs)), max: Math.max(...rounds.map((r) => r.totalMs)) },
    mainThreadTicksPerRound: { median: median(rounds.map((r) => r.ticks)), min: Math.min(...rounds.map((r) => r.ticks)) },
    load: os.loadavg()[0] ?? 0,
  };
  console.log(
    `a runaway pattern, deadline ${REGEX_DEADLINE_MS} ms: stopped ${results.overshootMs.median.toFixed(1)} ms after its deadline (median of ${ROUNDS}; max ${results.overshootMs.max.toFixed(1)} ms); ` +
      `start to answer ${results.totalMs.median.toFixed(0)} ms; the main thread ticked ${results.mainThreadTicksPerRound.median} times (every 10 ms) meanwhile; load ${results.load.toFixed(2)}`,
  );
  await writeResults('regex', results);
}

void main();
