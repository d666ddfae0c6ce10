import { parseArgs } from 'node:util';
import { IsolationError, type WorktreeRecord } from '../../core/isolation';
import { UsageError, type CliCommand, type CliIO } from '../command';
import { openWorktrees, recoverWorktrees } from '../session';
import { terminalText } from '../render/terminalText';

const USAGE = `Usage: subagents worktrees [list] [--json]
       subagents worktrees diff <agentId>      (control characters shown as
                                               symbols on a terminal; exact
                                               bytes when redirected)
       subagents worktrees apply <agentId>
       subagents worktrees discard <agentId>

Isolated agents work in git worktrees of their own; changed ones stay on a
branch until you apply or discard them. Every worktrees command (and "run"
and "resume") first cleans up after interrupted runs: unchanged leftovers
are removed, changed ones are committed on their branch and kept.
"apply" merges the changes into your working tree (nothing is committed or
staged) and saves the tree as it was under refs/subagents/before-apply/…;
"discard" deletes the worktree, its branch and those saved refs.`;

function describe(rec: WorktreeRecord): string {
  const stats = rec.info ? `${rec.info.filesChanged} files, +${rec.info.insertions} -${rec.info.deletions}` : 'no summary yet';
  return terminalText(`${rec.agentId}  ${rec.state.padEnd(9)} ${rec.agentName.padEnd(18)} ${rec.branch}  ${stats}\n    ${rec.path}  (repo ${rec.repoRoot})`);
}

export const worktreesCommand: CliCommand = {
  name: 'worktrees',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
    const [action = 'list', agentId] = positionals;
    const worktrees = openWorktrees(io);
    try {
      if (action === 'list') {
        const report = await worktrees.recover();
        const records = (await worktrees.list()).filter((r) => r.state !== 'discarded');
        if (values.json) {
          io.stdout.write(`${JSON.stringify({ worktrees: records, removed: report.removed.map((r) => r.agentId) })}\n`);
          return 0;
        }
        if (report.removed.length) io.stderr.write(`Removed ${report.removed.length} unchanged worktree(s) left by interrupted runs.\n`);
        io.stdout.write(records.length ? `${records.map(describe).join('\n')}\n` : 'No worktrees.\n');
        return 0;
      }
      if (!['diff', 'apply', 'discard'].includes(action)) throw new UsageError(`unknown action "${action}"`);
      if (!agentId) throw new UsageError(`${action} needs an <agentId>`);
      // A leftover of a crashed run is committed first, so its changes can be shown, applied or discarded.
      await recoverWorktrees(io, worktrees);
      await worktrees.list();
      if (action === 'diff') {
        // An agent wrote these bytes: on a terminal their control characters are shown, not obeyed (an ESC sequence
        // can erase lines, OSC 52 can write the clipboard). Redirected, the patch stays byte for byte, so it applies.
        const diff = await worktrees.diff(agentId);
        io.stdout.write(io.stdout.isTTY ? terminalText(diff) : diff);
        return 0;
      }
      if (action === 'discard') {
        await worktrees.discard(agentId);
        io.stdout.write(`Discarded the worktree and branch of ${agentId}.\n`);
        return 0;
      }
      const outcome = await worktrees.apply(agentId);
      if (values.json) io.stdout.write(`${JSON.stringify(outcome)}\n`);
      else io.stdout.write(`${terminalText(outcome.message)}\n`);
      return outcome.conflicts.length ? 1 : 0;
    } catch (error) {
      if (!(error instanceof IsolationError)) throw error;
      io.stderr.write(`subagents worktrees: ${terminalText(error.message)}\n`);
      return 1;
    } finally {
      worktrees.dispose();
    }
  },
};
