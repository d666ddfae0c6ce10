import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BudgetTracker } from '../../../../../src/core/engine/tree/budget';
import { BudgetExceededError } from '../../../../../src/core/engine/errors';

const tokens = (n: number) => ({ inputTokens: n, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: n / 1000 });

test('nested budgets: usage counts up the chain; each limit stops only its own scope; what is left is the least of all', () => {
  const tree = new AbortController();
  const root = new BudgetTracker({ maxTokens: 1000 }, tree);
  const childScope = new AbortController();
  const child = new BudgetTracker({ maxCostUsd: 0.3 }, childScope, root);
  assert.deepEqual(child.remaining(), { tokens: 1000, costUsd: 0.3 });

  child.add(tokens(200));
  assert.equal(root.used.inputTokens, 200, "the child's spending is the parent's too");
  assert.deepEqual(root.remaining(), { tokens: 800, costUsd: undefined });
  assert.equal(child.remaining().tokens, 800);
  assert.ok(Math.abs(child.remaining().costUsd! - 0.1) < 1e-9);

  child.add(tokens(150));
  assert.ok(childScope.signal.reason instanceof BudgetExceededError);
  assert.match((childScope.signal.reason as Error).message, /^Cost budget reached: \$0\.3500 of \$0\.3 spent\.$/);
  assert.equal(tree.signal.aborted, false, 'the parent goes on');
});

test('a child budget larger than what its parent has left is clamped, and says so when reached; a spent budget has nothing left', () => {
  const tree = new AbortController();
  const root = new BudgetTracker({ maxTokens: 1000 }, tree);
  root.add(tokens(600));
  const childScope = new AbortController();
  const child = new BudgetTracker({ maxTokens: 5000, maxCostUsd: 1 }, childScope, root);
  assert.deepEqual(child.limits, { maxTokens: 400, maxCostUsd: 1 });
  child.add(tokens(450));
  assert.match((childScope.signal.reason as Error).message, /^Token budget reached: 450 of 400 tokens used \(5000 tokens asked for, clamped to what its parent had left\)\.$/);
  assert.match((tree.signal.reason as Error).message, /^Token budget reached: 1050 of 1000 tokens used\.$/);
  assert.deepEqual(root.remaining(), { tokens: 0, costUsd: undefined });
});

test('reaching a limit exactly stops its scope: tokens, and cost', () => {
  const byTokens = new AbortController();
  const tokenBudget = new BudgetTracker({ maxTokens: 300 }, byTokens);
  tokenBudget.add(tokens(299));
  assert.equal(byTokens.signal.aborted, false, 'one token short goes on');
  tokenBudget.add(tokens(1));
  assert.match((byTokens.signal.reason as Error).message, /^Token budget reached: 300 of 300 tokens used\.$/);
  assert.deepEqual(tokenBudget.remaining(), { tokens: 0, costUsd: undefined });

  const byCost = new AbortController();
  const costBudget = new BudgetTracker({ maxCostUsd: 0.25 }, byCost);
  costBudget.add(tokens(250));
  assert.match((byCost.signal.reason as Error).message, /^Cost budget reached: \$0\.2500 of \$0\.25 spent\.$/);
});
