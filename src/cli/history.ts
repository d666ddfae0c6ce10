import type { Settings } from '../core/config';
import { RunHistory } from '../core/runs/history';
import { historyLimits } from '../core/runs/historySettings';
import { userDataDir as storageDir } from '../core/runtime/userDirs';
import type { CliIO } from './command';
import { problemLine } from './problems';

/**
 * The shared run history. A CLI command reads no run whole at open
 * (`loadRuns` 0): it lists from the index and reads the runs and agents it
 * is asked for, so it starts as fast with thousands of runs as with none. A
 * CLI process ends with its run, so it holds each run it works on until it
 * has delivered what arrived for it (Runtime.settle), and a message sent
 * meanwhile is queued for it rather than left behind.
 */
export async function openHistory(io: CliIO, settings: Settings): Promise<RunHistory> {
  const write = problemLine(io);
  return RunHistory.open({
    dir: storageDir(io.env),
    ...historyLimits(settings),
    loadRuns: 0,
    holdRuns: true,
    log: (level, message) => {
      if (level !== 'info') write(message);
    },
  });
}
