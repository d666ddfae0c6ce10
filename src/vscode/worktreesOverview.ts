import * as vscode from 'vscode';
import { formatBytes, type PoolStatus, type WorktreeManager } from '../core/isolation';

/**
 * The Worktrees section at the bottom of the Agents view: the worktrees of
 * isolated agents that are kept with changes (to review, apply or discard),
 * in use by running agents, and pooled for reuse, each with about how much
 * disk it takes. Kept apart from the agents' tree model: it is read from the
 * worktree manager (asynchronously, debounced) rather than from the catalog.
 */

export interface KeptWorktree {
  agentId: string;
  agentName: string;
  branch: string;
  state: 'finished' | 'applied';
  repoRoot: string;
  changes: string;
  diskBytes: number;
}

export interface WorktreesSummary {
  kept: KeptWorktree[];
  inUse: { count: number; diskBytes: number };
  pool: PoolStatus[];
  pooled: { count: number; diskBytes: number };
  /** The most disk the pools may take together (`subagents.worktrees.poolDiskBudgetMB`); null without a bound. */
  poolBudgetBytes: number | null;
}

export async function summarizeWorktrees(manager: WorktreeManager): Promise<WorktreesSummary> {
  const records = await manager.list();
  const kept: KeptWorktree[] = [];
  const inUse = { count: 0, diskBytes: 0 };
  for (const r of records) {
    if (r.state === 'active' || r.state === 'creating') {
      inUse.count++;
      inUse.diskBytes += await manager.diskBytes(r);
    } else if (r.state === 'finished' || r.state === 'applied') {
      kept.push({
        agentId: r.agentId,
        agentName: r.agentName,
        branch: r.branch,
        state: r.state,
        repoRoot: r.repoRoot,
        changes: r.info ? `${r.info.filesChanged} file${r.info.filesChanged === 1 ? '' : 's'}, +${r.info.insertions} −${r.info.deletions}` : 'changes',
        diskBytes: await manager.diskBytes(r),
      });
    }
  }
  const pool = await manager.poolStatus();
  return {
    kept,
    inUse,
    pool,
    pooled: { count: pool.reduce((n, p) => n + p.worktrees.length, 0), diskBytes: pool.reduce((n, p) => n + p.diskBytes, 0) },
    poolBudgetBytes: Number.isFinite(manager.poolSizing.budgetBytes) ? manager.poolSizing.budgetBytes : null,
  };
}

export type WorktreesNode =
  | { kind: 'worktrees'; id: 'worktrees'; summary: WorktreesSummary }
  | { kind: 'worktree-kept'; id: string; kept: KeptWorktree }
  | { kind: 'worktree-in-use'; id: 'worktrees:in-use'; count: number; diskBytes: number }
  | { kind: 'worktree-pool'; id: string; repo: PoolStatus; budgetBytes: number | null };

export function isWorktreesNode(node: { kind: string }): node is WorktreesNode {
  return node.kind === 'worktrees' || node.kind.startsWith('worktree-');
}

/** The section's root, or nothing while there are no worktrees at all. */
export function worktreesRoots(summary: WorktreesSummary | null): WorktreesNode[] {
  if (!summary || (summary.kept.length === 0 && summary.inUse.count === 0 && summary.pooled.count === 0)) return [];
  return [{ kind: 'worktrees', id: 'worktrees', summary }];
}

export function worktreesChildren(node: WorktreesNode): WorktreesNode[] {
  if (node.kind !== 'worktrees') return [];
  const { summary } = node;
  return [
    ...summary.kept.map((kept): WorktreesNode => ({ kind: 'worktree-kept', id: `worktree:${kept.agentId}`, kept })),
    ...(summary.inUse.count ? [{ kind: 'worktree-in-use' as const, id: 'worktrees:in-use' as const, count: summary.inUse.count, diskBytes: summary.inUse.diskBytes }] : []),
    ...summary.pool.map((repo): WorktreesNode => ({ kind: 'worktree-pool', id: `worktrees:pool:${repo.commonDir}`, repo, budgetBytes: summary.poolBudgetBytes })),
  ];
}

