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
} from './manager';
export { INCLUDE_FILE } from './include';
export { inGitRepository } from './repo';
export { overlapsBefore, overlapWarning, teammatesOf, type Overlap, type TeammateWork } from './overlaps';
export { formatBytes } from './diskUse';
