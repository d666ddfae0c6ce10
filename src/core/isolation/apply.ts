import { lstat, mkdtemp, rm, rmdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { git, gitLine } from './git';
import { IsolationError } from './errors';
import { commitTree, snapshotTree } from './snapshot';

/**
 * Brings an agent's changes (base..theirs) into the user's working tree with
 * a three-way merge against what the user has now, uncommitted edits
 * included.
 *
 * Strategy: snapshot the working tree as a commit whose parent is the agent's
 * base (so git finds exactly that base as the merge base), let
 * `git merge-tree --write-tree` (merge-ort, git ≥ 2.38) merge it with the
 * branch in memory, then write only the paths that differ between the
 * snapshot and the merge result, and only paths the agent changed.
 *
 * What the user gets:
 * - Clean changes land as ordinary unstaged edits; new files are untracked.
 *   The index, HEAD, branches and stash are untouched: no commit on the
 *   user's branch, no half-merged index to clean up (VS Code shows the
 *   result as normal changes to review and stage).
 * - A text file both sides changed gets conflict markers (VS Code's merge
 *   decorations pick them up); the markers name where each side lives.
 * - Any other conflict (binary, modify/delete, renames, file/folder, modes)
 *   leaves the user's file exactly as it is; the agent's version stays on
 *   its branch. So does a path whose folder is, in the user's tree, a
 *   symbolic link or a file (an ignored `out` linked to a folder elsewhere):
 *   writing there would replace the link with a folder, or write through it
 *   outside the repository.
 * - Before writing, the whole working tree is saved under a ref
 *   (`refs/subagents/before-apply/…`), so every file can be restored with
 *   `git restore --source=<ref> -- <file>` until the worktree is discarded
 *   (discard deletes its backup refs with its branch).
 * - A file the user changes while the apply runs is skipped and reported.
 */

export interface ApplyConflict {
  path: string;
  /** `markers`: conflict markers written into the file; `kept-yours`: the file was left as it was. */
  resolution: 'markers' | 'kept-yours';
  reason: string;
}

export interface ApplyOutcome {
  /** Whether anything was written into the working tree. */
  applied: boolean;
  /** Paths with conflicts (details in `conflictDetails`). */
  conflicts: string[];
  conflictDetails: ApplyConflict[];
  /** Paths written or deleted in the working tree. */
  updated: string[];
  /** The ref that holds the working tree as it was before; undefined when nothing was written. */
  backupRef?: string;
  message: string;
}

export interface ApplyInput {
  repoRoot: string;
  indexFile: string;
  base: string;
  /** Branch name (preferred: it labels the conflict markers) or commit of the agent's work. */
  theirs: string;
  backupRef: string;
  commitConfig: readonly string[];
  /**
   * Set when these changes were applied before: then a merge that would
   * still write something is refused with this message (it would merge the
   * changes a second time, nesting conflict markers), and nothing is written.
   */
  alreadyApplied?: (paths: string[]) => string | null;
  /** Only these files of the agent's changes (a per-file apply); the rest stay on the branch for later. */
  paths?: readonly string[];
}

export async function applyChanges(input: ApplyInput): Promise<ApplyOutcome> {
  const { repoRoot: cwd, base, theirs, backupRef } = input;
  const changed = splitZ(await gitLine(['diff-tree', '-r', '-z', '--no-renames', '--name-only', base, theirs], { cwd }));
  const wanted = input.paths ? new Set(input.paths) : null;
  const agentPaths = new Set(wanted ? changed.filter((p) => wanted.has(p)) : changed);
  if (agentPaths.size === 0) {
    const what = wanted ? `${[...wanted].join(', ')}: ${theirs} has no changes there` : `${theirs} has no changes`;
    return { applied: false, conflicts: [], conflictDetails: [], updated: [], message: `${what} to apply.` };
  }

  const before = new Map<string, string>();
  for (const p of agentPaths) before.set(p, await signature(cwd, p));

  const snap = await snapshotTree(cwd, input.indexFile);
  const ours = await commitTree(cwd, snap.tree, base, `subagents: your working tree before applying ${theirs}`, input.commitConfig);
  // Merged by the ref's name so the conflict markers say where the user's side is kept.
  // The name is a fresh one: it is dropped again unless the working tree changes.
  await git(['update-ref', backupRef, ours, ''], { cwd, retryOnLock: true });
  return mergeInto(input, agentPaths, new Set(changed), before, snap.tree);
}

async function mergeInto(
  input: ApplyInput,
  agentPaths: ReadonlySet<string>,
  allAgentPaths: ReadonlySet<string>,
  before: ReadonlyMap<string, string>,
  snapTree: string,
): Promise<ApplyOutcome> {
  const { repoRoot: cwd, theirs, backupRef } = input;
  const merge = await git(
    ['-c', 'merge.directoryRenames=false', 'merge-tree', '--write-tree', '-z', backupRef, theirs],
    { cwd, okCodes: [0, 1] },
  );
  const result = parseMergeTree(merge.stdout);
  const conflicted = classifyConflicts(result);

  const changes = parseRawDiff(await gitLine(['diff-tree', '-r', '-z', '--no-renames', snapTree, result.tree], { cwd }));
  const details: ApplyConflict[] = [];
  const toWrite: string[] = [];
  const toDelete: string[] = [];
  for (const change of changes) {
    // Files of the agent's left out of a per-file apply: not now, and no conflict either.
    if (allAgentPaths.has(change.path) && !agentPaths.has(change.path)) continue;
    const conflict = conflicted.get(change.path);
    if (conflict && conflict.resolution === 'kept-yours') continue;
    if (!agentPaths.has(change.path)) {
      details.push({ path: change.path, resolution: 'kept-yours', reason: 'the merge would move a file the agent did not touch' });
      continue;
    }
    if (change.dstMode === '160000') {
      details.push({ path: change.path, resolution: 'kept-yours', reason: 'a submodule pointer; update the submodule yourself' });
      continue;
    }
    if (change.srcMode === '000000' && before.get(change.path) !== 'absent') {
      details.push({ path: change.path, resolution: 'kept-yours', reason: 'you have an ignored file there; it was left as it is' });
      continue;
    }
    const blocked = await blockedFolder(cwd, change.path);
    if (blocked) {
      details.push({ path: change.path, resolution: 'kept-yours', reason: `you have ${blocked.what} at ${blocked.at} where the agent's file needs a folder; it was left as it is` });
      continue;
    }
    if ((await signature(cwd, change.path)) !== before.get(change.path)) {
      details.push({ path: change.path, resolution: 'kept-yours', reason: 'you changed it while the changes were being applied' });
      continue;
    }
    if (change.dstMode === '000000') toDelete.push(change.path);
    else toWrite.push(change.path);
  }
  // Every conflict is reported, also those where the merge kept the user's side as it was.
  const reported = new Set(details.map((d) => d.path));
  for (const c of conflicted.values()) {
    if (reported.has(c.path) || (allAgentPaths.has(c.path) && !agentPaths.has(c.path))) continue;
    if (c.resolution === 'markers' && !toWrite.includes(c.path)) {
      details.push({ path: c.path, resolution: 'kept-yours', reason: 'you and the agent both changed it' });
    } else details.push(c);
  }

  const updated = [...toWrite, ...toDelete].sort();
  const applied = updated.length > 0;
  const refused = applied && input.alreadyApplied ? input.alreadyApplied(updated) : null;
  // Nothing will be written: the working tree needs no backup.
  if (!applied || refused) await git(['update-ref', '-d', backupRef], { cwd, retryOnLock: true });
  if (refused) throw new IsolationError('invalid-state', refused);
  await writeFromTree(cwd, result.tree, toWrite);
  for (const p of toDelete) await deleteFile(cwd, p);

  details.sort((a, b) => a.path.localeCompare(b.path));
  return {
    applied,
    conflicts: details.map((d) => d.path),
    conflictDetails: details,
    updated,
    backupRef: applied ? backupRef : undefined,
    message: describe(theirs, updated, details, applied ? backupRef : undefined),
  };
}

function describe(theirs: string, updated: string[], details: ApplyConflict[], backup: string | undefined): string {
  if (updated.length === 0 && details.length === 0) return `Your working tree already has every change from ${theirs}.`;
  const parts: string[] = [];
  const n = (k: number, what: string) => `${k} ${what}${k === 1 ? '' : 's'}`;
  parts.push(`Applied ${n(updated.length, 'file')} from ${theirs} to your working tree (not staged).`);
  if (details.length > 0) {
    const list = details
      .map((d) => `${d.path} (${d.resolution === 'markers' ? 'conflict markers written' : `kept your version: ${d.reason}`})`)
      .join('; ');
    parts.push(`${n(details.length, 'conflict')}: ${list}. The agent's version of every file stays on ${theirs}.`);
  }
  if (backup) parts.push(`Your previous working tree is saved as ${backup}; restore a file with \`git restore --source=${backup} -- <file>\`.`);
  return parts.join(' ');
}

/** Which conflicted paths get markers and which keep the user's file. */
function classifyConflicts(result: MergeTreeResult): Map<string, ApplyConflict> {
  const stages = new Map<string, Set<number>>();
  for (const e of result.entries) {
    let s = stages.get(e.path);
    if (!s) stages.set(e.path, (s = new Set()));
    s.add(e.stage);
  }
  const types = new Map<string, { types: Set<string>; text: string }>();
  for (const m of result.messages) {
    if (!m.type.startsWith('CONFLICT')) continue;
    for (const p of m.paths) {
      let t = types.get(p);
      if (!t) types.set(p, (t = { types: new Set(), text: m.text.trim() }));
      t.types.add(m.type);
    }
  }
  const out = new Map<string, ApplyConflict>();
  for (const p of new Set([...stages.keys(), ...types.keys()])) {
    const s = stages.get(p) ?? new Set<number>();
    const t = types.get(p);
    const textual = s.has(2) && s.has(3) && t !== undefined && [...t.types].every((x) => x === 'CONFLICT (contents)');
    out.set(
      p,
      textual
        ? { path: p, resolution: 'markers', reason: 'you and the agent both changed it' }
        : { path: p, resolution: 'kept-yours', reason: conflictReason(s, t?.text) },
    );
  }
  return out;
}

function conflictReason(stages: Set<number>, text: string | undefined): string {
  if (stages.has(1) && stages.has(2) && !stages.has(3)) return 'you changed it and the agent deleted it';
  if (stages.has(1) && stages.has(3) && !stages.has(2)) return 'you deleted it and the agent changed it';
  return (text ?? 'both sides changed it').replace(/^CONFLICT \([^)]*\): /, '').replace(/^warning: /, '');
}