export function worktreesItem(node: WorktreesNode): vscode.TreeItem {
  switch (node.kind) {
    case 'worktrees': {
      const s = node.summary;
      const item = new vscode.TreeItem('Worktrees', vscode.TreeItemCollapsibleState.Collapsed);
      const parts = [s.kept.length ? `${s.kept.length} kept` : '', s.inUse.count ? `${s.inUse.count} in use` : '', s.pooled.count ? `${s.pooled.count} pooled` : ''].filter(Boolean);
      item.description = `${parts.join(' · ')} · about ${formatBytes(s.kept.reduce((n, k) => n + k.diskBytes, 0) + s.inUse.diskBytes + s.pooled.diskBytes)}`;
      item.id = node.id;
      item.iconPath = new vscode.ThemeIcon('git-branch');
      const budget = s.poolBudgetBytes === null ? '' : ` Pooled worktrees take ${s.pooled.count ? `about ${formatBytes(s.pooled.diskBytes)} of` : 'nothing of'} their ${formatBytes(s.poolBudgetBytes)} budget (subagents.worktrees.poolDiskBudgetMB).`;
      item.tooltip = `Git worktrees of isolated agents: kept ones hold changes to review, apply or discard; pooled ones are clean and reused by the next isolated agent, as many per repository as your widest fan-out there.${budget} Clean Up Worktrees deletes the pooled ones.`;
      item.contextValue = 'worktrees';
      return item;
    }
    case 'worktree-kept': {
      const k = node.kept;
      const item = new vscode.TreeItem(k.agentName, vscode.TreeItemCollapsibleState.None);
      item.id = node.id;
      item.description = `${k.state === 'applied' ? 'applied · ' : ''}${k.changes} · ${k.branch}${k.diskBytes ? ` · about ${formatBytes(k.diskBytes)}` : ''}`;
      item.tooltip = `${k.agentName}'s changes on ${k.branch} (${k.changes}), from ${k.repoRoot}.${k.diskBytes ? ` Its worktree takes about ${formatBytes(k.diskBytes)}.` : ' Its folder went back to the pool; the work is on the branch.'} Click to review, apply or discard.`;
      item.iconPath = new vscode.ThemeIcon(k.state === 'applied' ? 'check' : 'git-commit');
      item.contextValue = 'worktree.kept';
      item.command = { command: 'subagents.cleanUpWorktrees', title: 'Review, Apply or Discard', arguments: [{ agentId: k.agentId }] };
      return item;
    }
    case 'worktree-in-use': {
      const item = new vscode.TreeItem(`In use by ${node.count} running agent${node.count === 1 ? '' : 's'}`, vscode.TreeItemCollapsibleState.None);
      item.id = node.id;
      item.description = `about ${formatBytes(node.diskBytes)}`;
      item.iconPath = new vscode.ThemeIcon('sync');
      item.contextValue = 'worktree.inUse';
      return item;
    }
    case 'worktree-pool': {
      const r = node.repo;
      const budget = node.budgetBytes === null ? '' : ` of ${formatBytes(node.budgetBytes)}`;
      // Short, so the counts and the disk use show in a narrow side bar; the tooltip says the rest.
      const item = new vscode.TreeItem(`Pooled: ${r.worktrees.length} of ${r.size}`, vscode.TreeItemCollapsibleState.None);
      item.id = node.id;
      item.description = `${formatBytes(r.diskBytes)}${budget} · ${r.repoRoot}`;
      const cleaning = r.worktrees.filter((w) => !w.ready).length;
      const why = r.widest && r.widest >= r.size ? `${r.size}, your widest fan-out there this week` : `${r.size}`;
      item.tooltip = `Pooled for reuse: ${r.worktrees.length} worktree(s) of ${r.repoRoot}, about ${formatBytes(r.diskBytes)}${cleaning ? ` (${cleaning} being cleaned in the background)` : ''}, kept so the next isolated agents there start at the cost of the files that differ. The pool keeps ${why}${node.budgetBytes === null ? '' : `, all pools together within ${formatBytes(node.budgetBytes)} (subagents.worktrees.poolDiskBudgetMB)`}:\n${r.worktrees.map((w) => w.path).join('\n')}\n\nClean Up Worktrees deletes them.`;
      item.iconPath = new vscode.ThemeIcon('archive');
      item.contextValue = 'worktree.pool';
      return item;
    }
  }
}

/** Keeps a summary fresh: recomputed at most every `delayMs` on `refresh()`, `onDidChange` fired when it differs. */
export class WorktreesOverview implements vscode.Disposable {
  readonly #onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChange = this.#onDidChange.event;
  #summary: WorktreesSummary | null = null;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | null = null;

  constructor(
    private readonly manager: WorktreeManager,
    private readonly log: vscode.LogOutputChannel,
    private readonly delayMs = 500,
  ) {}

  get summary(): WorktreesSummary | null {
    return this.#summary;
  }

  refresh(): void {
    // Throttled, not debounced: a run that keeps the store busy must not keep the section stale.
    this.#timer ??= setTimeout(() => void this.update(), this.delayMs);
  }

  /** Recomputes now; resolves once the summary (and the view) is current. */
  async update(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    this.#running = (async () => {
      try {
        const next = await summarizeWorktrees(this.manager);
        if (JSON.stringify(next) === JSON.stringify(this.#summary)) return;
        this.#summary = next;
        this.#onDidChange.fire();
      } catch (error) {
        this.log.warn(`Could not sum up the worktrees: ${error instanceof Error ? error.message : String(error)}`);
      }
    })();
    await this.#running;
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#onDidChange.dispose();
  }
}
