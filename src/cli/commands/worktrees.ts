import os from 'node:os';
import { parseArgs } from 'node:util';
import { describeUpkeep, formatBytes, IsolationError, overlapsBefore, overlapWarning, teammatesOf, type PoolStatus, type TeammateWork, type WorktreeManager, type WorktreeRecord } from '../../core/isolation';
import { UsageError, type CliCommand, type CliIO } from '../command';
import { handOffUpkeep, openHistory, openWorktrees, recoverWorktrees } from '../session';
import { cliSettings } from '../settingsFiles';
import { terminalText } from '../render/terminalText';

const USAGE = `Usage: subagents worktrees [list] [--json]
       subagents worktrees diff <agentId>      (control characters shown as
                                               symbols on a terminal; exact
                                               bytes when redirected)
       subagents worktrees apply <agentId> [--yes]
       subagents worktrees discard <agentId>
       subagents worktrees clean
       subagents worktrees maintain [--json]

Isolated agents work in git worktrees of their own; changed ones stay on a
branch until you apply or discard them. Finished worktrees go back to a pool
per repository and are reused by the next isolated agent: as many as the
widest fan-out you ran there in the last 7 days, at least maxConcurrency
(worktrees.poolSize), within worktrees.poolDiskBudgetMB for all pools.
Every worktrees command (and "run" and "resume") first cleans up after
interrupted runs: unchanged leftovers are removed, changed ones are committed
on their branch and kept. "list" shows the worktrees in use, the kept ones
and the pooled ones with their disk use. "apply" merges the changes into
your working tree (nothing is committed or staged) and saves the tree as it
was under refs/subagents/before-apply/…; "discard" deletes the worktree's
branch and those saved refs at once and hands its folder back to the pool.
"clean" empties the pool (it is refilled only once an isolated agent runs
there again); kept worktrees stay until you apply or discard them.
What takes long (cleaning handed-back worktrees, deleting removed ones,
refilling the pool) happens in the background: a detached "maintain" of
its own, started when there is work (none with SUBAGENTS_NO_BACKGROUND=1);
"maintain" does it now and waits for it.

A team's teammates each leave their changes on a branch of their own, applied
one teammate at a time. When a teammate's changes touch a file another
teammate's applied changes hold, "apply" names the files and stops: run it
again with --yes to merge them (lines both changed get conflict markers).`;

function describe(rec: WorktreeRecord & { diskBytes: number }): string {
  const stats = rec.info ? `${rec.info.filesChanged} files, +${rec.info.insertions} -${rec.info.deletions}` : 'no summary yet';
  const folder = rec.diskBytes > 0 ? `${rec.path}  (about ${formatBytes(rec.diskBytes)})` : `${rec.path}  (folder handed back; the work is on the branch)`;
  return terminalText(`${rec.agentId}  ${rec.state.padEnd(9)} ${rec.agentName.padEnd(18)} ${rec.branch}  ${stats}\n    ${folder}  repo ${rec.repoRoot}`);
}

function describePool(pool: PoolStatus[]): string {
  return pool
    .map((repo) => {
      const lines = repo.worktrees.map((w) => `    ${w.path}  at ${w.head.slice(0, 12)}, pooled ${new Date(w.pooledAt).toISOString()}, about ${formatBytes(w.diskBytes)}${w.ready ? '' : ' (being cleaned)'}`);
      const keeps = repo.widest && repo.widest >= repo.size ? `keeps ${repo.size}: your widest fan-out there` : `keeps ${repo.size}`;
      return terminalText(`  ${repo.repoRoot}: ${repo.worktrees.length} pooled (${keeps}), about ${formatBytes(repo.diskBytes)}\n${lines.join('\n')}`);
    })
    .join('\n');
}

/** `of the 5.0 GB budget`, or nothing without a bound. */
function budgetText(bytes: number): string {
  return Number.isFinite(bytes) ? ` of the ${formatBytes(bytes)} budget` : '';
}

async function list(worktrees: WorktreeManager, io: CliIO, json: boolean): Promise<number> {
  const report = await worktrees.recover();
  const records = await Promise.all(
    (await worktrees.list()).filter((r) => r.state !== 'discarded').map(async (r) => ({ ...r, diskBytes: await worktrees.diskBytes(r) })),
  );
  const pool = await worktrees.poolStatus();
  const inUse = records.filter((r) => r.state === 'active' || r.state === 'creating');
  const kept = records.filter((r) => r.state === 'finished' || r.state === 'applied');
  const sum = (xs: Array<{ diskBytes: number }>) => xs.reduce((n, x) => n + x.diskBytes, 0);
  const budget = worktrees.poolSizing.budgetBytes;
  if (json) {
    const disk = { inUse: sum(inUse), kept: sum(kept), pooled: sum(pool), poolBudget: Number.isFinite(budget) ? budget : null };
    io.stdout.write(`${JSON.stringify({ worktrees: records, pool, diskBytes: disk, removed: report.removed.map((r) => r.agentId) })}\n`);
    return 0;
  }
  if (report.removed.length) io.stderr.write(`Removed ${report.removed.length} unchanged worktree(s) left by interrupted runs.\n`);
  const sections: string[] = [];
  if (inUse.length) sections.push(`In use (${inUse.length}), about ${formatBytes(sum(inUse))}:\n${inUse.map(describe).join('\n')}`);
  if (kept.length) sections.push(`Kept with changes (${kept.length}), about ${formatBytes(sum(kept))}:\n${kept.map(describe).join('\n')}`);
  if (pool.length) sections.push(`Pooled for reuse (${pool.reduce((n, p) => n + p.worktrees.length, 0)}), about ${formatBytes(sum(pool))}${budgetText(budget)} (delete with "subagents worktrees clean"):\n${describePool(pool)}`);
  io.stdout.write(sections.length ? `${sections.join('\n\n')}\n` : 'No worktrees.\n');
  return 0;
}

