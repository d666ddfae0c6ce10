import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.join(import.meta.dirname, '../..');
const vsix = path.join(root, 'subagents.vsix');

/** The entry names of a zip file, from its central directory. */
function zipEntries(file: string): string[] {
  const buf = readFileSync(file);
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip file');
  const count = buf.readUInt16LE(eocd + 10);
  let offset = buf.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(offset) !== 0x02014b50) throw new Error('bad central directory');
    const nameLength = buf.readUInt16LE(offset + 28);
    const extraLength = buf.readUInt16LE(offset + 30);
    const commentLength = buf.readUInt16LE(offset + 32);
    names.push(buf.toString('utf8', offset + 46, offset + 46 + nameLength));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

test('the .vsix holds only what users need, and stays small', () => {
  assert.ok(existsSync(vsix), `${vsix} is missing: the package phase makes it (npm run package)`);
  const entries = zipEntries(vsix).filter((e) => e.startsWith('extension/')).map((e) => e.slice('extension/'.length));
  const allowed = [/^package\.json$/, /^readme\.md$/i, /^LICENSE\.txt$/, /^changelog\.md$/i, /^dist\/(extension|cli|server|host|webview)\.js$/, /^dist\/(cli-main|cli-agents|cli-run|engine|mcp|zod)\.cjs$/, /^dist\/(webview|codicon)\.css$/, /^dist\/codicon\.ttf$/, /^agents\/[\w-]+\.md$/, /^media\/[\w-]+\.(png|svg)$/];
  const unexpected = entries.filter((e) => !allowed.some((re) => re.test(e)));
  assert.deepEqual(unexpected, [], 'no sources, tests, maps, node_modules or caches');
  for (const required of ['package.json', 'readme.md', 'LICENSE.txt', 'changelog.md', 'dist/extension.js', 'dist/cli.js', 'dist/cli-main.cjs', 'dist/cli-agents.cjs', 'dist/cli-run.cjs', 'dist/engine.cjs', 'dist/mcp.cjs', 'dist/zod.cjs', 'dist/server.js', 'dist/host.js', 'dist/webview.js', 'agents/general-purpose.md', 'media/icon.png']) {
    assert.ok(entries.includes(required), `${required} is packaged`);
  }
  const sizeKB = statSync(vsix).size / 1024;
  // 1,000 KB (about 870 today): the bundles, codicons and agents, each module once. The engine (the SDK, the runtime) is in
  // dist/engine.cjs and discovery, settings and the protocol in dist/cli-agents.cjs, which the CLI, the agent host, the language server
  // and the extension all load instead of carrying copies (scripts/build.mjs, borrowFrom); a copy of the engine alone would take about
  // 200 KB of the .vsix again. markdown-it (the transcript view's safe Markdown) and the language client are the extension's own.
  assert.ok(sizeKB < 1000, `the .vsix is ${sizeKB.toFixed(0)} KB`);
});

test('the bundles never read `navigator`: in VS Code’s extension host each read logs a PendingMigrationError', { skip: !existsSync(path.join(root, 'dist/extension.js')) && 'run `npm run build` first' }, () => {
  for (const bundle of ['dist/extension.js', 'dist/server.js', 'dist/cli-main.cjs', 'dist/cli-agents.cjs', 'dist/cli-run.cjs', 'dist/engine.cjs']) {
    const code = readFileSync(path.join(root, bundle), 'utf8');
    const at = code.search(/\bnavigator\b/);
    assert.equal(at, -1, `${bundle} reads navigator: …${code.slice(Math.max(0, at - 80), at + 40)}…`);
  }
});

test('the Node bundles carry each library and the engine once: the extension, the CLI, the host and the language server share them', { skip: !existsSync(path.join(root, 'dist/extension.js')) && 'run `npm run build` first' }, () => {
  const bundles = readdirSync(path.join(root, 'dist')).filter((f) => /\.c?js$/.test(f) && f !== 'webview.js');
  const texts = new Map(bundles.map((f) => [f, readFileSync(path.join(root, 'dist', f), 'utf8')]));
  // A string each one's code holds, and where it belongs.
  const marks: Record<string, [mark: string, home: string]> = {
    'the Anthropic SDK': ['x-stainless-helper-method', 'engine.cjs'],
    'the engine': ['A base ref applies to an isolated run only', 'engine.cjs'],
    zod: ['Too big: expected', 'zod.cjs'],
    'agent-file discovery (js-yaml)': ['YAMLException', 'cli-agents.cjs'],
    "the agent host's paths": ['host-p${', 'cli-run.cjs'],
  };
  for (const [what, [mark, home]] of Object.entries(marks)) {
    const holders = [...texts].filter(([, text]) => text.includes(mark)).map(([file]) => file);
    assert.deepEqual(holders, [home], `${what} is in ${holders.join(', ') || 'no bundle'}`);
  }
});
