import type { Settings } from '../config';
import type { RunHistory, RunHistoryOptions } from './history';
import type { RunStore, RunStoreOptions } from './runStore';

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
