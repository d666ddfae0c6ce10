import { addUsage, emptyUsage, totalTokens, type Usage } from '../../protocol/runEvents';
import { BudgetExceededError } from './errors';

export interface Budget {
  /** 0 or absent: no limit. */
  maxTokens?: number;
  maxCostUsd?: number;
}

/**
 * The token/cost budget of one run tree (S3.9a). Every agent of the tree
 * reports its usage here; the first report that crosses a limit aborts the
 * tree's signal with a BudgetExceededError, so every agent stops cleanly and
 * keeps what it has done.
 */
export class BudgetTracker {
  #used: Usage = emptyUsage();

  constructor(
    private readonly budget: Budget,
    private readonly abortTree: (reason: BudgetExceededError) => void,
  ) {}

  get used(): Usage {
    return this.#used;
  }

  add(delta: Usage): void {
    this.#used = addUsage(this.#used, delta);
    const { maxTokens, maxCostUsd } = this.budget;
    if (maxTokens && totalTokens(this.#used) >= maxTokens) {
      this.abortTree(new BudgetExceededError(`Token budget reached: ${totalTokens(this.#used)} of ${maxTokens} tokens used.`));
    } else if (maxCostUsd && this.#used.costUsd >= maxCostUsd) {
      this.abortTree(new BudgetExceededError(`Cost budget reached: $${this.#used.costUsd.toFixed(4)} of $${maxCostUsd} spent.`));
    }
  }
}
