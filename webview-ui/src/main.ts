import './style.css';
import { hostToWebviewSchema, type ViewState, type WebviewToHost } from '../../src/protocol/webview';
import { renderView } from './render';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

const vscode = acquireVsCodeApi();
const root = document.getElementById('root')!;

function post(message: WebviewToHost): void {
  vscode.postMessage(message);
}

let state: ViewState | null = null;

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  // S7.4: anything that does not match the protocol is dropped, not rendered.
  const parsed = hostToWebviewSchema.safeParse(event.data);
  if (!parsed.success) return;
  state = parsed.data.state;
  renderView(root, state, post);
});

post({ type: 'ready' });
