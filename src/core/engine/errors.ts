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
