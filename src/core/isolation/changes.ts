import { existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { git, gitLine } from './git';
import { commitTree, snapshotTree } from './snapshot';

/**
 * What an agent did in its worktree, measured against the commit it started
 * from, and turning that into a commit on its branch.
 */

export type WorkResult =
  | { changed: false; head: string }
  | { changed: true; head: string; committed: boolean; warnings: string[] };

/**
 * Stages everything in the worktree (untracked files included) and commits it
 * on the worktree's branch when it differs from the branch tip. Reports
 * `changed: false` only when the tree equals `base`, no commit was added
 * beyond `base`, and no initialised submodule holds uncommitted work, so a
 * worktree judged unchanged can be deleted without losing anything.
 *
 * `only` (absolute paths): the files the agent's tools wrote, when nothing
 * else can have changed the worktree. Staging just those costs a few file
 * reads instead of a walk of the whole tree. Whenever that is not plainly
 * enough — git refuses a path (ignored, gone, inside a nested repository or
 * behind a symlink), a path lies outside the worktree, or the result looks
 * unchanged (which would hand the folder back to be cleaned) — everything is
 * staged as without it.
 *
 * Plumbing (`commit-tree` + `update-ref`) instead of `git commit`: no user
 * hook runs, no editor opens, and signing is off (see commitConfig).
 */
export async function commitWork(
  worktreePath: string,
  base: string,
  message: string,
  config: readonly string[],
  only?: readonly string[],
): Promise<WorkResult> {
  const [gitDir = '', head = '', headTree = ''] = (
    await gitLine(['rev-parse', '--absolute-git-dir', 'HEAD^{commit}', 'HEAD^{tree}'], { cwd: worktreePath })
  ).split('\n');
  let warnings: string[] = [];
  let tree = (await stageOnly(worktreePath, only)) ? await gitLine(['write-tree'], { cwd: worktreePath }) : undefined;
  if (tree === undefined || tree === headTree) {
    const add = await git(['add', '-A', '--ignore-errors'], { cwd: worktreePath, okCodes: [0, 1] });
    warnings = add.code === 0 ? [] : add.stderr.split('\n').filter((l) => l.startsWith('error:'));
    tree = await gitLine(['write-tree'], { cwd: worktreePath });
  }
  const submoduleWork = await hasSubmoduleWork(worktreePath, gitDir);

  if (tree === headTree) {
    if (head === base && !submoduleWork && warnings.length === 0) return { changed: false, head };
    return { changed: true, head, committed: false, warnings };
  }
  const commit = await commitTree(worktreePath, tree, head, message, config);
  // Old value given: if HEAD moved meanwhile (the agent is somehow still
  // committing), fail instead of orphaning its commit.
  await git(['update-ref', '-m', `subagents: ${message}`, 'HEAD', commit, head], { cwd: worktreePath, retryOnLock: true });
  return { changed: true, head: commit, committed: true, warnings };
}

/** Stages the named files (additions, changes, deletions) and nothing else; false when git did not take every one of them cleanly. */
async function stageOnly(worktreePath: string, only: readonly string[] | undefined): Promise<boolean> {
  if (!only?.length) return false;
  const root = path.resolve(worktreePath);
  const relative = only.map((p) => path.relative(root, path.resolve(root, p)));
  if (relative.some((p) => p === '' || p.startsWith('..') || path.isAbsolute(p))) return false;
  // The file tools follow a symbolic link and write its target: staging the link would miss the change.
  if (relative.some((p) => isSymlink(path.join(root, p)))) return false;
  const paths = relative.map((p) => p.split(path.sep).join('/'));
  // Literal: a file named `*.ts` is that file, not a pattern.
  const add = await git(['--literal-pathspecs', 'add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], {
    cwd: worktreePath,
    input: `${paths.join('\0')}\0`,
    okCodes: [0, 1, 128],
  });
  return add.code === 0;
}

function isSymlink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false; // gone (deleted by the agent): staged as a deletion
  }
}

/**
 * Uncommitted work inside initialised submodules is invisible to `add -A` in
 * the superproject. Worktrees start with submodules uninitialised, so this
 * costs one existence check unless the agent initialised one.
 */
async function hasSubmoduleWork(worktreePath: string, gitDir: string): Promise<boolean> {
  if (!gitDir || !existsSync(path.join(gitDir, 'modules'))) return false;
  const status = await gitLine(['status', '--porcelain', '--ignore-submodules=none'], { cwd: worktreePath });
  return status !== '';
}

/**
 * The tree of a worktree as it is now, uncommitted and untracked files
 * included, without staging anything in it (for diffs of a running agent).
 */
export async function currentTree(worktreePath: string): Promise<string> {
  const indexFile = await gitLine(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd: worktreePath });
  return (await snapshotTree(worktreePath, indexFile)).tree;
}
