import { existsSync, realpathSync } from 'node:fs';
import { readdir, readFile, realpath, rm, rmdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { WorktreeInfo } from '../../protocol/runEvents';
import { describeError, git } from './git';
import { BRANCH_PREFIX, isInside } from './names';
import { currentOwner } from '../processOwner';
import type { PoolKeeper } from './poolKeeper';
import { checkedOutBranch } from './recycle';
import { LOCK_FOLDER } from './repoLock';
import type { StateStore, WorktreeRecord } from './stateStore';
import { branchTip, deleteBranch, listWorktrees, pruneWorktrees, removeWorktree } from './worktrees';

/**
 * Start-up clean-up. Sources of leftovers:
 * - records in the state folder still `creating`/`active` whose process died;
 * - worktrees git lists under worktreesRoot that no record knows (the record
 *   was lost), found through the repositories of the records and the `.git`
 *   files of the folders under worktreesRoot.
 * Rule: a `creating` worktree never held agent work and is removed; any other
 * is examined, removed only when it has no change at all against its base,
 * and otherwise committed on its branch and reported as kept.
 */

export interface RecoverReport {
  removed: WorktreeRecord[];
  kept: Array<WorktreeRecord & { info: WorktreeInfo }>;
}

export interface RecoverContext {
  store: StateStore;
  pool: PoolKeeper;
  worktreesRoot: string;
  instance: string;
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  isOwnerAlive: (rec: WorktreeRecord) => boolean;
  lock: <T>(commonDir: string, fn: () => Promise<T>) => Promise<T>;
  /** The manager's finish: commit (→ info) or remove (→ null); updates and saves `rec`. */
  settle: (rec: WorktreeRecord, message: string) => Promise<WorktreeInfo | null>;
  /** Makes the manager track `rec`; returns the object settle() updates (use it from then on). */
  remember: (rec: WorktreeRecord) => WorktreeRecord;
}

const RECOVERED_MESSAGE = (name: string) => `subagents: ${name} changes (recovered after an interrupted run)`;

export async function recoverLeftovers(ctx: RecoverContext): Promise<RecoverReport> {
  const report: RecoverReport = { removed: [], kept: [] };
  const { records, corrupt } = await ctx.store.loadAll();
  for (const file of corrupt) ctx.log('warn', `A worktree record could not be read and was moved aside: ${file}`);

  await ctx.pool.pruneGone();
  const pooled = await ctx.pool.paths();
  const repos = new Map<string, string>();
  const known = new Set<string>([...pooled].map(canonical));
  for (const rec of records) {
    if (rec.state !== 'discarded') known.add(canonical(rec.path));
    if (existsSync(rec.commonDir)) repos.set(rec.commonDir, existsSync(rec.repoRoot) ? rec.repoRoot : rec.commonDir);
  }
  // Where git's own list of worktrees is read: repositories with a leftover settled now (a process died
  // mid-way), and those with a folder under the root that nothing here knows. Nothing else can hold an
  // orphan (a record is written before git registers its worktree), so a start-up after clean exits runs
  // no git at all.
  const scan = new Map<string, string>();
  for (const loaded of records) {
    const rec = ctx.remember(loaded);
    if ((rec.state === 'creating' || rec.state === 'active') && !ctx.isOwnerAlive(rec) && repos.has(rec.commonDir)) scan.set(rec.commonDir, repos.get(rec.commonDir)!);
    try {
      await recoverRecord(ctx, rec, report, pooled);
    } catch (e) {
      ctx.log('error', `Could not examine the worktree of ${rec.agentName} at ${rec.path}; it was left as it is: ${describeError(e)}`);
    }
  }
  if (corrupt.length) for (const [commonDir, cwd] of repos) scan.set(commonDir, cwd);
  for (const [commonDir, cwd] of await reposUnderRoot(ctx, repos, known)) scan.set(commonDir, cwd);
  for (const [commonDir, cwd] of scan) {
    try {
      await ctx.lock(commonDir, () => pruneWorktrees(cwd));
      await recoverOrphans(ctx, commonDir, cwd, known, report);
    } catch (e) {
      ctx.log('error', `Could not look for leftover worktrees of ${commonDir}: ${describeError(e)}`);
    }
  }
  await removeEmptyRepoFolders(ctx.worktreesRoot);
  await sweepTempFiles(ctx.store.dir, [...repos.keys()].map((commonDir) => path.join(commonDir, LOCK_FOLDER)));
  // What waits in the trash (a process exited or crashed before deleting it) is the upkeep's: never deleted on the way to a start.
  return report;
}

const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Private index copies (snapshot.ts, apply.ts) and half-written records of
 * killed processes. Only ours (by prefix), only when an hour old, so a
 * running process's files are never touched.
 */
async function sweepTempFiles(stateDir: string, lockDirs: string[]): Promise<void> {
  const now = Date.now();
  const candidates = [
    ...(await Promise.all(lockDirs.map(async (dir) => (await readdir(dir).catch(() => [])).filter((n) => n.endsWith('.tmp')).map((n) => path.join(dir, n))))).flat(),
    ...(await readdir(os.tmpdir()).catch(() => []))
      .filter((n) => n.startsWith('subagents-index-') || n.startsWith('subagents-apply-'))
      .map((n) => path.join(os.tmpdir(), n)),
    ...(await readdir(stateDir).catch(() => [])).filter((n) => n.endsWith('.tmp')).map((n) => path.join(stateDir, n)),
  ];
  for (const file of candidates) {
    const st = await stat(file).catch(() => undefined);
    if (st && now - st.mtimeMs > STALE_TEMP_MS) await rm(file, { recursive: true, force: true }).catch(() => {});
  }
}

async function recoverRecord(ctx: RecoverContext, rec: WorktreeRecord, report: RecoverReport, pooled: Set<string>): Promise<void> {
  if (rec.state === 'discarded') {
    await ctx.store.remove(rec.agentId);
    return;
  }
  if (rec.state === 'applied') return;
  if (rec.state === 'finished' && rec.info) {
    if (!existsSync(rec.path) && !(await branchTipSafe(rec))) {
      ctx.log('info', `Forgetting ${rec.agentName}'s worktree: its folder and branch ${rec.branch} were deleted outside Subagents.`);
      await ctx.store.remove(rec.agentId);
      return;
    }
    report.kept.push({ ...rec, info: rec.info });
    return;
  }
  if (ctx.isOwnerAlive(rec)) {
    ctx.log('debug', `Leaving ${rec.path} alone: process ${rec.owner.pid} still runs ${rec.agentName}.`);
    return;
  }
  if (!existsSync(rec.repoRoot) && !existsSync(rec.commonDir)) {
    ctx.log('warn', `The repository of ${rec.agentName}'s worktree (${rec.repoRoot}) is gone; ${rec.path} was left as it is.`);
    return;
  }
  if (rec.state === 'creating') {
    // Interrupted before the agent got the worktree: nothing of anyone's is in it. Its folder is
    // removed only while it is still this record's (a reused one may have gone to another agent since).
    await ctx.lock(rec.commonDir, async () => {
      if (await creatingFolderIsOurs(rec, pooled)) await removeWorktree(rec.repoRoot, rec.path, ctx.worktreesRoot);
      else await pruneWorktrees(rec.repoRoot);
      const tip = await branchTipSafe(rec);
      if (tip && tip === rec.baseCommit) await deleteBranch(rec.repoRoot, rec.branch, tip);
    });
    await ctx.store.remove(rec.agentId);
    report.removed.push({ ...rec, state: 'discarded' });
    ctx.log('info', `Removed the half-created worktree ${rec.path}.`);
    return;
  }
  await settleLeftover(ctx, rec, report);
}

/** A half-made worktree's folder: on the record's branch, or detached and not in the pool (a reuse interrupted before the branch was checked out). */
async function creatingFolderIsOurs(rec: WorktreeRecord, pooled: Set<string>): Promise<boolean> {
  if (!existsSync(rec.path) || pooled.has(rec.path)) return false;
  const branch = await checkedOutBranch(rec.path);
  return branch === undefined || branch === rec.branch;
}

/** An `active` worktree of a dead process (or one whose earlier removal failed). */
async function settleLeftover(ctx: RecoverContext, rec: WorktreeRecord, report: RecoverReport): Promise<void> {
  const info = await ctx.settle(rec, RECOVERED_MESSAGE(rec.agentName));
  if (info) {
    report.kept.push({ ...rec, info });
    ctx.log('info', `Kept ${rec.agentName}'s interrupted work: ${info.filesChanged} files changed, committed on ${rec.branch}.`);
  } else if (rec.state === 'discarded') {
    await ctx.store.remove(rec.agentId);
    report.removed.push({ ...rec });
    ctx.log('info', `Removed ${rec.agentName}'s unchanged worktree ${rec.path}.`);
  }
  // Otherwise it is unchanged but could not be removed (settle logged why); the next start-up retries.
}

/** Worktrees under worktreesRoot that git knows and no record does. */
async function recoverOrphans(
  ctx: RecoverContext,
  commonDir: string,
  cwd: string,
  known: Set<string>,
  report: RecoverReport,
): Promise<void> {
  const root = canonical(ctx.worktreesRoot);
  for (const wt of await ctx.lock(commonDir, () => listWorktrees(cwd))) {
    const wtPath = canonical(wt.path);
    if (!isInside(wtPath, root) || known.has(wtPath) || wt.prunable) continue;
    if (!wt.branch && wt.head && (await disposable(wtPath, cwd, wt.head))) {
      // Detached, clean, its commit on a branch: a pooled worktree whose entry was lost, or a reuse cut short.
      await ctx.lock(commonDir, () => removeWorktree(cwd, wtPath, ctx.worktreesRoot));
      ctx.log('info', `Removed ${wt.path}: a worktree of the pool nobody held any more.`);
      continue;
    }
    if (!wt.branch?.startsWith(BRANCH_PREFIX) || !wt.head) {
      ctx.log('warn', `${wt.path} is in the worktrees folder but not on a subagents/ branch; it was left as it is.`);
      continue;
    }
    const base = await creationCommit(cwd, wt.branch);
    const name = wt.branch.slice(BRANCH_PREFIX.length);
    const rec: WorktreeRecord = {
      kind: 'subagents-worktree',
      version: 1,
      agentId: `recovered-${name.replace(/[^a-z0-9-]/gi, '-')}`,
      agentName: name.replace(/-[0-9a-f]{8}(-\d+)?$/, '') || name,
      repoRoot: cwd,
      commonDir,
      path: wtPath,
      cwd: wtPath,
      branch: wt.branch,
      // Without a reflog, where the branch left the user's history: commits
      // beyond that count as work to keep.
      baseCommit: base ?? ((await git(['merge-base', 'HEAD', wt.head], { cwd, okCodes: [0, 1] })).stdout.trim() || wt.head),
      userHead: base ?? '',
      headCommit: wt.head,
      createdAt: Date.now(),
      updatedAt: Date.now(),
      state: 'active',
      owner: { ...currentOwner(ctx.instance), pid: 0 },
    };
    const tracked = ctx.remember(rec);
    await ctx.store.save(tracked);
    await settleLeftover(ctx, tracked, report);
  }
}

/** A detached worktree with nothing in it worth keeping: no change at all, and its commit on a ref. */
async function disposable(wtPath: string, repoCwd: string, head: string): Promise<boolean> {
  const status = await git(['status', '--porcelain', '--untracked-files=all'], { cwd: wtPath, okCodes: [0, 128] });
  if (status.code !== 0 || status.stdout.trim() !== '') return false;
  const holders = await git(['for-each-ref', '--count=1', '--contains', head, '--format=%(refname)', 'refs/heads', 'refs/tags', 'refs/remotes', 'refs/subagents'], { cwd: repoCwd, okCodes: [0, 129] });
  return holders.code === 0 && holders.stdout.trim() !== '';
}

/** The commit a subagents branch was created at: the first entry of its reflog. */
async function creationCommit(cwd: string, branch: string): Promise<string | undefined> {
  const res = await git(['reflog', 'show', '--format=%H', `refs/heads/${branch}`, '--'], { cwd, okCodes: [0, 128] });
  const lines = res.stdout.trim().split('\n').filter(Boolean);
  return res.code === 0 ? lines.at(-1) : undefined;
}

/**
 * Repositories of the folders under worktreesRoot that no record and no
 * pool entry knows (`known`), found through each one's `.git` file
 * (gitdir → commondir); `repos` says where to run git for those it has.
 */
async function reposUnderRoot(ctx: RecoverContext, repos: Map<string, string>, known: Set<string>): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const repoDir of (await subfolders(ctx.worktreesRoot)).filter((d) => !path.basename(d).startsWith('.'))) {
    for (const wt of await subfolders(repoDir)) {
      if (known.has(canonical(wt))) continue;
      const gitFile = await readFile(path.join(wt, '.git'), 'utf8').catch(() => undefined);
      const gitDir = /^gitdir: (.+)$/m.exec(gitFile ?? '')?.[1]?.trim();
      const adminDir = gitDir && path.resolve(wt, gitDir);
      const common = adminDir && (await readFile(path.join(adminDir, 'commondir'), 'utf8').catch(() => undefined));
      if (!adminDir || !common) {
        ctx.log('warn', `${wt} is not a registered git worktree; it was left as it is. Delete it yourself if it holds nothing you need.`);
        continue;
      }
      const commonDir = await realpath(path.resolve(adminDir, common.trim())).catch(() => undefined);
      if (commonDir) found.set(commonDir, repos.get(commonDir) ?? commonDir);
    }
  }
  return found;
}

async function subfolders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory()).map((e) => path.join(dir, e.name));
}

async function removeEmptyRepoFolders(root: string): Promise<void> {
  for (const dir of await subfolders(root)) await rmdir(dir).catch(() => {});
}

async function branchTipSafe(rec: WorktreeRecord): Promise<string | undefined> {
  const cwd = existsSync(rec.repoRoot) ? rec.repoRoot : rec.commonDir;
  return existsSync(cwd) ? branchTip(cwd, rec.branch) : undefined;
}

/** Real path when it exists (git lists worktrees by real path), the resolved path otherwise. */
function canonical(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
