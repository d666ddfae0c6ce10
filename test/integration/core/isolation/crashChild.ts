/**
 * A process that starts an isolated agent and then hangs, for the crash tests:
 * the test SIGKILLs it after it printed its worktree record, so finish() never
 * runs. Usage: crashChild.ts <stateDir> <worktreesRoot> <repo> <agentId> <none|change|commit>
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { WorktreeManager } from '../../../../src/core/isolation';

async function main(): Promise<void> {
  const [stateDir = '', worktreesRoot = '', repo = '', agentId = '', work = 'none'] = process.argv.slice(2);
  const manager = new WorktreeManager({ stateDir, worktreesRoot });
  const rec = await manager.create({ cwd: repo, agentName: 'crashy', agentId });
  if (work === 'change' || work === 'commit') writeFileSync(path.join(rec.path, 'crash-work.txt'), `work of ${agentId}\n`);
  if (work === 'commit') {
    execFileSync('git', ['-c', 'user.name=A', '-c', 'user.email=a@b', '-c', 'commit.gpgSign=false', 'add', '-A'], { cwd: rec.path });
    execFileSync('git', ['-c', 'user.name=A', '-c', 'user.email=a@b', '-c', 'commit.gpgSign=false', 'commit', '-q', '-m', 'agent commit'], { cwd: rec.path });
  }
  process.stdout.write(`${JSON.stringify(rec)}\n`);
  setInterval(() => {}, 60_000); // wait to be killed
}

main().catch((e: unknown) => {
  process.stderr.write(`${String(e)}\n`);
  process.exit(2);
});
