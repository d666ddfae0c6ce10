import { agentOf, type RunSnapshot } from '../../protocol/runSnapshot';
import type { WorktreeManager } from './manager';

/**
 * Teammates each work on a branch of their own, and their changes are
 * applied one teammate at a time. When two of them changed the same file,
 * the second apply merges over the first: where they changed the same lines
 * the file gets conflict markers. That must never happen unannounced, so
 * before an apply the files it shares with teammates' changes already in
 * your working tree (or applied earlier in the same batch) are named.
 */

export interface TeammateWork {
  agentId: string;
  /** The teammate's name, for messages. */
  name: string;
}

/** The teammates of the run `agentId` is a teammate of, with its own entry; null when it is none (or the run is unknown). */
export function teammatesOf(run: RunSnapshot | undefined, agentId: string): { target: TeammateWork; teammates: TeammateWork[] } | null {
  const node = run ? agentOf(run, agentId) : undefined;
  if (!run || !node?.member) return null;
  const teammates = Object.values(run.agents)
    .filter((a) => a.member)
    .map((a) => ({ agentId: a.agentId, name: a.member! }));
  return { target: { agentId, name: node.member }, teammates };
}

export interface Overlap {
  path: string;
  /** The teammates whose applied change the file already holds. */
  with: string[];
}

/** The files a worktree's changes touch (none when it has no reviewable work). */
async function changed(worktrees: WorktreeManager, agentId: string): Promise<{ all: string[]; applied: string[] }> {
  const rec = worktrees.get(agentId);
  if (!rec || (rec.state !== 'finished' && rec.state !== 'applied')) return { all: [], applied: [] };
  const review = await worktrees.review(agentId).catch(() => null);
  const files = review?.files ?? [];
  return { all: files.map((f) => f.path), applied: files.filter((f) => f.applied).map((f) => f.path) };
}

/**
 * What applying `target` would merge over: each of its files (not applied
 * yet) that a teammate's applied change holds, or that a teammate applied
 * before it in this batch (`batch`: those applied first, in order) changed.
 */
export async function overlapsBefore(worktrees: WorktreeManager, target: TeammateWork, teammates: readonly TeammateWork[], batch: readonly TeammateWork[] = []): Promise<Overlap[]> {
  const mine = await changed(worktrees, target.agentId);
  const pending = mine.all.filter((p) => !mine.applied.includes(p));
  if (pending.length === 0) return [];
  const holders = new Map<string, Set<string>>();
  for (const other of teammates) {
    if (other.agentId === target.agentId) continue;
    const theirs = await changed(worktrees, other.agentId);
    // A teammate applied earlier in this batch counts with all its files: they are in your tree by then.
    const inTree = batch.some((b) => b.agentId === other.agentId) ? theirs.all : theirs.applied;
    for (const path of inTree) {
      if (!pending.includes(path)) continue;
      const names = holders.get(path) ?? new Set<string>();
      names.add(other.name);
      holders.set(path, names);
    }
  }
  return [...holders].map(([path, names]) => ({ path, with: [...names].sort() })).sort((a, b) => a.path.localeCompare(b.path));
}

/** One line saying what an apply would merge over, or null when nothing. */
export function overlapWarning(target: TeammateWork, overlaps: readonly Overlap[]): string | null {
  if (overlaps.length === 0) return null;
  const files = overlaps.map((o) => `${o.path} (also changed by ${o.with.join(', ')})`);
  return `${target.name}'s changes touch ${overlaps.length === 1 ? 'a file' : `${overlaps.length} files`} another teammate's applied changes hold: ${files.join('; ')}. Applying merges them; where both changed the same lines you get conflict markers to resolve.`;
}