export interface MergeTreeResult {
  tree: string;
  entries: Array<{ mode: string; oid: string; stage: number; path: string }>;
  messages: Array<{ paths: string[]; type: string; text: string }>;
}

/** Parses `git merge-tree --write-tree -z` output (see git-merge-tree(1), OUTPUT). */
export function parseMergeTree(stdout: string): MergeTreeResult {
  const fields = stdout.split('\0');
  const tree = fields[0]?.trim() ?? '';
  const entries: MergeTreeResult['entries'] = [];
  let i = 1;
  for (; i < fields.length && fields[i] !== ''; i++) {
    const m = /^(\d+) ([0-9a-f]+) (\d)\t([\s\S]*)$/.exec(fields[i] ?? '');
    if (m) entries.push({ mode: m[1]!, oid: m[2]!, stage: Number(m[3]), path: m[4]! });
  }
  i++; // the empty field that ends the conflicted-file section
  const messages: MergeTreeResult['messages'] = [];
  while (i < fields.length) {
    const count = Number(fields[i]);
    if (!Number.isInteger(count) || fields[i] === '') break;
    const paths = fields.slice(i + 1, i + 1 + count);
    const type = fields[i + 1 + count] ?? '';
    const text = fields[i + 2 + count] ?? '';
    messages.push({ paths, type, text });
    i += 3 + count;
  }
  return { tree, entries, messages };
}