/** The teammates of the run `agentId` is a teammate of (from the history), or null when it is none. */
async function teammatesIn(io: CliIO, agentId: string): Promise<{ target: TeammateWork; teammates: TeammateWork[] } | null> {
  const history = await openHistory(io, cliSettings(io, io.cwd, { userOnly: true }));
  try {
    // The history reads no run whole at open: the run is read by the agent's id.
    return teammatesOf((await history.read(agentId)) ?? undefined, agentId);
  } finally {
    await history.close();
  }
}

export const worktreesCommand: CliCommand = {
  name: 'worktrees',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: 'boolean', default: false }, yes: { type: 'boolean', default: false }, background: { type: 'boolean', default: false } },
    });
    const [action = 'list', agentId] = positionals;
    if (!['list', 'diff', 'apply', 'discard', 'clean', 'maintain'].includes(action)) throw new UsageError(`unknown action "${action}"`);
    if (['diff', 'apply', 'discard'].includes(action) && !agentId) throw new UsageError(`${action} needs an <agentId>`);
    if (values.background && action !== 'maintain') throw new UsageError('--background is for "maintain"');
    const worktrees = openWorktrees(io, cliSettings(io, io.cwd));
    let handOff = true;
    try {
      if (action === 'maintain') {
        handOff = false;
        return await maintain(worktrees, io, values);
      }
      if (action === 'list') return await list(worktrees, io, values.json);
      if (action === 'clean') {
        await recoverWorktrees(io, worktrees);
        const pooled = (await worktrees.poolStatus()).reduce((n, p) => n + p.diskBytes, 0);
        const removed = await worktrees.emptyPool();
        if (values.json) io.stdout.write(`${JSON.stringify({ deleted: removed, diskBytes: pooled })}\n`);
        else io.stdout.write(removed ? `Deleted ${removed} pooled worktree(s), about ${formatBytes(pooled)}.\n` : 'The pool is empty.\n');
        return 0;
      }
      // A leftover of a crashed run is committed first, so its changes can be shown, applied or discarded.
      await recoverWorktrees(io, worktrees);
      await worktrees.list();
      if (action === 'diff') {
        // An agent wrote these bytes: on a terminal their control characters are shown, not obeyed (an ESC sequence
        // can erase lines, OSC 52 can write the clipboard). Redirected, the patch stays byte for byte, so it applies.
        const diff = await worktrees.diff(agentId!);
        if (values.json) io.stdout.write(`${JSON.stringify({ agentId, diff })}\n`);
        else io.stdout.write(io.stdout.isTTY ? terminalText(diff) : diff);
        return 0;
      }
      if (action === 'discard') {
        await worktrees.discard(agentId!);
        io.stdout.write(values.json ? `${JSON.stringify({ discarded: agentId })}\n` : `Discarded the worktree and branch of ${agentId}.\n`);
        return 0;
      }
      const team = await teammatesIn(io, agentId!);
      const overlaps = team ? await overlapsBefore(worktrees, team.target, team.teammates) : [];
      const warning = team ? overlapWarning(team.target, overlaps) : null;
      if (warning && !values.yes) {
        if (values.json) io.stdout.write(`${JSON.stringify({ applied: false, overlaps })}\n`);
        io.stderr.write(`subagents worktrees: ${terminalText(warning)} Nothing was applied; run again with --yes to apply anyway.\n`);
        return 1;
      }
      if (warning) io.stderr.write(`subagents worktrees: ${terminalText(warning)}\n`);
      const outcome = await worktrees.apply(agentId!);
      if (values.json) io.stdout.write(`${JSON.stringify(outcome)}\n`);
      else io.stdout.write(`${terminalText(outcome.message)}\n`);
      return outcome.conflicts.length ? 1 : 0;
    } catch (error) {
      if (!(error instanceof IsolationError)) throw error;
      io.stderr.write(`subagents worktrees: ${terminalText(error.message)}\n`);
      return 1;
    } finally {
      if (handOff) await handOffUpkeep(io, worktrees);
      worktrees.dispose();
    }
  },
};

/**
 * The pool's upkeep now. In the foreground it waits for another process's
 * pass and says what it did; in the background (how other commands start
 * it, detached: `--background`, left out of the usage) runs at a lower priority, passes until nothing is left, and
 * leaves at once when another process is at it already.
 */
async function maintain(worktrees: WorktreeManager, io: CliIO, opts: { json: boolean; background: boolean }): Promise<number> {
  if (opts.background) {
    try {
      os.setPriority(10);
    } catch {
      // Not allowed here: it runs at the usual priority.
    }
    await worktrees.recover();
    for (let pass = 0; pass < 20; pass++) {
      if (!(await worktrees.maintain())) break;
      if (!(await worktrees.upkeepPending())) break;
    }
    return 0;
  }
  await recoverWorktrees(io, worktrees);
  const report = await worktrees.maintain({ wait: true });
  if (opts.json) io.stdout.write(`${JSON.stringify(report)}\n`);
  else io.stdout.write(`Worktree pool: ${describeUpkeep(report!)}.\n`);
  return 0;
}
