import { createHash } from 'node:crypto';
import path from 'node:path';

/**
 * Names of the things isolation creates: branches, worktree folders, state
 * files. Pure functions, so the rules are unit-tested on their own.
 */

/** Lower-case `[a-z0-9-]` only: valid in a ref, a folder name on every OS, and readable. */
export function slug(text: string, maxLength = 32): string {
  const s = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '') // accents decomposed by NFKD: "é" → "e"
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/, '');
  return s || 'agent';
}

/**
 * Eight characters that identify an agent in branch and folder names. Taken
 * from the id itself when it is a plain token (so `a1b2c3d4…` ids stay
 * recognisable), hashed otherwise (so ids like `agent-1`/`agent-11` cannot
 * collide by truncation).
 */
export function shortId(agentId: string): string {
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(agentId)) return agentId.slice(0, 8).toLowerCase();
  if (/^[a-z0-9]{8,}$/i.test(agentId) && /[0-9]/.test(agentId) && /[a-z]/i.test(agentId)) return agentId.slice(0, 8).toLowerCase();
  return createHash('sha256').update(agentId).digest('hex').slice(0, 8);
}

/** `<agent>-<shortid>`, plus `-2`, `-3`… when an earlier one is taken. */
export function worktreeName(agentName: string, agentId: string, attempt = 0): string {
  const base = `${slug(agentName)}-${shortId(agentId)}`;
  return attempt === 0 ? base : `${base}-${attempt + 1}`;
}

export const BRANCH_PREFIX = 'subagents/';

export function branchName(name: string): string {
  return `${BRANCH_PREFIX}${name}`;
}

export const BACKUP_REF_PREFIX = 'refs/subagents/before-apply/';

/**
 * The ref that keeps the user's working tree as it was before an apply:
 * `<name>` for the first apply of a worktree, `<name>.2`, … for applies
 * after follow-ups, so no backup overwrites an earlier one (worktree names
 * never hold a dot, so these cannot meet another worktree's backups).
 */
export function backupRef(name: string, taken: readonly string[] = []): string {
  for (let n = 1; ; n++) {
    const ref = `${BACKUP_REF_PREFIX}${name}${n === 1 ? '' : `.${n}`}`;
    if (!taken.includes(ref)) return ref;
  }
}

/**
 * The folder under worktreesRoot for one repository: its name for the eye
 * plus a hash of its common git dir, so two clones named `app` stay apart.
 */
export function repoFolderName(commonDir: string): string {
  const base = path.basename(commonDir) === '.git' ? path.basename(path.dirname(commonDir)) : path.basename(commonDir, '.git');
  const hash = createHash('sha256').update(commonDir).digest('hex').slice(0, 10);
  return `${slug(base, 24)}-${hash}`;
}

/** A file name for an agent's state record that is safe on every OS. */
export function recordFileName(agentId: string): string {
  // Lower-case only: on case-insensitive file systems `A1` and `a1` would share a file.
  if (/^[a-z0-9_-]{1,80}$/.test(agentId)) return `${agentId}.json`;
  return `${slug(agentId, 40)}-${createHash('sha256').update(agentId).digest('hex').slice(0, 12)}.json`;
}

/** Whether `child` is `parent` or lies inside it. */
export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
