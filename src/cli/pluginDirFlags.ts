import { statSync } from 'node:fs';
import { resolveUserPath } from '../core/config';
import { UsageError } from './command';

/**
 * The `--plugin-dir` flags of `agents`, `run` and `resume`, by one rule: a
 * relative path is taken from the working folder (`--cwd`; for `resume`,
 * the folder the agent ran in), as relative `pluginDirs` in the user
 * settings file are, and `~/` from the home folder. A folder that is not
 * there is a usage error naming it: the user typed it for this command, and
 * going on without it would only surface later as an unknown agent.
 */
export function pluginDirFlags(flags: readonly string[], cwd: string, home: string): string[] {
  return flags.map((flag) => {
    const dir = resolveUserPath(flag, cwd, home);
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) throw new UsageError(`--plugin-dir ${flag}: ${dir} is not a folder${dir === flag ? '' : ` (a relative path is taken from the working folder, ${cwd})`}`);
    return dir;
  });
}
