import { copyFile, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { git, gitLine } from './git';

/**
 * Captures a working tree exactly as the user sees it — HEAD plus tracked
 * modifications, staged changes, deletions and untracked files that are not
 * ignored — as a git tree, without touching the user's index, working tree,
 * stash or refs.
 *
 * How: `git add -A` into a private copy of the index (GIT_INDEX_FILE), then
 * `git write-tree`. Copying the real index keeps git's stat cache, so `add -A`
 * only re-reads files whose stat data changed; the cost is about one
 * `git status`. The only trace left in the repository is loose objects for
 * changed files, which `git gc` removes once nothing refers to them.
 */

export interface WorkingTreeSnapshot {
  tree: string;
  /** Problems git reported but worked around (an unreadable file is left out). */
  warnings: string[];
}

export async function snapshotTree(toplevel: string, indexFile: string): Promise<WorkingTreeSnapshot> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-index-'));
  const tempIndex = path.join(dir, 'index');
  try {
    try {
      return await addAllAndWriteTree(toplevel, tempIndex, await copyIndex(indexFile, tempIndex));
    } catch (first) {
      // An index git cannot use as a copy (split index, unknown extension):
      // start again from HEAD. Slower (every file is hashed) but always valid.
      await rm(tempIndex, { force: true });
      try {
        return await addAllAndWriteTree(toplevel, tempIndex, false);
      } catch {
        throw first;
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Copies the index with its mtime: git's "racily clean" check compares file times against it. */
async function copyIndex(indexFile: string, tempIndex: string): Promise<boolean> {
  try {
    const st = await stat(indexFile);
    await copyFile(indexFile, tempIndex);
    await utimes(tempIndex, st.atime, st.mtime);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

async function addAllAndWriteTree(toplevel: string, tempIndex: string, haveIndex: boolean): Promise<WorkingTreeSnapshot> {
  const env = { GIT_INDEX_FILE: tempIndex };
  if (!haveIndex) await git(['read-tree', 'HEAD'], { cwd: toplevel, env });
  // --ignore-errors: one unreadable file must not stop the agent from seeing
  // the rest; git still exits 1 and names the file, which we pass on.
  const add = await git(['add', '-A', '--ignore-errors'], { cwd: toplevel, env, okCodes: [0, 1] });
  const warnings = add.code === 0 ? [] : add.stderr.split('\n').filter((l) => l.startsWith('error:'));
  const tree = await gitLine(['write-tree'], { cwd: toplevel, env });
  return { tree, warnings };
}

/** Records `tree` as a commit on top of `parent` (no ref is created or moved). */
export async function commitTree(
  cwd: string,
  tree: string,
  parent: string,
  message: string,
  config: readonly string[],
): Promise<string> {
  return gitLine([...config, 'commit-tree', tree, '-p', parent, '-m', message], { cwd });
}
