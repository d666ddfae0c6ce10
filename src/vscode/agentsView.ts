import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import type { RunSnapshot } from '../protocol/runSnapshot';
import { webviewToHostSchema, type AgentsState, type HostToWebview, type RunView, type WebviewToHost } from '../protocol/webview';

/**
 * The sidebar "Agents" view (S6.1): a webview that renders what the host
 * sends and reports clicks. The host owns all state: the agents of every
 * folder, and the runs projected from RunStore snapshots (never from engine
 * state). Runs are sent incrementally: after the first full send only runs
 * whose snapshot version changed go over the wire. Strict CSP with a nonce,
 * and every message from the webview is validated (S7.4).
 */

export interface ViewSource {
  agents(): AgentsState;
  /** Newest first. */
  runs(): RunSnapshot[];
  run(runId: string): RunSnapshot | undefined;
  runView(run: RunSnapshot): RunView;
}

export class AgentsViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewType = 'subagents.agentsView';
  #view: vscode.WebviewView | undefined;
  #ready = false;
  /** Snapshot version last sent per run; cleared for a full resend. */
  readonly #sent = new Map<string, number>();
  readonly #disposables: vscode.Disposable[] = [];
  #viewDisposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly source: ViewSource,
    private readonly onMessage: (message: Exclude<WebviewToHost, { type: 'ready' }>) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    for (const d of this.#viewDisposables.splice(0)) d.dispose();
    this.#view = view;
    this.#ready = false;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = this.#html(view.webview, dist);
    this.#viewDisposables.push(
      view.webview.onDidReceiveMessage((raw: unknown) => {
        const parsed = webviewToHostSchema.safeParse(raw);
        if (!parsed.success) {
          this.log.warn(`Ignored a malformed message from the Agents view: ${parsed.error.issues[0]?.message}`);
          return;
        }
        if (parsed.data.type === 'ready') {
          // A (re)loaded webview has nothing: send everything.
          this.#ready = true;
          this.#sent.clear();
          this.agentsChanged();
          this.runsChanged();
          return;
        }
        this.onMessage(parsed.data);
      }),
      // Hidden webview views lose their document; the next 'ready' resends all.
      view.onDidChangeVisibility(() => {
        if (!view.visible) this.#ready = false;
      }),
      view.onDidDispose(() => {
        this.#view = undefined;
        this.#ready = false;
      }),
    );
  }

  /** Reveals the view (Run Agent does, so progress is visible). */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${AgentsViewProvider.viewType}.focus`);
  }

  agentsChanged(): void {
    if (this.#ready) this.#post({ type: 'agents', state: this.source.agents() });
  }

  /** Sends the runs in `changed` (all when omitted) whose version moved, and the current order. */
  runsChanged(changed?: Iterable<string>): void {
    if (!this.#ready) return;
    const runs = this.source.runs();
    const ids = changed ? [...changed] : runs.map((r) => r.runId);
    const views: RunView[] = [];
    for (const id of ids) {
      const run = this.source.run(id);
      if (!run) {
        this.#sent.delete(id);
        continue;
      }
      if (this.#sent.get(id) === run.version) continue;
      this.#sent.set(id, run.version);
      views.push(this.source.runView(run));
    }
    this.#post({ type: 'runs', changed: views, order: runs.map((r) => r.runId), now: Date.now() });
  }

  /** Resends runs whose snapshots did not change but whose views did (a worktree applied or discarded). */
  touchRuns(runIds: readonly string[]): void {
    for (const id of runIds) this.#sent.delete(id);
    if (runIds.length) this.runsChanged(runIds);
  }

  #post(message: HostToWebview): void {
    void this.#view?.webview.postMessage(message);
  }

  #html(webview: vscode.Webview, dist: vscode.Uri): string {
    const nonce = randomBytes(16).toString('base64');
    const uri = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(dist, file)).toString();
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${uri('codicon.css')}">
<link rel="stylesheet" href="${uri('webview.css')}">
<title>Agents</title>
</head>
<body>
<div id="root" data-testid="agents-view-root"></div>
<script nonce="${nonce}" src="${uri('webview.js')}"></script>
</body>
</html>`;
  }

  dispose(): void {
    for (const d of [...this.#viewDisposables.splice(0), ...this.#disposables.splice(0)]) d.dispose();
  }
}
