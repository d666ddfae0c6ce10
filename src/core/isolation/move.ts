import { rmdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { git, gitLine } from './git';

/**
 * Moving a clean worktree (a pooled one: its files and index exactly at
 * `from`) to another commit `to`, at a cost that follows the size of the
 * change rather than of the repository.
 *
 * `git read-tree -m -u from to` does that for the files it writes, but still
 * walks every entry of both trees and rewrites the cache of every folder: on
 * 20,000 files about 60 ms of CPU even for a change of one file, which eight
 * spawns of one fan-out pay at the same moment. A change of a few plain files
 * (the usual case: the previous agent's file, the user's latest edits) is
 * cheaper as what read-tree would do to those paths alone: delete the files
 * that go, set their index entries, and check out the new contents (which
 * records their stat data, so they count as clean). Anything unusual — a
 * submodule, a symbolic link, a `.gitattributes` change (files that did not change may need
 * another conversion), a big change — goes through read-tree, and whatever
 * fails there is checked out afresh.
 */

/** Beyond this many changed paths, read-tree's one walk costs less than naming each path. */
export const SMALL_CHANGE_PATHS = 200;

interface TreeChange {
  /** Mode in `to` (000000 when the path goes). */
  mode: string;
  /** Blob in `to`. */
  blob: string;
  status: string;
  path: string;
  /**
   * A submodule or a symbolic link on either side. Path by path, a link that
   * becomes a folder (or one a deleted path lies under) would be followed by
   * rm, deleting through it, even outside the worktree; read-tree never
   * follows one.
   */
  special: boolean;
}

/** `git diff-tree -r -z --raw` of two commits: what differs, path by path (no rename detection). */
async function treeChanges(cwd: string, from: string, to: string): Promise<TreeChange[]> {
  const out = (await git(['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-abbrev', from, to], { cwd })).stdout;
  const fields = out.split('\0');
  const changes: TreeChange[] = [];
  // Each change is ":<old mode> <new mode> <old blob> <new blob> <status>" then its path.
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode = '', mode = '', , blob = '', status = ''] = fields[i]!.replace(/^:/, '').split(' ');
    if (!status) break;
    changes.push({ mode, blob, status, path: fields[i + 1]!, special: [oldMode, mode].some((m) => m === '160000' || m === '120000') });
  }
  return changes;
}

/**
 * Moves the worktree from `from` to `to`; returns how many paths changed, or
 * `all` when everything was checked out again.
 */
export async function moveCheckout(worktreePath: string, from: string, to: string, config: readonly string[] = []): Promise<number | 'all'> {
  if (from === to) return 0;
  const changes = await treeChanges(worktreePath, from, to);
  // The same tree (the user changed nothing since the pooled worktree's last
  // base): its index and files are that tree already.
  if (changes.length === 0) return 0;
  const attributesChanged = changes.some((c) => c.path === '.gitattributes' || c.path.endsWith('/.gitattributes'));
  if (!attributesChanged) {
    if (changes.length <= SMALL_CHANGE_PATHS && !changes.some((c) => c.special)) {
      if (await movePaths(worktreePath, changes, config).then(() => true, () => false)) return changes.length;
    } else {
      const moved = await git([...config, 'read-tree', '-m', '-u', '--no-recurse-submodules', from, to], { cwd: worktreePath, okCodes: [0, 128] });
      if (moved.code === 0) return changes.length;
    }
  }
  // A file that does not match its index (or new attributes): check everything out afresh from `to`.
  await rm(path.join(await gitLine(['rev-parse', '--absolute-git-dir'], { cwd: worktreePath }), 'index'), { force: true });
  await git([...config, 'reset', '--hard', '--quiet', '--no-recurse-submodules', to], { cwd: worktreePath });
  await git(['clean', '-ffdxq'], { cwd: worktreePath });
  return 'all';
}

/**
 * What read-tree -m -u does to `changes`, path by path: the files that go or
 * change are deleted (and the folders that leaves empty, as git does), the
 * index entries set to `to` in one update-index, and the new contents checked
 * out with their stat data recorded. Files are deleted first so a file
 * replaced by a folder of the same name (or the reverse) has room.
 */
async function movePaths(worktreePath: string, changes: readonly TreeChange[], config: readonly string[]): Promise<void> {
  const root = path.resolve(worktreePath);
  const emptied = new Set<string>();
  // Deepest first: a folder that becomes a file (a symlink) empties before its own turn.
  for (const c of [...changes].sort((a, b) => depth(b.path) - depth(a.path))) {
    await rm(path.join(root, c.path), { force: true }).catch((e: NodeJS.ErrnoException) => {
      // Under what is a file now (it becomes a folder): nothing to delete there.
      if (e.code === 'ENOTDIR') return;
      if (e.code !== 'EISDIR' && e.code !== 'ERR_FS_EISDIR') throw e;
      emptied.add(c.path);
    });
    for (let dir = path.dirname(c.path); dir !== '.'; dir = path.dirname(dir)) emptied.add(dir);
  }
  // Deepest first, so a parent is tried once its children are gone; a folder still holding files stays.
  for (const dir of [...emptied].sort((a, b) => depth(b) - depth(a))) await rmdir(path.join(root, dir)).catch(() => undefined);
  const entries = changes.map((c) => (c.status === 'D' ? `0 ${'0'.repeat(c.blob.length)}\t${c.path}` : `${c.mode} ${c.blob}\t${c.path}`));
  await git(['update-index', '-z', '--index-info'], { cwd: worktreePath, input: `${entries.join('\0')}\0` });
  const written = changes.filter((c) => c.status !== 'D').map((c) => c.path);
  if (written.length) await git([...config, 'checkout-index', '-f', '-u', '-z', '--stdin'], { cwd: worktreePath, input: `${written.join('\0')}\0` });
}

const depth = (p: string) => p.split('/').length;
