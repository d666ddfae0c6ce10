import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { webviewToHostSchema, type HostToWebview, type ViewState, type WebviewToHost } from '../protocol/webview';

/**
 * The sidebar "Agents" view: a webview that renders the view state the host
 * sends it. The host owns all state; the webview only renders and reports
 * clicks. Strict CSP with a nonce (S7.4).
 */
export class AgentsViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewType = 'subagents.agentsView';
  #view: vscode.WebviewView | undefined;
  #ready = false;
  #state: ViewState;
  readonly #disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    initialState: ViewState,
    private readonly onMessage: (message: WebviewToHost) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.#state = initialState;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.#view = view;
    this.#ready = false;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = this.#html(view.webview, dist);
    this.#disposables.push(
      view.webview.onDidReceiveMessage((raw: unknown) => {
        const parsed = webviewToHostSchema.safeParse(raw);
        if (!parsed.success) {
          this.log.warn(`Ignored a malformed message from the Agents view: ${parsed.error.issues[0]?.message}`);
          return;
        }
        if (parsed.data.type === 'ready') {
          this.#ready = true;
          this.#post({ type: 'state', state: this.#state });
          return;
        }
        this.onMessage(parsed.data);
      }),
      view.onDidDispose(() => {
        this.#view = undefined;
        this.#ready = false;
      }),
    );
  }

  update(state: ViewState): void {
    this.#state = state;
    if (this.#ready) this.#post({ type: 'state', state });
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
    for (const d of this.#disposables.splice(0)) d.dispose();
  }
}
