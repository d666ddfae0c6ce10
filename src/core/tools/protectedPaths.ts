import { realpath } from 'node:fs/promises';
import path from 'node:path';

/**
 * Files whose change runs code or widens what agents may do, so `acceptEdits`
 * never writes them without asking (S7.3): hook settings and the scripts
 * beside them (`.claude/`, read by this product and by Claude Code), git's
 * own hooks and config (`core.hooksPath`, `core.fsmonitor` run commands),
 * editor folders (`.vscode/tasks.json` can run on folder open, its
 * settings.json can set `subagents.permissionMode`), the CLI's project
 * settings (`.subagents/settings.json`: in a project the user trusts, it sets
 * `permissionMode` and `apiBaseUrl`), and shell and tool
 * start-up files. Agent definitions under `.claude/agents/` stay editable:
 * a file cannot widen the permission mode without the user's consent
 * (modeConsent.ts). Only `bypassPermissions` writes these without asking.
 */

const PROTECTED_DIRS = new Set(['.git', '.claude', '.vscode', '.idea', '.husky', '.subagents']);
/** Inside a protected dir, these sub-folders are ordinary project content. */
const OPEN_SUBDIRS: Record<string, ReadonlySet<string>> = { '.claude': new Set(['agents']) };
const PROTECTED_FILES = new Set([
  '.envrc',
  '.mcp.json',
  '.gitmodules',
  '.gitconfig',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.profile',
]);

/** Why `relative` (a path inside an agent's root, `/`-separated or native) is protected, or null. */
export function protectedReason(relative: string): string | null {
  const parts = relative.split(/[\\/]+/).filter((p) => p && p !== '.');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!.toLowerCase();
    if (PROTECTED_DIRS.has(part)) {
      const next = parts[i + 1]?.toLowerCase();
      if (next !== undefined && OPEN_SUBDIRS[part]?.has(next) && i + 2 < parts.length) {
        i++;
        continue;
      }
      return `it is inside ${parts[i]}/, which holds settings or hooks that run commands`;
    }
  }
  const name = parts.at(-1)?.toLowerCase();
  return name && PROTECTED_FILES.has(name) ? `${parts.at(-1)} runs commands or sets up tools` : null;
}

/**
 * The same for a path a tool is about to write, given as the model wrote it
 * (relative to `root`, or absolute): checked as written and with symlinks
 * resolved, so `docs/link → ../.git/config` is caught too.
 */
export async function protectedTarget(root: string, filePath: string): Promise<string | null> {
  const absolute = path.resolve(root, filePath);
  const lexical = protectedReason(path.relative(root, absolute));
  if (lexical) return lexical;
  const [realRoot, real] = await Promise.all([realpath(root).catch(() => root), realExisting(absolute)]);
  return protectedReason(path.relative(realRoot, real));
}

/** The real path of `file`, resolving symlinks in the part of it that exists. */
async function realExisting(file: string): Promise<string> {
  const tail: string[] = [];
  for (let current = file; ; ) {
    try {
      return path.join(await realpath(current), ...tail.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return file;
      tail.push(path.basename(current));
      current = parent;
    }
  }
}
