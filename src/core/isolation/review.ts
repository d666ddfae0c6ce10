import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { git, gitLine } from './git';
import { commitTree } from './snapshot';

/**
 * What a review needs of an agent's branch, file by file: which files changed
 * and how much, the text of a file on either side, and taking one file's
 * change back off the branch (a per-file discard). No policy here: the
 * manager decides when each is allowed and keeps the record.
 */

export type FileChangeKind = 'added' | 'modified' | 'deleted' | 'type-changed';

export interface ChangedFile {
  /** Repository-relative, `/`-separated. */
  path: string;
  kind: FileChangeKind;
  /** Null for a binary file (git counts no lines). */
  insertions: number | null;
  deletions: number | null;
}

const KINDS: Record<string, FileChangeKind> = { A: 'added', M: 'modified', D: 'deleted', T: 'type-changed' };

/** The files that differ between two commits, with their line counts (renames as a delete plus an add: that is how apply sees them). */
export async function changedFiles(cwd: string, from: string, to: string): Promise<ChangedFile[]> {
  const [status, numstat] = await Promise.all([
    gitLine(['diff', '--no-ext-diff', '--no-renames', '-z', '--name-status', from, to], { cwd }),
    gitLine(['diff', '--no-ext-diff', '--no-renames', '-z', '--numstat', from, to], { cwd }),
  ]);
  const counts = new Map<string, { insertions: number | null; deletions: number | null }>();
  // `<added>\t<deleted>\t<path>\0` per file; `-\t-\t` for binary files.
  for (const field of numstat.split('\0')) {
    const m = /^(\d+|-)\t(\d+|-)\t([\s\S]+)$/.exec(field);
    if (m) counts.set(m[3]!, { insertions: m[1] === '-' ? null : Number(m[1]), deletions: m[2] === '-' ? null : Number(m[2]) });
  }
  const fields = status.split('\0');
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const kind = KINDS[fields[i]!.charAt(0)];
    const p = fields[i + 1]!;
    if (!kind || !p) continue;
    files.push({ path: p, kind, ...(counts.get(p) ?? { insertions: null, deletions: null }) });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** A file's text at a commit, or null when the commit has no such file. */
export async function fileAt(cwd: string, commit: string, file: string): Promise<string | null> {
  const res = await git(['cat-file', '-p', `${commit}:${file}`], { cwd, okCodes: [0, 128] });
  return res.code === 0 ? res.stdout : null;
}

/** Whether `worktreePath` is a live checkout of `branch` (it may be gone, or serve another branch now). */
export async function checkedOutOn(worktreePath: string, branch: string): Promise<boolean> {
  if (!existsSync(worktreePath)) return false;
  const res = await git(['symbolic-ref', '-q', 'HEAD'], { cwd: worktreePath, okCodes: [0, 1, 128] });
  return res.code === 0 && res.stdout.trim() === `refs/heads/${branch}`;
}

/**
 * A commit on top of `tip` in which `paths` are as they are in `base`: the
 * agent's change to those files is taken back, everything else stays. Built
 * in a private index, so neither the user's index nor the worktree's is
 * touched. Returns the new commit, or `tip` when nothing differed.
 */
export async function revertPaths(cwd: string, base: string, tip: string, paths: readonly string[], message: string, config: readonly string[]): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-revert-'));
  const env = { GIT_INDEX_FILE: path.join(dir, 'index') };
  try {
    await git(['read-tree', tip], { cwd, env });
    // Drop the paths, then put back those the base has, with its mode and blob.
    await git(['update-index', '--force-remove', '-z', '--stdin'], { cwd, env, input: `${paths.join('\0')}\0` });
    const listed = await gitLine(['ls-tree', '-z', '--full-tree', base, '--', ...paths], { cwd });
    const entries = listed.split('\0').filter(Boolean);
    if (entries.length) await git(['update-index', '-z', '--index-info'], { cwd, env, input: `${entries.join('\0')}\0` });
    const tree = await gitLine(['write-tree'], { cwd, env });
    if (tree === (await gitLine(['rev-parse', `${tip}^{tree}`], { cwd }))) return tip;
    return commitTree(cwd, tree, tip, message, config);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * After the branch moved from `from` to `to` under a worktree that has it
 * checked out: brings `paths` of the worktree's index and files to `to`,
 * leaving every other file (and any edit the user made in the review) alone.
 */
export async function syncWorktreePaths(worktreePath: string, to: string, paths: readonly string[]): Promise<void> {
  // The index entries first (as `to` has them, or gone), then the files from the index.
  await git(['reset', '-q', to, '--', ...paths], { cwd: worktreePath });
  const present = (await gitLine(['ls-tree', '-z', '--name-only', '--full-tree', to, '--', ...paths], { cwd: worktreePath })).split('\0').filter(Boolean);
  if (present.length) await git(['checkout-index', '-f', '-z', '--stdin'], { cwd: worktreePath, input: `${present.join('\0')}\0` });
  const gone = paths.filter((p) => !present.includes(p));
  for (const p of gone) await rm(path.join(worktreePath, p), { force: true });
}
