// Builds the four bundles the extension ships: the extension host entry, the
// CLI, the agent-file language server and the sidebar webview.
//   node scripts/build.mjs            development build (source maps)
//   node scripts/build.mjs --production  minified, no source maps (packaging)
//   node scripts/build.mjs --watch    rebuild on change
import * as esbuild from 'esbuild';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
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
  plugins: [withoutEsprima()],
  // jsonc-parser's `main` is a UMD build whose factory requires its own
  // modules at run time, which a bundle cannot resolve; its ESM build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // These bundles run in Node, never in a browser. Libraries that sniff for
  // one (the SDK's browser detection, zod's eval check) read `navigator`, and
  // VS Code's extension host defines it as a getter that logs a
  // PendingMigrationError each time: the sniffing is settled at build time.
  define: { navigator: 'undefined', 'globalThis.navigator': 'undefined' },
};

/**
 * js-yaml (under gray-matter) loads esprima, when it finds it, for
 * `!!js/function` tags, which the safe schema we parse with never accepts;
 * reading and evaluating its 280 KB would cost every start wherever
 * node_modules is at hand. Its loader is made to find nothing, which js-yaml
 * expects and tolerates (as in a browser).
 */
function withoutEsprima() {
  return {
    name: 'without-esprima',
    setup(build) {
      build.onLoad({ filter: /js-yaml[\\/]lib[\\/]js-yaml[\\/]type[\\/]js[\\/]function\.js$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        const patched = source.replace("esprima = _require('esprima');", "esprima = undefined; throw new Error('esprima is left out');");
        if (patched === source) throw new Error(`${args.path}: the esprima loader moved; update withoutEsprima() in scripts/build.mjs`);
        return { contents: patched, loader: 'js' };
      });
    },
  };
}

/**
 * The CLI's dispatcher loads its commands lazily; in the build each group is
 * a bundle of its own, so `subagents agents` never evaluates the SDK.
 */
const cliCommandBundles = {
  name: 'cli-command-bundles',
  setup(build) {
    const bundles = { './agentsBundle': './cli-agents.cjs', './engineCommands': './cli-engine.cjs' };
    build.onResolve({ filter: /^\.\/(agentsBundle|engineCommands)$/ }, (args) =>
      args.importer.endsWith(path.join('src', 'cli', 'commands.ts')) ? { path: bundles[args.path], external: true } : undefined,
    );
  },
};

/**
 * The engine commands take the agent catalog and model names from
 * dist/cli-agents.cjs (src/cli/agentsBundle.ts exports them) rather than a
 * second copy of discovery, which keeps the .vsix within its size budget.
 */
const sharedAgentsCore = {
  name: 'shared-agents-core',
  setup(build) {
    const shared = ['catalog', 'modelNames'].map((name) => path.join(root, 'src', 'core', 'agents', name));
    build.onResolve({ filter: /(^|\/)(catalog|modelNames)$/ }, (args) =>
      shared.includes(path.resolve(args.resolveDir, args.path)) ? { path: './cli-agents.cjs', external: true } : undefined,
    );
  },
};

const builds = [
  {
    ...nodeBundle,
    entryPoints: { extension: 'src/vscode/extension.ts' },
    outdir: 'dist',
    external: [...nodeBundle.external, 'vscode'],
  },
  // The CLI: a small launcher (dist/cli.js) that turns on V8's compile
  // cache before it loads the CLI proper (dist/cli-main.cjs), which a cache
  // can only help if it is loaded after the cache is on.
  {
    ...nodeBundle,
    entryPoints: { cli: 'src/cli/bin.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
    external: [...nodeBundle.external, './cli-main.cjs'],
  },
  // `.cjs`: Node loads them as CommonJS without first scanning them for ESM syntax.
  {
    ...nodeBundle,
    entryPoints: { 'cli-main': 'src/cli/main.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
    plugins: [...nodeBundle.plugins, cliCommandBundles],
  },
  {
    ...nodeBundle,
    entryPoints: { 'cli-agents': 'src/cli/agentsBundle.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
  },
  {
    ...nodeBundle,
    entryPoints: { 'cli-engine': 'src/cli/engineCommands.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
    plugins: [...nodeBundle.plugins, sharedAgentsCore],
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
