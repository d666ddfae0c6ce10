/**
 * A process that is to be killed while it recycles a worktree, for the crash
 * tests: `take` makes an isolated worktree (from the pool the test filled);
 * `release` makes one, keeps a change in it, discards it (back to the pool,
 * not cleaned yet), then runs the pool's upkeep, which cleans it. The
 * test's git shim stops the chosen git step until the process is killed.
 * Usage: recycleChild.ts <stateDir> <worktreesRoot> <repo> <take|release>
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorktreeManager } from '../../../../src/core/isolation';

async function main(): Promise<void> {
  const [stateDir = '', worktreesRoot = '', repo = '', mode = 'take'] = process.argv.slice(2);
  const manager = new WorktreeManager({ stateDir, worktreesRoot, poolSize: () => 2 });
  const rec = await manager.create({ cwd: repo, agentName: 'recycler', agentId: `recycle-${mode}` });
  if (mode === 'release') {
    writeFileSync(path.join(rec.path, 'kept-work.txt'), 'work to keep\n');
    await manager.finish(rec.agentId);
    await manager.discard(rec.agentId);
    await manager.maintain();
  }
  process.stdout.write('finished without being stopped\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`${String(e)}\n`);
  process.exit(2);
});
