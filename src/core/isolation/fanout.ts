import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { writeCacheFileSync } from '../atomicFile';
import { POOL_MAX_AGE_MS } from './pool';

/**
 * How wide the user's fan-outs in a repository are: the most worktrees one
 * run tree made there. It sizes the pool (a fan-out of 8 isolated agents
 * needs 8 worktrees at once, whatever `maxConcurrency` is) and says which
 * repositories the background upkeep keeps a pool ready for. Remembered on
 * disk, so the next process (the next `subagents run`, a reloaded window)
 * starts from it; a width not seen again for as long as a pooled worktree
 * lives is forgotten, so one wide fan-out does not hold disk for ever.
 */

export const fanoutSchema = z.object({
  kind: z.literal('subagents-fanout'),
  version: z.literal(1),
  commonDir: z.string(),
  /** A working tree of the repository (git runs there when the pool is refilled). */
  repoRoot: z.string(),
  /** The most worktrees one run tree made at once, within the last week. */
  widest: z.number().int().positive(),
  /** When that width was last seen. */
  widestAt: z.number(),
  /** Set by emptying the pool: nothing is refilled until an isolated agent starts here again. */
  paused: z.boolean().optional(),
});
export type Fanout = z.infer<typeof fanoutSchema>;

/** The same width seen again is rewritten at most this often (it only has to tell this week from last). */
const REFRESH_MS = 60 * 60 * 1000;

export class FanoutStore {
  /**
   * What this process read or wrote, with the file's stamp then: a spawn
   * reads the file again only when another process (another window) wrote
   * it since, one stat.
   */
  readonly #known = new Map<string, { entry: Fanout | null; stamp: string }>();

  async #stamp(file: string): Promise<string> {
    const st = await stat(file).catch(() => null);
    return st ? `${st.mtimeMs}:${st.size}:${st.ino}` : '-';
  }

  constructor(readonly dir: string) {}

  #file(commonDir: string): string {
    return path.join(this.dir, `${createHash('sha256').update(commonDir).digest('hex').slice(0, 20)}.json`);
  }

  async #read(file: string): Promise<Fanout | null> {
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) return null;
    try {
      return fanoutSchema.parse(JSON.parse(text));
    } catch {
      // Only a size hint is lost: the next fan-out writes it again.
      await rm(file, { force: true });
      return null;
    }
  }

  /** The repository's fan-out, if one was seen within the pool's lifetime. */
  async get(commonDir: string, now = Date.now()): Promise<Fanout | undefined> {
    const file = this.#file(commonDir);
    const stamp = await this.#stamp(file);
    let known = this.#known.get(commonDir);
    if (known?.stamp !== stamp) {
      known = { entry: await this.#read(file), stamp };
      this.#known.set(commonDir, known);
    }
    return known.entry && current(known.entry, now) ? known.entry : undefined;
  }

  /** Every repository with a current fan-out. */
  async list(now = Date.now()): Promise<Fanout[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const found: Fanout[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const entry = await this.#read(path.join(this.dir, name));
      if (entry && current(entry, now)) found.push(entry);
    }
    return found;
  }

  /**
   * A run tree has `width` worktrees in the repository now. Written only
   * when it changes what is remembered (a wider fan-out, the widest seen
   * again after a while, a pause lifted): one small file write per new
   * width, not one per spawn.
   */
  async note(commonDir: string, repoRoot: string, width: number, now = Date.now()): Promise<void> {
    const before = await this.get(commonDir, now);
    const keep = before !== undefined && (before.widest > width || (before.widest === width && now - before.widestAt < REFRESH_MS));
    if (keep && !before.paused) return;
    const entry: Fanout = { kind: 'subagents-fanout', version: 1, commonDir, repoRoot, widest: keep ? before.widest : width, widestAt: keep ? before.widestAt : now };
    // A hint, not a record: not flushed to disk (a power cut costs one pool refill), so noting costs a spawn nothing.
    writeCacheFileSync(this.#file(commonDir), `${JSON.stringify(entry)}\n`);
    this.#known.set(commonDir, { entry, stamp: await this.#stamp(this.#file(commonDir)) });
  }

  /** Stops refills for the repository (all, when none is named) until an isolated agent starts there again. */
  async pause(commonDir?: string): Promise<void> {
    for (const entry of await this.list()) {
      if (commonDir && entry.commonDir !== commonDir) continue;
      const paused = { ...entry, paused: true };
      writeCacheFileSync(this.#file(entry.commonDir), `${JSON.stringify(paused)}\n`);
      this.#known.delete(entry.commonDir);
    }
  }
}

/** A width counts for as long as a pooled worktree would be kept unused. */
function current(entry: Fanout, now: number): boolean {
  return now - entry.widestAt <= POOL_MAX_AGE_MS;
}
