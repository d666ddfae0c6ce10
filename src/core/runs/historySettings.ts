import type { Settings } from '../config';
import type { RunHistory, RunHistoryOptions } from './history';
import type { RunStore, RunStoreOptions } from './runStore';

/**
 * The newest runs a long-lived process (VS Code) reads whole when it opens
 * the history, for the Runs view: as many as the default `history.maxRuns`
 * keeps, so nothing changes for a default history; of a longer one the rest
 * stays listed from the index and readable (`subagents runs`, a follow-up).
 */
export const RUNS_VIEW_RUNS = 200;

/** The run store's caps from the `history.*` settings. */
export function storeLimits(settings: Settings): Required<Pick<RunStoreOptions, 'maxRuns' | 'maxEventsPerRun'>> {
  return { maxRuns: settings['history.maxRuns'], maxEventsPerRun: settings['history.maxEventsPerRun'] };
}

/** The history's retention and run cap from the `history.*` settings. */
export function historyLimits(settings: Settings): Required<Pick<RunHistoryOptions, 'retentionDays' | 'maxRuns'>> {
  return { retentionDays: settings['history.retentionDays'], maxRuns: settings['history.maxRuns'] };
}

/**
 * Applies changed `history.*` settings to a running history and its store,
 * at once (no reload): runs past the new retention or cap are deleted, tool
 * rows past the new per-run cap are folded.
 */
export function applyHistorySettings(settings: Settings, history: RunHistory, store: RunStore): void {
  store.setLimits(storeLimits(settings));
  history.setLimits(historyLimits(settings));
}
