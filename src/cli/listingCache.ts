import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeCacheFileSync } from '../core/atomicFile';
import { listingFingerprint, type Listing } from '../core/agents/catalog/listing';
import { OutcomeStore } from '../core/agents/catalog/outcomeStore';

const MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * What `subagents agents` keeps between runs for one listing (a folder, a
 * home, plugin dirs), in $XDG_CACHE_HOME/subagents/listings (default
 * ~/.cache): the per-file outcomes (see OutcomeStore), so a run parses only
 * the files that changed, and the last answer printed, so a run whose
 * listing has not changed at all (same dirs, same files, same stamps: see
 * listingFingerprint) prints it again without parsing, resolving precedence
 * or rendering anything. Both are caches: unreadable means empty, and a failed
 * write loses nothing but time. Files no run has written for MAX_AGE_MS are
 * removed, so folders listed once do not pile up.
 */
export class ListingCache {
  #store: OutcomeStore | undefined;

  private constructor(
    private readonly base: string,
    /** The build: answers and outcomes of another parser are not trusted. */
    private readonly version: string,
  ) {}

  /**
   * The cache of one listing, or null when it cannot be trusted: only the
   * built CLI keeps one, since only its bundle's stamp tells which parser
   * wrote it (run from sources, any edited module would go unnoticed).
   */
  static open(cwd: string, home: string, pluginDirs: readonly string[], env: NodeJS.ProcessEnv): ListingCache | null {
    if (!__filename.endsWith('.cjs')) return null;
    let version: string;
    try {
      const bundle = statSync(__filename);
      version = `${bundle.size}-${bundle.mtimeMs}`;
    } catch {
      return null;
    }
    const listing = [cwd, home, ...pluginDirs].join('\0');
    const root = env.XDG_CACHE_HOME || path.join(home, '.cache');
    // The listing's own text goes into every fingerprint: two listings whose names share a file find each other's answers stale.
    return new ListingCache(path.join(root, 'subagents', 'listings', fileName(listing)), `${version}\0${listing}`);
  }

  get store(): OutcomeStore {
    return (this.#store ??= OutcomeStore.open(`${this.base}.json`, this.version));
  }

  /** The fingerprint of `listing` for this build and `answerInputs` (what else the answer depends on). */
  fingerprint(listing: Listing, answerInputs: string): string {
    return listingFingerprint(listing, `${this.version}\0${answerInputs}`);
  }

  /** The answer printed last time in `format` (each has its own), if its listing had this fingerprint. */
  answer(format: string, fingerprint: string): string | null {
    let text: string;
    try {
      text = readFileSync(this.answerFile(format), 'utf8');
    } catch {
      return null;
    }
    // `<length of the fingerprint>\n<fingerprint><answer>`: a fingerprint is any text, newlines included.
    const header = `${fingerprint.length}\n`;
    return text.startsWith(header) && text.startsWith(fingerprint, header.length) ? text.slice(header.length + fingerprint.length) : null;
  }

  /** Saves the answer; since something changed, also the time to forget the listings of folders no longer listed. */
  saveAnswer(format: string, fingerprint: string, answer: string): void {
    writeCacheFileSync(this.answerFile(format), `${fingerprint.length}\n${fingerprint}${answer}`);
    const dir = path.dirname(this.base);
    const now = Date.now();
    try {
      for (const name of readdirSync(dir)) {
        const file = path.join(dir, name);
        if (now - statSync(file).mtimeMs > MAX_AGE_MS) rmSync(file, { force: true });
      }
    } catch {
      // Another run pruning at the same time, or an unreadable folder: next time.
    }
  }

  private answerFile(format: string): string {
    return `${this.base}.${format}.out`;
  }
}

/**
 * A file name for a listing's cache: 64 bits of FNV-1a over its text, in
 * hex. Not a digest anyone relies on (see `open`): node:crypto's would cost
 * every listing the loading of the crypto module.
 */
function fileName(text: string): string {
  let low = 0x84222325;
  let high = 0xcbf29ce4;
  for (let i = 0; i < text.length; i++) {
    low = (low ^ text.charCodeAt(i)) >>> 0;
    // Multiply the 64-bit value by the FNV prime 2^40 + 0x1b3, in 32-bit halves.
    const lowTimes = low * 0x1b3;
    const carry = Math.floor(lowTimes / 0x100000000);
    high = (high * 0x1b3 + (low << 8) + carry) >>> 0;
    low = lowTimes >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}
