/**
 * The cap on background agents running at once over every tree of an engine
 * (`subagents.maxBackgroundAgents`). A place is reserved before the child is
 * prepared (its worktree made, which takes a while), so spawns of the same
 * turn checked meanwhile count it; the reservation is tied to the agent once
 * it launches and frees itself when the agent ends, or is given back at once
 * when preparing it failed. Releasing is idempotent: nothing outside this
 * file counts places.
 */
export class BackgroundAgents {
  #count = 0;

  /** Background agents running or being prepared. */
  get count(): number {
    return this.#count;
  }

  /** A place for one more background agent, or the refusal the parent model gets. */
  reserve(max: number): BackgroundReservation | string {
    if (this.#count >= max) {
      return `Cannot start another background agent: ${this.#count} are running, the limit is ${max} (subagents.maxBackgroundAgents). Wait for one with TaskOutput, stop one with TaskStop, or run this one in the foreground.`;
    }
    this.#count++;
    return new BackgroundReservation(() => this.#count--);
  }
}

export class BackgroundReservation {
  #free: (() => void) | null;

  constructor(free: () => void) {
    this.#free = free;
  }

  /** Holds the place until `ended` settles (the agent's `done`). */
  holdUntil(ended: Promise<unknown>): void {
    void ended.finally(() => this.release());
  }

  release(): void {
    this.#free?.();
    this.#free = null;
  }
}
