/**
 * Why isolation failed, for callers that react differently per cause (the
 * spawn tool turns every one of them into a tool error; the UI may offer
 * "initialise a repository" for `not-a-repo`).
 */
export type IsolationErrorCode =
  | 'not-a-repo'
  | 'no-commits'
  | 'git-missing'
  | 'bad-directory'
  | 'bad-base'
  | 'unknown-agent'
  | 'invalid-state'
  | 'locked'
  | 'git-failed';

/**
 * An error whose message is meant for the user (and the parent agent): it
 * says what happened and what to do. Lower-level details (git's stderr) are
 * kept on `cause` for the log.
 */
export class IsolationError extends Error {
  override readonly name = 'IsolationError';
  readonly code: IsolationErrorCode;

  constructor(code: IsolationErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
