/** Abort reasons, so an ended agent can tell a user's stop from a spent budget. */
export class CancelledError extends Error {
  override name = 'CancelledError';
  constructor(message = 'Cancelled by the user.') {
    super(message);
  }
}

export class BudgetExceededError extends Error {
  override name = 'BudgetExceededError';
}

/** A request the engine refuses before any run starts (bad agent name, no API key, …). */
export class EngineError extends Error {
  override name = 'EngineError';
}

/**
 * The agent (or its run) is at work in another live process: only that
 * process may continue it, so a message for it goes to the mailbox that
 * process reads.
 */
export class BusyElsewhereError extends EngineError {
  override name = 'BusyElsewhereError';
  constructor(
    message: string,
    /** Which process: `another process (pid 123)`. */
    readonly owner: string,
    readonly runId: string,
  ) {
    super(message);
  }
}
