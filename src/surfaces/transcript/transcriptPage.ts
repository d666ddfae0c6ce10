import { randomBytes } from 'node:crypto';
import { webviewDocument } from '../views/webviewHtml';

/**
 * The transcript view's document: it loads nothing at all from anywhere
 * (no image, font, frame or connection; `img-src 'none'` even keeps a
 * model's `<img src="https://…?d=secret">` from leaking what it read, were
 * it ever to reach the page unescaped); its one style and one script are
 * inline with a fresh nonce. The script puts the HTML the host rendered
 * (transcriptHtml.ts, escaped there) into the page, keeps the reader's place
 * (or follows the end while they are at it), and remembers which agent it
 * shows, so the view comes back after a reload.
 */

const STYLE = `
body { padding: 0 20px 40px; color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); line-height: 1.5; }
header h1 { font-size: 1.5em; margin: 16px 0 4px; }
header .description { margin: 0 0 8px; color: var(--vscode-descriptionForeground); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0 16px; font-size: 0.92em; }
dt { color: var(--vscode-descriptionForeground); }
dd { margin: 0; overflow-wrap: anywhere; }
.turn { border-top: 1px solid var(--vscode-widget-border, var(--vscode-panel-border, transparent)); padding: 8px 0; }
.turn h2 { font-size: 1.05em; margin: 4px 0 8px; }
.turn.results h2, .turn.now h2 { color: var(--vscode-descriptionForeground); }
.tool-call, .tool-result, .pending { margin: 8px 0; padding: 6px 10px; border-left: 3px solid var(--vscode-textLink-foreground); background: var(--vscode-textBlockQuote-background, transparent); border-radius: 0 3px 3px 0; }
.tool-result { border-left-color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.tool-result.error { border-left-color: var(--vscode-errorForeground); }
.pending { border-left-color: var(--vscode-editorWarning-foreground); }
.tool-head { font-weight: 600; margin-bottom: 4px; }
.field { font-size: 0.92em; }
.field-name { color: var(--vscode-descriptionForeground); }
pre.code { margin: 4px 0; padding: 6px 8px; max-height: 28em; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; background: var(--vscode-textCodeBlock-background, var(--vscode-editor-background)); border-radius: 3px; }
pre.code, code { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size, 0.92em); }
:not(pre) > code { padding: 0 3px; border-radius: 3px; background: var(--vscode-textCodeBlock-background, transparent); }
.diff-add { color: var(--vscode-gitDecoration-addedResourceForeground, var(--vscode-charts-green)); }
.diff-del { color: var(--vscode-gitDecoration-deletedResourceForeground, var(--vscode-errorForeground)); }
.diff-hunk, .diff-file { color: var(--vscode-descriptionForeground); }
.image-ref { color: var(--vscode-descriptionForeground); font-style: italic; }
details.thinking { color: var(--vscode-descriptionForeground); margin: 6px 0; }
a { color: var(--vscode-textLink-foreground); }
table { border-collapse: collapse; } th, td { border: 1px solid var(--vscode-widget-border, transparent); padding: 2px 6px; }
`;

const SCRIPT = `
const vscode = acquireVsCodeApi();
const main = document.getElementById('transcript');
window.addEventListener('message', (event) => {
  const message = event.data;
  if (!message || message.type !== 'content' || typeof message.html !== 'string') return;
  const atEnd = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
  const first = !main.dataset.loaded;
  main.innerHTML = message.html;
  main.dataset.loaded = 'true';
  vscode.setState({ agentId: message.agentId });
  if (first ? message.follow : atEnd) window.scrollTo(0, document.body.scrollHeight);
});
vscode.postMessage({ type: 'ready' });
`;

export function transcriptPageHtml(title: string, nonce = randomBytes(16).toString('base64')): string {
  return webviewDocument({
    csp: ["default-src 'none'", `style-src 'nonce-${nonce}'`, `script-src 'nonce-${nonce}'`, "img-src 'none'", "font-src 'none'"],
    title,
    head: `<style nonce="${nonce}">${STYLE}</style>`,
    body: `<main id="transcript" data-testid="transcript" aria-live="polite"></main>\n<script nonce="${nonce}">${SCRIPT}</script>`,
  });
}
