import { createHash } from 'node:crypto';
import { readFile, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../atomicFile';
import { ownerAlive, type ProcessOwner } from '../processOwner';
import { git } from './git';

/**
 * The pool of reusable worktrees: finished worktrees (discarded, applied,
 * or unchanged) that were cleaned and handed back instead of deleted, so the
 * next isolated agent in that repository starts with a checkout that only
 * needs the files that differ. One JSON file per pooled worktree in the
 * state folder's `pool/`; every change to the pool happens under the
 * repository's cross-process lock (repoLock.ts), so two processes never take
 * the same worktree. A pooled worktree is a registered git worktree with a
 * detached HEAD, no untracked or ignored files, and nobody's branch.
 */

/** Pooled worktrees unused this long are deleted. */
export const POOL_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

export const pooledWorktreeSchema = z.object({
  kind: z.literal('subagents-pooled-worktree'),
  version: z.literal(1),
  path: z.string(),
  commonDir: z.string(),
  /** A working tree of the repository to run git in (the user's, when the entry was written). */
  repoRoot: z.string(),
  /** The commit its files and index are at. */
  head: z.string(),
  /** What its checkout depended on (see repoShape); a pooled worktree of another shape is deleted, not reused. */
  shape: z.string(),
  /** When the folder was first checked out. */
  createdAt: z.number(),
  /** When it was last handed back (age pruning, most recent first when taking). */
  pooledAt: z.number(),
  /** About how much disk it takes (see checkoutDiskBytes). */
  diskBytes: z.number().nonnegative().optional(),
  /**
   * False while its files are not yet exactly `head`: handed back by a
   * discard and not cleaned yet, or made by a refill and not checked out
   * yet. Such a worktree is made ready before anyone works in it. Absent:
   * ready.
   */
  ready: z.boolean().optional(),
  /** The process cleaning, checking out or moving it right now; everyone else leaves it alone while that process lives. */
  worker: z.object({ pid: z.number(), host: z.string(), instance: z.string(), started: z.string().optional() }).optional(),
});
export type PooledWorktree = z.infer<typeof pooledWorktreeSchema>;

export class PoolStore {
  constructor(readonly dir: string) {}

  private fileFor(worktreePath: string): string {
    return path.join(this.dir, `${createHash('sha256').update(worktreePath).digest('hex').slice(0, 20)}.json`);
  }

  /** The pool's entries (of one repository when `commonDir` is given), most recently pooled first. */
  async list(commonDir?: string): Promise<PooledWorktree[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const entries: PooledWorktree[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const file = path.join(this.dir, name);
      let parsed;
      try {
        parsed = pooledWorktreeSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
      } catch {
        parsed = undefined;
      }
      // An unreadable entry only costs a reuse: the worktree it named is found again by recover().
      if (!parsed?.success) {
        await rm(file, { force: true });
        continue;
      }
      if (!commonDir || parsed.data.commonDir === commonDir) entries.push(parsed.data);
    }
    return entries.sort((a, b) => b.pooledAt - a.pooledAt);
  }

  /** The entry of one pooled worktree, if the pool holds it. */
  async get(worktreePath: string): Promise<PooledWorktree | undefined> {
    const text = await readFile(this.fileFor(worktreePath), 'utf8').catch(() => null);
    if (text === null) return undefined;
    try {
      const parsed = pooledWorktreeSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  async add(entry: PooledWorktree): Promise<void> {
    await writeFileAtomic(this.fileFor(entry.path), `${JSON.stringify(entry, null, 2)}\n`);
  }

  async remove(worktreePath: string): Promise<void> {
    await rm(this.fileFor(worktreePath), { force: true });
  }
}

/** The settings that change what a checkout writes: line endings, filters (LFS), symlinks, file modes, sparse checkout. */
const CHECKOUT_CONFIG = '^(core\\.(autocrlf|eol|safecrlf|symlinks|ignorecase|precomposeunicode|filemode|sparsecheckout|sparsecheckoutcone)|filter\\..*|lfs\\..*)$';

const shapeCache = new Map<string, { stamp: string; shape: string }>();

/**
 * What a checkout depends on besides the commit: the checkout settings of
 * git's configuration and `info/attributes`. A worktree checked out under
 * other settings would keep files converted the old way, so it is not
 * reused. Asked of git once, then again only when a configuration file
 * changes (one stat each): it is needed on every spawn.
 */
export async function repoShape(commonDir: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const home = env.HOME || os.homedir();
  const xdg = env.XDG_CONFIG_HOME || path.join(home, '.config');
  const files = [path.join(commonDir, 'config'), path.join(commonDir, 'info', 'attributes'), path.join(home, '.gitconfig'), path.join(xdg, 'git', 'config'), path.join(xdg, 'git', 'attributes')];
  const stamp = (await Promise.all(files.map((f) => stat(f).then((s) => `${s.mtimeMs}:${s.size}:${s.ino}`, () => '-')))).join('|');
  const cached = shapeCache.get(commonDir);
  if (cached?.stamp === stamp) return cached.shape;
  const config = await git(['config', '-z', '--get-regexp', CHECKOUT_CONFIG], { cwd, okCodes: [0, 1] });
  const attributes = await readFile(path.join(commonDir, 'info', 'attributes'), 'utf8').catch(() => '');
  const shape = createHash('sha256').update(`${config.stdout}\0${attributes}`).digest('hex').slice(0, 16);
  shapeCache.set(commonDir, { stamp, shape });
  return shape;
}

export function expired(entry: PooledWorktree, now = Date.now()): boolean {
  return now - entry.pooledAt > POOL_MAX_AGE_MS;
}

/** Someone alive is working on the pooled worktree now (cleaning it, checking it out, moving it). */
export function busy(entry: PooledWorktree): entry is PooledWorktree & { worker: ProcessOwner } {
  return entry.worker !== undefined && ownerAlive(entry.worker);
}

/** Its files are exactly its commit: an agent can start in it after a move. */
export function isReady(entry: PooledWorktree): boolean {
  return entry.ready !== false && !busy(entry);
}
