/**
 * A process that creates and finishes isolated worktrees in a loop, for the
 * cross-process tests: several of these at once in one repository must never
 * trip over each other's git bookkeeping. Prints one line per worktree.
 * Usage: churnChild.ts <stateDir> <worktreesRoot> <repo> <name> <count>
 */
import { WorktreeManager } from '../../../../src/core/isolation';

async function main(): Promise<void> {
  const [stateDir = '', worktreesRoot = '', repo = '', name = 'churn', count = '1'] = process.argv.slice(2);
  const manager = new WorktreeManager({ stateDir, worktreesRoot });
  for (let i = 0; i < Number(count); i++) {
    const agentId = `${name}-${i}`;
    const rec = await manager.create({ cwd: repo, agentName: name, agentId });
    if ((await manager.finish(agentId)) !== null) throw new Error(`${agentId}: an untouched worktree had changes`);
    process.stdout.write(`${rec.branch}\n`);
  }
  manager.dispose();
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
});
