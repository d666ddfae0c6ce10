import '../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { WorktreeManager } from '../../../src/core/isolation';
import type { Services } from '../../../src/vscode/services';
import type { ReviewEditors } from '../../../src/vscode/review/reviewEditors';
import { cleanUpWorktreesCommand } from '../../../src/vscode/worktreeCommands';
import { summarizeWorktrees, worktreesChildren, worktreesItem, worktreesRoots } from '../../../src/vscode/worktreesOverview';
import { makeSandbox } from '../core/isolation/helpers';
import * as vscode from '../../support/vscodeFake';

// The Agents view's Worktrees section and Clean Up Worktrees, against a real
// repository and worktree manager under the vscode fake.

const sb = makeSandbox();
const manager = new WorktreeManager({ stateDir: sb.stateDir, worktreesRoot: sb.worktreesRoot, poolSize: () => 2, poolBudgetBytes: () => 5120 * 1024 * 1024 });
after(() => {
  manager.dispose();
  sb.cleanup();
});
beforeEach(() => vscode.resetFake());

const logged: string[] = [];
const services = {
  worktrees: manager,
  keptWorktrees: [],
  log: { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) },
} as unknown as Services;
// No review is open: the commands' review side does nothing here.
const reviews = { activeAgent: undefined, fileOf: () => undefined, worktreePath: () => null, refresh: async () => undefined, close: async () => undefined } as unknown as ReviewEditors;

test('the Worktrees section shows kept and pooled worktrees with their disk use; Clean Up Worktrees empties the pool and keeps the work', async () => {
  const kept = await manager.create({ cwd: sb.repo, agentName: 'writer', agentId: 'kept-1' });
  sb.write('feature.txt', 'feature\n', kept.path);
  await manager.finish('kept-1');
  await manager.create({ cwd: sb.repo, agentName: 'idle', agentId: 'idle-1' });
  assert.equal(await manager.finish('idle-1'), null);

  const summary = await summarizeWorktrees(manager);
  assert.deepEqual(summary.kept.map((k) => [k.agentName, k.changes]), [['writer', '1 file, +1 −0']]);
  assert.ok(summary.kept[0]!.diskBytes > 0);
  assert.deepEqual([summary.pooled.count, summary.inUse.count], [1, 0]);
  assert.ok(summary.pooled.diskBytes > 0);

  const [root] = worktreesRoots(summary);
  const rootItem = worktreesItem(root!) as unknown as vscode.TreeItem;
  assert.match(rootItem.description!, /^1 kept · 1 pooled · about \d+(\.\d)? KB$/);
  assert.equal(rootItem.contextValue, 'worktrees', 'the Clean Up button shows on it');
  const children = worktreesChildren(root!).map((n) => worktreesItem(n) as unknown as vscode.TreeItem);
  assert.deepEqual(children.map((c) => c.label), ['writer', 'Pooled: 1 of 2']);
  assert.match(children[1]!.description!, /^\d+(\.\d)? KB of 5\.0 GB · /, 'the pool shows its disk budget');
  assert.match(String(rootItem.tooltip), /of their 5\.0 GB budget \(subagents\.worktrees\.poolDiskBudgetMB\)/);
  assert.match(children[0]!.description!, new RegExp(`^1 file, \\+1 −0 · ${kept.branch} · about `));
  assert.deepEqual(children[0]!.command?.arguments, [{ agentId: 'kept-1' }], 'a click offers review, apply or discard of that one');
  assert.deepEqual(worktreesRoots(await summarizeWorktrees(new WorktreeManager({ stateDir: `${sb.root}/none`, worktreesRoot: `${sb.root}/none-trees` }))), [], 'no section without worktrees');

  // Picking nothing in the list of kept ones: the pool is emptied all the same, the kept work stays.
  const left = await cleanUpWorktreesCommand(services, reviews);
  assert.deepEqual(left, ['kept-1']);
  assert.match(vscode.shown.messages.map((m) => m.text).join('\n'), /^Deleted 1 pooled worktree \(about \d/);
  assert.deepEqual(await manager.poolStatus(), []);
  assert.equal(sb.git(['show', `${kept.branch}:feature.txt`]), 'feature\n');

  // Named for one agent (the section's click), it leaves the pool alone.
  await manager.create({ cwd: sb.repo, agentName: 'idle', agentId: 'idle-2' });
  await manager.finish('idle-2');
  await cleanUpWorktreesCommand(services, reviews, { agentId: 'kept-1', action: 'discard', confirmed: true });
  assert.equal((await manager.poolStatus())[0]?.worktrees.length, 2, 'the pool kept what it had and got the discarded one');
});
