import { IsolationError } from './errors';
import { git } from './git';
import { commitConfig, readHead, type RepoLocation } from './repo';
import { commitTree, snapshotTree } from './snapshot';

/**
 * Where an isolated agent starts (`baseRef`): `HEAD` — the default — is what
 * the user sees, HEAD plus every uncommitted change (a snapshot commit on top
 * of HEAD when there are any); any other value names a branch, tag or commit
 * the agent starts from exactly as committed (the user's uncommitted changes
 * belong to HEAD, not to it).
 */

export interface AgentBase {
  /** The commit the worktree is checked out at. */
  commit: string;
  /** The user's HEAD, or the named commit itself. */
  userHead: string;
  /** For the log: `HEAD`, `HEAD + uncommitted changes`, `main (1a2b3c4d5e6f)`. */
  label: string;
  /** Files git could not read into the snapshot (left out). */
  warnings: string[];
}

export function isHeadRef(ref: string | null | undefined): boolean {
  return !ref || ref.trim() === '' || ref.trim().toUpperCase() === 'HEAD';
}

/** A revision as a user or model may write it, checked before git sees it (never an option, never a range). */
export function checkBaseRef(ref: string): string | null {
  const r = ref.trim();
  if (r.length > 256) return 'it is longer than 256 characters';
  if (r.startsWith('-')) return 'it starts with "-"';
  if (/[\x00-\x20\x7f:?*[\\]|\.\.|@\{/.test(r)) return 'it is not a plain branch, tag or commit name';
  return null;
}

export async function resolveBase(repo: RepoLocation, baseRef: string | null | undefined, agentName: string): Promise<AgentBase> {
  if (isHeadRef(baseRef)) {
    // Independent: side by side, so the snapshot's walk of the tree hides the other git call.
    const [head, snap] = await Promise.all([readHead(repo.toplevel), snapshotTree(repo.toplevel, repo.indexFile)]);
    if (snap.tree === head.tree) return { commit: head.commit, userHead: head.commit, label: 'HEAD', warnings: snap.warnings };
    const config = await commitConfig(repo.commonDir, repo.toplevel);
    const commit = await commitTree(repo.toplevel, snap.tree, head.commit, `subagents: your uncommitted changes, as ${agentName} started`, config);
    return { commit, userHead: head.commit, label: 'HEAD + uncommitted changes', warnings: snap.warnings };
  }
  const ref = baseRef!.trim();
  const problem = checkBaseRef(ref);
  if (problem) throw new IsolationError('bad-base', `Cannot start ${agentName} from "${ref}": ${problem}. Give a branch, tag or commit of ${repo.toplevel}, or HEAD.`);
  const res = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { cwd: repo.toplevel, okCodes: [0, 1, 128] });
  const commit = res.stdout.trim();
  if (res.code !== 0 || !commit) {
    throw new IsolationError('bad-base', `Cannot start ${agentName} from "${ref}": there is no branch, tag or commit of that name in ${repo.toplevel}.`);
  }
  return { commit, userHead: commit, label: `${ref} (${commit.slice(0, 12)})`, warnings: [] };
}
