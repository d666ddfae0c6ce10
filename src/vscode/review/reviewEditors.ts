import path from 'node:path';
import * as vscode from 'vscode';
import type { ReviewedFile, WorktreeManager, WorktreeReview } from '../../core/isolation';
import { parseWorktreeFileUri, worktreeFileUri } from './worktreeContent';
import { reviewFileUri, type ReviewFiles } from './reviewFiles';

/**
 * An agent's changes in VS Code's multi-file diff editor (`vscode.changes`):
 * one side-by-side diff per file, the commit the agent started from on the
 * left, the agent's version on the right. While the agent's worktree is
 * still a checkout of its branch, the right side is that worktree's file:
 * editable, so the diff editor's own "revert block" arrows and any edit work
 * per hunk, and what is applied is what the review shows. Otherwise the
 * right side is the branch tip, read-only.
 *
 * The editor's title carries Apply / Discard (and per-file variants) through
 * two context keys: `subagents.reviewActive` while one of these reviews is
 * the active tab, and `subagents.reviewFiles`, the agent-side files of the
 * open reviews, so a single file's diff opened from one offers Apply This
 * File / Discard This File.
 */

export const REVIEW_ACTIVE_KEY = 'subagents.reviewActive';
export const REVIEW_FILES_KEY = 'subagents.reviewFiles';

interface OpenReview {
  title: string;
  review: WorktreeReview;
  /** Agent-side URI (as a string) → repository-relative path. */
  files: Map<string, string>;
  /** Its tab has shown up (the tab model may trail the command that opened it). */
  seen: boolean;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function counts(files: readonly ReviewedFile[]): string {
  const add = files.reduce((n, f) => n + (f.insertions ?? 0), 0);
  const del = files.reduce((n, f) => n + (f.deletions ?? 0), 0);
  return `+${add} −${del}`;
}

/** What the review shows: the files still to apply, or every file once all were applied (a look back). */
export function shownFiles(review: WorktreeReview): ReviewedFile[] {
  return review.state === 'applied' ? review.files : review.files.filter((f) => !f.applied);
}

/** The editor's title: whose, how much, and the branch (which also makes it unique); VS Code adds the number of files. */
export function reviewTitle(review: WorktreeReview): string {
  const files = shownFiles(review);
  const applied = review.files.length - files.length;
  const what = review.state === 'applied' ? `${review.agentName}'s applied changes` : `${review.agentName}'s changes`;
  return `${what} (${counts(files)}${applied ? `, ${plural(applied, 'file')} applied already` : ''}) · ${review.branch}`;
}

/** Whether a tab shows this review: VS Code labels a multi-file diff with its title and the number of files, `… (2 files)`. */
function showsTitle(tab: vscode.Tab, title: string): boolean {
  return (tab.label === title || tab.label.startsWith(`${title} (`)) && !(tab.input instanceof vscode.TabInputText);
}

export class ReviewEditors implements vscode.Disposable {
  readonly #open = new Map<string, OpenReview>();
  readonly #disposables: vscode.Disposable[];
  #active: string | undefined;
  #files = '';

