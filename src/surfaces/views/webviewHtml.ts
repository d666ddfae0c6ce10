import { randomBytes } from 'node:crypto';

/**
 * The Runs view's document: nothing loads by default; styles, fonts
 * and images only from the extension's own files (the webview's `cspSource`);
 * scripts only with this document's nonce, fresh each time. Kept free of the
 * `vscode` module so a unit test can check the policy on the HTML itself.
 */
export interface WebviewHtmlInput {
  /** `webview.cspSource`. */
  cspSource: string;
  /** The webview URI of a file of `dist/`. */
  asset(file: string): string;
}

export function runsViewHtml({ cspSource, asset }: WebviewHtmlInput, nonce = randomBytes(16).toString('base64')): string {
  return webviewDocument({
    csp: ["default-src 'none'", `style-src ${cspSource}`, `font-src ${cspSource}`, `img-src ${cspSource}`, `script-src 'nonce-${nonce}'`],
    title: 'Runs',
    head: `<link rel="stylesheet" href="${asset('codicon.css')}">\n<link rel="stylesheet" href="${asset('webview.css')}">`,
    body: `<div id="root" data-testid="runs-view-root"></div>\n<script nonce="${nonce}" src="${asset('webview.js')}"></script>`,
  });
}

/** A webview's document under its Content-Security-Policy; `title` is escaped, `head` and `body` are ours. */
export function webviewDocument(parts: { csp: readonly string[]; title: string; head: string; body: string }): string {
  const title = parts.title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${parts.csp.join('; ')}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${parts.head}
<title>${title}</title>
</head>
<body>
${parts.body}
</body>
</html>`;
}
