import { randomBytes } from 'node:crypto';

/**
 * The Runs view's document (S7.4): nothing loads by default; styles, fonts
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
  const csp = [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('codicon.css')}">
<link rel="stylesheet" href="${asset('webview.css')}">
<title>Runs</title>
</head>
<body>
<div id="root" data-testid="runs-view-root"></div>
<script nonce="${nonce}" src="${asset('webview.js')}"></script>
</body>
</html>`;
}
