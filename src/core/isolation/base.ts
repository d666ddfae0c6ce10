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

/**
 * Snapshots in progress, by working tree. Spawns of one turn start together;
 * each taking its own snapshot would walk the whole tree once per agent (eight
 * editors, eight walks of 20,000 files at the same moment). A spawn that comes
 * while one is being taken shares it: what the user sees at that instant.
 * Nothing is kept once it is done, so the next spawn sees later edits.
 */
const snapshots = new Map<string, Promise<Omit<AgentBase, 'label'> & { dirty: boolean }>>();

function userBase(repo: RepoLocation): Promise<Omit<AgentBase, 'label'> & { dirty: boolean }> {
  const key = `${repo.toplevel}\0${repo.indexFile}`;
  let taking = snapshots.get(key);
  if (!taking) {
    taking = (async () => {
      // Independent: side by side, so the snapshot's walk of the tree hides the other git call.
      const [head, snap] = await Promise.all([readHead(repo.toplevel), snapshotTree(repo.toplevel, repo.indexFile)]);
      if (snap.tree === head.tree) return { commit: head.commit, userHead: head.commit, warnings: snap.warnings, dirty: false };
      const config = await commitConfig(repo.commonDir, repo.toplevel);
      const commit = await commitTree(repo.toplevel, snap.tree, head.commit, 'subagents: your uncommitted changes, as the agent started', config);
      return { commit, userHead: head.commit, warnings: snap.warnings, dirty: true };
    })();
    snapshots.set(key, taking);
    const forget = () => snapshots.delete(key);
    taking.then(forget, forget);
  }
  return taking;
}

export async function resolveBase(repo: RepoLocation, baseRef: string | null | undefined, agentName: string): Promise<AgentBase> {
  if (isHeadRef(baseRef)) {
    const { dirty, ...base } = await userBase(repo);
    return { ...base, label: dirty ? 'HEAD + uncommitted changes' : 'HEAD' };
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
