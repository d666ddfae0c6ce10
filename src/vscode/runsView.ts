import * as vscode from 'vscode';
import { isActiveStatus } from '../protocol/vocabulary';
import type { RunSnapshot } from '../protocol/runSnapshot';
import { webviewToHostSchema, type HostToWebview, type StatusState, type WebviewToHost } from '../protocol/webview';
import { FeedPump, RunsFeed, type RunsFeedSource } from '../surfaces/views/runsFeed';
import { runsViewHtml } from '../surfaces/views/webviewHtml';

/**
 * The Runs view: a webview with every run tree, live. The host owns the
 * state: RunStore snapshots projected by RunsFeed, sent at most every 50 ms
 * and only what changed; a hidden view loses its document and gets
 * everything again when shown. Strict CSP with a nonce, and every message
 * from the webview is validated. Also keeps the container's badge
 * (agents at work and waiting for approval) and Clear Finished, which hides
 * ended runs from the view without deleting them from the history.
 */

export type RunsViewSource = Omit<RunsFeedSource, 'shown'> & { status(): StatusState };
export type RunsViewMessage = Exclude<WebviewToHost, { type: 'ready' } | { type: 'revealed' }>;

const CLEARED_KEY = 'subagents.runsView.clearedAt';
const REVEAL_TIMEOUT_MS = 10_000;

export interface RevealOptions {
  /** Unfold the agent's Result line. */
  showResult?: boolean;
  /** Leave the keyboard focus where it is when the view is in sight. */
  preserveFocus?: boolean;
}

export interface BadgeCount {
  working: number;
  waiting: number;
}

export function countActive(runs: readonly RunSnapshot[]): BadgeCount {
  const count = { working: 0, waiting: 0 };
  for (const run of runs) {
    if (!isActiveStatus(run.status)) continue;
    for (const node of Object.values(run.agents)) {
      if (node.status === 'waiting') count.waiting++;
      else if (node.status === 'running' || node.status === 'queued') count.working++;
    }
  }
  return count;
}

export function badgeOf({ working, waiting }: BadgeCount): vscode.ViewBadge | undefined {
  if (working + waiting === 0) return undefined;
  const parts = [working ? `${working} agent${working === 1 ? '' : 's'} running` : '', waiting ? `${waiting} waiting for your approval` : ''];
  return { value: working + waiting, tooltip: parts.filter(Boolean).join(', ') };
}

