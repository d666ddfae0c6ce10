import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../../isolation/names';
import type { AgentRun } from './agentRun';

/**
 * The working directory a spawn call asks for (its `cwd`). A child works
 * inside its parent's directory, never beside or above it: its file tools
 * are confined to its cwd, so a cwd outside would hand an agent without file
 * tools, or one confined to the workspace, a way out (through `/`, `$HOME`,
 * or a symlink in the workspace that points elsewhere). Both sides are
 * compared with symlinks resolved.
 */
export async function childCwd(requested: string, parent: AgentRun): Promise<{ ok: true; cwd: string } | { ok: false; refusal: string }> {
  if (!path.isAbsolute(requested)) return { ok: false, refusal: `cwd must be an absolute path, got "${requested}".` };
  const info = await stat(requested).catch(() => null);
  if (!info?.isDirectory()) return { ok: false, refusal: `cwd "${requested}" is not an existing directory.` };
  const [real, root] = await Promise.all([realpath(requested), realpath(parent.cwd).catch(() => path.resolve(parent.cwd))]);
  if (!isInside(real, root)) {
    const via = real === path.resolve(requested) ? '' : ` (it leads to ${real})`;
    return {
      ok: false,
      refusal: `cwd "${requested}" is outside the working directory of "${parent.agentName}"${via}, ${parent.cwd}. A subagent works inside its parent's directory: pass that directory or a folder in it.`,
    };
  }
  return { ok: true, cwd: real };
}
