/** Worktree isolation: the public surface for the engine and the CLI. */
export { IsolationError, type IsolationErrorCode } from './errors';
export {
  WorktreeManager,
  type WorktreeManagerOptions,
  type IsolationLogLevel,
  type WorktreeRecord,
  type WorktreeState,
  type ApplyOutcome,
  type ApplyConflict,
  type RecoverReport,
  type PoolStatus,
  type PreparedWorktree,
  type CreateOptions,
  type ChangedFile,
  type FileChangeKind,
  type DiscardFilesOutcome,
  type ReviewedFile,
  type WorktreeReview,
  type PoolSizing,
  type UpkeepReport,
} from './manager';
export { BackgroundUpkeep, describe as describeUpkeep, type BackgroundUpkeepOptions } from './backgroundUpkeep';
export { INCLUDE_FILE } from './include';
export { inGitRepository } from './repo';
export { overlapsBefore, overlapWarning, teammatesOf, type Overlap, type TeammateWork } from './overlaps';
export { formatBytes } from './diskUse';
