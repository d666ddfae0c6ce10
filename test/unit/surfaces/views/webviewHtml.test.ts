import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runsViewHtml } from '../../../../src/surfaces/views/webviewHtml';

// The Runs view's Content Security Policy, read from the HTML the extension
// gives the webview (not inferred from the absence of console errors).

const CSP_SOURCE = 'https://file+.vscode-resource.vscode-cdn.net';
const input = { cspSource: CSP_SOURCE, asset: (file: string) => `${CSP_SOURCE}/ext/dist/${file}` };

function policyOf(html: string): Map<string, string[]> {
  const metas = [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"\s*>/gi)];
  assert.equal(metas.length, 1, 'exactly one CSP meta element');
  assert.ok(html.indexOf(metas[0]![0]) < html.search(/<(script|link)\b/i), 'the policy comes before anything it governs');
  return new Map(
    metas[0]![1]!
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

test("the Runs view's CSP: default-src 'none', scripts only with this document's nonce, the rest only from the extension", () => {
  const html = runsViewHtml(input);
  const policy = policyOf(html);
  assert.deepEqual(policy.get('default-src'), ["'none'"]);
  const scriptSrc = policy.get('script-src');
  assert.equal(scriptSrc?.length, 1, `script-src allows only the nonce: ${scriptSrc?.join(' ')}`);
  const nonce = /^'nonce-([A-Za-z0-9+/=]{16,})'$/.exec(scriptSrc[0]!)?.[1];
  assert.ok(nonce, `script-src is a nonce: ${scriptSrc[0]}`);
  for (const name of ['style-src', 'font-src', 'img-src']) assert.deepEqual(policy.get(name), [CSP_SOURCE], name);
  assert.deepEqual([...policy.keys()].sort(), ['default-src', 'font-src', 'img-src', 'script-src', 'style-src']);
  assert.doesNotMatch(html, /unsafe-inline|unsafe-eval|\*/);

  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  assert.equal(scripts.length, 1);
  for (const [, attrs, body] of scripts) {
    assert.ok(attrs!.includes(` nonce="${nonce}"`), 'every script carries the nonce');
    assert.ok(attrs!.includes(` src="${CSP_SOURCE}/ext/dist/webview.js"`), attrs);
    assert.equal(body!.trim(), '', 'no inline script');
  }
  assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline event handlers');
  for (const [, href] of html.matchAll(/<link\b[^>]*href="([^"]*)"/gi)) assert.ok(href!.startsWith(`${CSP_SOURCE}/`), href);
});

test('each document gets a fresh nonce', () => {
  const nonces = new Set(Array.from({ length: 20 }, () => /'nonce-([^']+)'/.exec(runsViewHtml(input))![1]));
  assert.equal(nonces.size, 20);
});