interface RawChange {
  srcMode: string;
  dstMode: string;
  path: string;
}

/** `git diff-tree -r -z` raw output: `:<src mode> <dst mode> <src> <dst> <status>\0<path>\0`. */
export function parseRawDiff(out: string): RawChange[] {
  const fields = out.split('\0');
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = fields[i] ?? '';
    const p = fields[i + 1] ?? '';
    const m = /^:(\d{6}) (\d{6}) /.exec(meta);
    if (m && p) changes.push({ srcMode: m[1]!, dstMode: m[2]!, path: p });
  }
  return changes;
}

function splitZ(out: string): string[] {
  return out.split('\0').filter((s) => s !== '');
}

/**
 * The first folder on the way to `rel` that is in the working tree but is
 * not a folder (a symbolic link, even to a folder; a file); null when every
 * one is a real folder or not there yet (git creates it).
 */
async function blockedFolder(root: string, rel: string): Promise<{ at: string; what: string } | null> {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const at = parts.slice(0, i).join('/');
    const info = await lstat(path.join(root, at)).catch(() => null);
    if (!info) return null;
    if (info.isSymbolicLink()) return { at, what: 'a symbolic link' };
    if (!info.isDirectory()) return { at, what: 'a file' };
  }
  return null;
}

/** A cheap fingerprint of a path on disk, to notice edits made while applying. */
async function signature(root: string, rel: string): Promise<string> {
  try {
    const st = await lstat(path.join(root, rel));
    return `${st.mode}:${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch {
    return 'absent';
  }
}

/**
 * Writes paths from `tree` into the working tree through a private index, so
 * git applies the user's checkout filters (line endings, LFS) as it would on
 * checkout, while the user's own index stays untouched.
 */
async function writeFromTree(cwd: string, tree: string, paths: string[]): Promise<void> {
  if (paths.length === 0) return;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-apply-'));
  const env = { GIT_INDEX_FILE: path.join(dir, 'index') };
  try {
    await git(['read-tree', tree], { cwd, env });
    await git(['checkout-index', '-f', '-z', '--stdin'], { cwd, env, input: paths.join('\0') });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Deletes a file and the folders it leaves empty, as git does on checkout. */
async function deleteFile(root: string, rel: string): Promise<void> {
  await rm(path.join(root, rel), { force: true });
  let dir = path.dirname(rel);
  while (dir !== '.' && dir !== '') {
    try {
      await rmdir(path.join(root, dir));
    } catch {
      break;
    }
    dir = path.dirname(dir);
  }
}
