import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, type Stats } from 'node:fs';
import Module, { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Script } from 'node:vm';

/**
 * Loads the CLI's own bundles (dist/*.cjs) with a V8 code cache kept after
 * the command has run. Node's compile cache (module.enableCompileCache) is
 * made when a file is compiled, before it runs, so it holds the top level
 * only: every function a command calls is parsed and compiled again in
 * every process, which was about a sixth of `subagents agents`. A cache
 * made at exit (`script.createCachedData()`) holds those functions too.
 *
 * One cache per bundle and command, as each command runs other functions of
 * the same bundle, in $XDG_CACHE_HOME/subagents/code (default ~/.cache): the
 * user's own folder, since V8 runs what a cache holds without checking it
 * against the source beyond its length. So a cache is named after its
 * bundle's size, modification and change times and inode, and is written
 * whole or not at all (a rename); a new bundle's cache replaces the old
 * one's. A cache V8 refuses (another Node) is made again. A cache that
 * cannot be read or written costs only the time it would have saved.
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's.
 *
 * Each bundle is a module of Node's cache (require.cache), as if required,
 * and a bundle's `require('./x.cjs')` of another comes back here.
 */

interface Made {
  script: Script;
  file: string;
}

const BUNDLE = /^\.\/[\w-]+\.cjs$/;

export class BundleLoader {
  readonly #made: Made[] = [];
  #exitHooked = false;

  constructor(
    /** Where caches go; null: no cache (Node compiles as it always does). */
    private readonly cacheDir: string | null,
    /** What this process runs (the command), part of each cache's name. */
    private readonly purpose: string,
  ) {}

  /** The loader for this process: the command from `argv`, the cache folder from `env`. */
  static forProcess(argv: readonly string[], env: NodeJS.ProcessEnv): BundleLoader {
    const command = argv[2] ?? '';
    const purpose = /^[a-z]{1,16}$/.test(command) ? command : 'other';
    if (env.NODE_DISABLE_COMPILE_CACHE === '1') return new BundleLoader(null, purpose);
    const home = env.HOME || os.homedir();
    return new BundleLoader(path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'subagents', 'code'), purpose);
  }

  /** The exports of the bundle at `file` (absolute), loading it once per process. */
  load(file: string): unknown {
    const nodeRequire = createRequire(file);
    const known = nodeRequire.cache[file];
    if (known) return known.exports;
    // The name of the cache and the code come from one open file: a bundle replaced meanwhile (an update) cannot
    // leave its old code's cache under the new one's name.
    const fd = openSync(file, 'r');
    let source: string;
    let st: Stats;
    try {
      st = fstatSync(fd);
      source = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
    const cacheFile = this.cacheDir ? this.#cacheFile(file, st) : null;
    let cachedData: Buffer | undefined;
    if (cacheFile) {
      try {
        cachedData = readFileSync(cacheFile);
      } catch {
        cachedData = undefined;
      }
    }
    const script = new Script(Module.wrap(source), { filename: file, ...(cachedData ? { cachedData } : {}) });
    if (cacheFile && (!cachedData || script.cachedDataRejected)) this.#remember({ script, file: cacheFile });

    const module = new Module(file);
    module.filename = file;
    nodeRequire.cache[file] = module;
    const dir = path.dirname(file);
    const bundleRequire = Object.assign((id: string) => (BUNDLE.test(id) ? this.load(path.join(dir, id)) : nodeRequire(id)), {
      resolve: nodeRequire.resolve,
      cache: nodeRequire.cache,
      main: nodeRequire.main,
      extensions: nodeRequire.extensions,
    });
    try {
      (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, bundleRequire, module, file, dir);
    } catch (error) {
      delete nodeRequire.cache[file];
      throw error;
    }
    module.loaded = true;
    return module.exports;
  }

  /** Named after what the cache was made from: a changed bundle never meets an old cache. */
  #cacheFile(file: string, st: Stats): string {
    return path.join(this.cacheDir!, `${path.basename(file)}.${this.purpose}.${process.version}-${process.arch}.${st.size}-${st.mtimeMs}-${st.ctimeMs}-${st.ino}`);
  }

  #remember(made: Made): void {
    this.#made.push(made);
    if (this.#exitHooked) return;
    this.#exitHooked = true;
    process.once('exit', () => this.saveCaches());
  }

  /** Writes the caches of the bundles loaded without one (at exit: by then they hold every function the command ran). */
  saveCaches(): void {
    const made = this.#made.splice(0);
    if (made.length === 0 || !this.cacheDir) return;
    try {
      mkdirSync(this.cacheDir, { recursive: true, mode: 0o700 });
      const existing = readdirSync(this.cacheDir);
      for (const { script, file } of made) {
        const temp = `${file}.${process.pid}.tmp`;
        writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
        renameSync(temp, file);
        // The same bundle and command's caches for other builds (or another Node) are of no more use.
        const stem = path.basename(file).split('.').slice(0, 3).join('.');
        for (const name of existing) if (name.startsWith(`${stem}.`) && name !== path.basename(file) && !name.endsWith('.tmp')) rmSync(path.join(this.cacheDir, name), { force: true });
      }
    } catch {
      // A read-only or full disk: the next process compiles again.
    }
  }
}
