/** Worktree isolation (SPEC S5): the public surface for the engine and the CLI. */
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
  type ChangedFile,
  type FileChangeKind,
  type DiscardFilesOutcome,
  type ReviewedFile,
  type WorktreeReview,
} from './manager';