  constructor(
    private readonly worktrees: Pick<WorktreeManager, 'review'>,
    private readonly agentFiles: ReviewFiles,
  ) {
    this.#disposables = [
      vscode.window.tabGroups.onDidChangeTabs(() => this.#tabsChanged()),
      vscode.window.tabGroups.onDidChangeTabGroups(() => this.#tabsChanged()),
    ];
  }

  /** The agent whose review is the active tab, if any. */
  get activeAgent(): string | undefined {
    return this.#active;
  }

  /** Opens (or reopens, up to date) the review of an agent's changes; false when there is nothing to show. */
  async open(agentId: string): Promise<WorktreeReview> {
    const review = await this.worktrees.review(agentId);
    const files = shownFiles(review);
    if (files.length === 0) return review;
    await this.#closeTab(agentId);
    const title = reviewTitle(review);
    const entries: Array<[vscode.Uri, vscode.Uri | undefined, vscode.Uri | undefined]> = [];
    const agentSide = new Map<string, string>();
    if (review.worktreePath) this.agentFiles.serve(agentId, review.worktreePath);
    for (const file of files) {
      const original = file.kind === 'added' ? undefined : worktreeFileUri({ agentId, commit: review.baseCommit, path: file.path });
      let modified: vscode.Uri | undefined;
      if (file.kind !== 'deleted') {
        modified = review.worktreePath ? reviewFileUri(agentId, file.path) : worktreeFileUri({ agentId, commit: review.headCommit, path: file.path });
        agentSide.set(modified.toString(), file.path);
      }
      // The entry is labelled with the user's own file, where the change lands.
      entries.push([vscode.Uri.file(path.join(review.repoRoot, ...file.path.split('/'))), original, modified]);
    }
    this.#open.set(agentId, { title, review, files: agentSide, seen: false });
    await vscode.commands.executeCommand('vscode.changes', title, entries);
    this.#tabsChanged();
    return review;
  }

  /** Reopens an agent's review if one is open (its files changed), or closes it when nothing is left. */
  async refresh(agentId: string): Promise<void> {
    if (!this.#open.has(agentId)) return;
    let review: WorktreeReview | undefined;
    try {
      review = await this.worktrees.review(agentId);
    } catch {
      // Discarded: there is nothing to review any more.
    }
    if (review && shownFiles(review).length && review.state !== 'applied') await this.open(agentId);
    else await this.close(agentId);
  }

  async close(agentId: string): Promise<void> {
    await this.#closeTab(agentId);
    this.#open.delete(agentId);
    this.#tabsChanged();
  }

  /** The open review, if any, that shows `uri` on its agent's side (a worktree file, or a file of a branch). */
  fileOf(uri: vscode.Uri): { agentId: string; path: string } | undefined {
    const ref = parseWorktreeFileUri(uri);
    if (ref) return { agentId: ref.agentId, path: ref.path };
    for (const [agentId, open] of this.#open) {
      const file = open.files.get(uri.toString());
      if (file) return { agentId, path: file };
    }
    return undefined;
  }

  /** The agent-side folder of an open review, to save its edited files before acting. */
  worktreePath(agentId: string): string | null {
    return this.#open.get(agentId)?.review.worktreePath ?? null;
  }

  #tabsFor(agentId: string): vscode.Tab[] {
    const title = this.#open.get(agentId)?.title;
    if (!title) return [];
    return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => showsTitle(t, title));
  }

  async #closeTab(agentId: string): Promise<void> {
    const tabs = this.#tabsFor(agentId);
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
  }

  #tabsChanged(): void {
    const active = vscode.window.tabGroups.activeTabGroup.activeTab;
    // Reviews whose tab the user closed are forgotten.
    for (const [agentId, open] of [...this.#open]) {
      const shown = this.#tabsFor(agentId).length > 0;
      if (shown) open.seen = true;
      else if (open.seen) this.#open.delete(agentId);
    }
    const next = active ? [...this.#open].find(([, open]) => showsTitle(active, open.title))?.[0] : undefined;
    if (next !== this.#active) {
      this.#active = next;
      void vscode.commands.executeCommand('setContext', REVIEW_ACTIVE_KEY, Boolean(next));
    }
    const files = [...this.#open.values()].flatMap((open) => [...open.files.keys()].map((u) => vscode.Uri.parse(u)).filter((u) => u.scheme === 'file').map((u) => u.fsPath));
    if (files.join('\0') !== this.#files) {
      this.#files = files.join('\0');
      void vscode.commands.executeCommand('setContext', REVIEW_FILES_KEY, files);
    }
  }

  dispose(): void {
    for (const d of this.#disposables) d.dispose();
  }
}
