// Builds the four bundles the extension ships: the extension host entry, the
// CLI, the agent-file language server and the sidebar webview.
//   node scripts/build.mjs            development build (source maps)
//   node scripts/build.mjs --production  minified, no source maps (packaging)
//   node scripts/build.mjs --watch    rebuild on change
import * as esbuild from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const root = path.resolve(import.meta.dirname, '..');

/** @type {esbuild.BuildOptions} */
const nodeBundle = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // VS Code's extension host and our CLI both run on Node 22+; the SDK's
  // agent toolset needs it (native fs.glob).
  target: 'node22',
  minify: production,
  sourcemap: production ? false : 'linked',
  logLevel: 'warning',
  // Bundled, not external: the SDK loads @opentelemetry/api as soon as it
  // loads (a no-op unless a tracing SDK registers itself), and neither the
  // .vsix nor dist/cli.js ships node_modules.
  external: [],
};

const builds = [
  {
    ...nodeBundle,
    entryPoints: { extension: 'src/vscode/extension.ts' },
    outdir: 'dist',
    external: [...nodeBundle.external, 'vscode'],
  },
  {
    ...nodeBundle,
    entryPoints: { cli: 'src/cli/main.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    ...nodeBundle,
    entryPoints: { server: 'src/server/server.ts' },
    outdir: 'dist',
  },
  {
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    minify: production,
    sourcemap: production ? false : 'linked',
    logLevel: 'warning',
    entryPoints: { webview: 'webview-ui/src/main.ts' },
    outdir: 'dist',
    loader: { '.css': 'css' },
  },
];

async function copyCodicons() {
  const dir = path.dirname(require.resolve('@vscode/codicons/dist/codicon.css'));
  await mkdir(path.join(root, 'dist'), { recursive: true });
  await copyFile(path.join(dir, 'codicon.css'), path.join(root, 'dist/codicon.css'));
  await copyFile(path.join(dir, 'codicon.ttf'), path.join(root, 'dist/codicon.ttf'));
}

process.chdir(root);
await copyCodicons();
if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('watching for changes…');
} else {
  const started = Date.now();
  await Promise.all(builds.map((b) => esbuild.build(b)));
  console.log(`built dist/ in ${Date.now() - started} ms${production ? ' (production)' : ''}`);
}