export class RunsViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewType = 'subagents.runsView';
  readonly feed: RunsFeed;
  readonly #pump: FeedPump;
  #view: vscode.WebviewView | undefined;
  #readyWaiters: Array<() => void> = [];
  #clearedAt: number;
  /** Runs shown although cleared (revealed by Show Run). */
  readonly #pinned = new Set<string>();
  #nextRequest = 1;
  readonly #reveals = new Map<number, { message: Extract<HostToWebview, { type: 'reveal' }>; answer: (found: boolean) => void }>();
  #viewDisposables: vscode.Disposable[] = [];
  readonly #onDidChangeVisibility = new vscode.EventEmitter<boolean>();
  readonly onDidChangeVisibility = this.#onDidChangeVisibility.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly source: RunsViewSource,
    private readonly onMessage: (message: RunsViewMessage) => void,
    private readonly log: vscode.LogOutputChannel,
    private readonly memento: vscode.Memento,
  ) {
    this.#clearedAt = memento.get<number>(CLEARED_KEY, 0);
    this.feed = new RunsFeed({ ...source, shown: (run) => this.#shown(run) });
    this.#pump = new FeedPump(this.feed, (message) => this.#post(message));
  }

  get visible(): boolean {
    return this.#view?.visible ?? false;
  }

  /** The resolved view, for its badge; undefined until the user first opens it. */
  get view(): vscode.WebviewView | undefined {
    return this.#view;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    for (const d of this.#viewDisposables.splice(0)) d.dispose();
    this.#view = view;
    this.#pump.lost();
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = this.#html(view.webview, dist);
    this.#viewDisposables.push(
      view.webview.onDidReceiveMessage((raw: unknown) => this.#receive(raw)),
      // A hidden webview view loses its document; the next 'ready' resends all.
      view.onDidChangeVisibility(() => {
        if (!view.visible) this.#pump.lost();
        this.#onDidChangeVisibility.fire(view.visible);
      }),
      view.onDidDispose(() => {
        this.#view = undefined;
        this.#pump.lost();
        this.#onDidChangeVisibility.fire(false);
      }),
    );
    this.#onDidChangeVisibility.fire(view.visible);
  }

  #receive(raw: unknown): void {
    const parsed = webviewToHostSchema.safeParse(raw);
    if (!parsed.success) {
      this.log.warn(`Ignored a malformed message from the Runs view: ${parsed.error.issues[0]?.message}`);
      return;
    }
    const message = parsed.data;
    if (message.type === 'ready') {
      this.#pump.start();
      this.statusChanged();
      // A reveal sent while the webview was (re)loading was lost with its document.
      for (const pending of this.#reveals.values()) this.#pump.sent(pending.message);
      for (const resolve of this.#readyWaiters.splice(0)) resolve();
      return;
    }
    if (message.type === 'revealed') {
      this.#reveals.get(message.requestId)?.answer(message.found);
      this.#reveals.delete(message.requestId);
      return;
    }
    this.onMessage(message);
  }

  statusChanged(): void {
    if (this.#pump.ready) this.#pump.sent({ type: 'status', state: this.source.status() });
  }

  runsChanged(changed: Iterable<string>): void {
    this.#pump.changed(changed);
  }

  /** Resends runs whose snapshots did not change but whose views did (a worktree applied or discarded). */
  touchRuns(runIds: readonly string[]): void {
    this.feed.touch(runIds);
    this.#pump.schedule();
  }

  /** Hides every ended run (they stay in the history); returns how many. */
  clearFinished(): number {
    this.#clearedAt = Date.now();
    this.#pinned.clear();
    void this.memento.update(CLEARED_KEY, this.#clearedAt);
    this.feed.touchAll();
    this.#pump.schedule();
    return this.source.runs().filter((r) => !this.#shown(r)).length;
  }

  showCleared(): void {
    this.#clearedAt = 0;
    void this.memento.update(CLEARED_KEY, 0);
    this.feed.touchAll();
    this.#pump.schedule();
  }

  /**
   * Shows the view, then selects and scrolls to a run (its root) or one of
   * its agents, expanding what hides it. Resolves with whether the webview
   * found it.
   */
  async reveal(runId: string, agentId?: string, options: RevealOptions = {}): Promise<boolean> {
    if (!this.source.run(runId)) return false;
    if (!this.#shown(this.source.run(runId)!)) {
      this.#pinned.add(runId);
      this.feed.touchAll();
    }
    // Without taking the keyboard from where the user types, when asked and the view is in sight already.
    if (options.preserveFocus && this.#view?.visible) this.#view.show(true);
    else await vscode.commands.executeCommand(`${RunsViewProvider.viewType}.focus`);
    if (!this.#pump.ready) {
      const ready = new Promise<void>((resolve) => this.#readyWaiters.push(resolve));
      if ((await withTimeout(ready.then(() => true), REVEAL_TIMEOUT_MS)) !== true) return false;
    }
    this.feed.include(runId);
    this.#pump.flush();
    const request = { type: 'reveal' as const, requestId: this.#nextRequest++, runId, agentId: agentId ?? null, ...(options.showResult ? { showResult: true } : {}) };
    const found = new Promise<boolean>((answer) => this.#reveals.set(request.requestId, { message: request, answer }));
    this.#pump.sent(request);
    const requestId = request.requestId;
    const answer = await withTimeout(found, REVEAL_TIMEOUT_MS);
    this.#reveals.delete(requestId);
    return answer === true;
  }

  #shown(run: RunSnapshot): boolean {
    if (isActiveStatus(run.status) || this.#pinned.has(run.runId)) return true;
    return (run.endedAt ?? run.startedAt) > this.#clearedAt;
  }

  #post(message: HostToWebview): void {
    if (!this.#view) return;
    void this.#view.webview.postMessage(message);
  }

  #html(webview: vscode.Webview, dist: vscode.Uri): string {
    return runsViewHtml({ cspSource: webview.cspSource, asset: (file) => webview.asWebviewUri(vscode.Uri.joinPath(dist, file)).toString() });
  }

  dispose(): void {
    this.#pump.dispose();
    for (const d of this.#viewDisposables.splice(0)) d.dispose();
    this.#onDidChangeVisibility.dispose();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
