import { addUsage, emptyUsage, totalTokens, type Usage } from '../../../protocol/runEvents';
import { BudgetExceededError } from '../errors';

export interface Budget {
  /** 0 or absent: no limit. */
  maxTokens?: number;
  maxCostUsd?: number;
}

/** What a budget (and every budget above it) still allows; absent: no limit. */
export interface Allowance {
  tokens?: number;
  costUsd?: number;
}

function least(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/**
 * A token/cost budget: of a run tree, or of one spawned agent and
 * its subtree (the spawn tool's `budget`). Usage reported to a budget counts
 * against every budget above it too, so a child's spending is part of its
 * parent's. The first report that crosses a limit aborts the budget's scope
 * (the tree, or the spawned agent with its subtree) with a
 * BudgetExceededError, so its agents stop cleanly and keep what they did.
 */
export class BudgetTracker {
  #used: Usage = emptyUsage();
  readonly #limits: Budget;
  /** Why a limit is lower than the one asked for, for the message when it is reached. */
  readonly #clampNote: string;

  /**
   * Inside a `parent` budget, a limit larger than what the parent has left is
   * clamped to it: a child can never be promised more than its parent has.
   */
  constructor(
    budget: Budget,
    private readonly scope: AbortController,
    private readonly parent: BudgetTracker | null = null,
  ) {
    const left = parent?.remaining() ?? {};
    const clamp = (asked: number | undefined, available: number | undefined) => (asked && available !== undefined && available < asked ? available : asked);
    this.#limits = { maxTokens: clamp(budget.maxTokens, left.tokens), maxCostUsd: clamp(budget.maxCostUsd, left.costUsd) };
    const clamped = [
      this.#limits.maxTokens !== budget.maxTokens ? `${budget.maxTokens} tokens` : null,
      this.#limits.maxCostUsd !== budget.maxCostUsd ? `$${budget.maxCostUsd}` : null,
    ].filter(Boolean);
    this.#clampNote = clamped.length ? ` (${clamped.join(' and ')} asked for, clamped to what its parent had left)` : '';
  }

  get used(): Usage {
    return this.#used;
  }

  /** The limits in force, after clamping. */
  get limits(): Budget {
    return { ...this.#limits };
  }

  remaining(): Allowance {
    const above = this.parent?.remaining() ?? {};
    const { maxTokens, maxCostUsd } = this.#limits;
    return {
      tokens: least(above.tokens, maxTokens ? Math.max(0, maxTokens - totalTokens(this.#used)) : undefined),
      costUsd: least(above.costUsd, maxCostUsd ? Math.max(0, maxCostUsd - this.#used.costUsd) : undefined),
    };
  }

  add(delta: Usage): void {
    this.#used = addUsage(this.#used, delta);
    const { maxTokens, maxCostUsd } = this.#limits;
    // This scope stops first, so an agent stopped by its own budget says so even when its parent's runs out with it.
    if (maxTokens && totalTokens(this.#used) >= maxTokens) {
      this.scope.abort(new BudgetExceededError(`Token budget reached: ${totalTokens(this.#used)} of ${maxTokens} tokens used${this.#clampNote}.`));
    } else if (maxCostUsd && this.#used.costUsd >= maxCostUsd) {
      this.scope.abort(new BudgetExceededError(`Cost budget reached: $${this.#used.costUsd.toFixed(4)} of $${maxCostUsd} spent${this.#clampNote}.`));
    }
    this.parent?.add(delta);
  }
}
