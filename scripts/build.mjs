// Builds the bundles the extension ships: the extension host entry, the CLI,
// the agent host, the agent-file language server and the sidebar webview.
//   node scripts/build.mjs            development build (source maps)
//   node scripts/build.mjs --production  minified, no source maps (packaging)
//   node scripts/build.mjs --watch    rebuild on change
import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';
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
  plugins: [withoutEsprima(), withoutAjv()],
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
 * The MCP SDK's HTTP and SSE transports load its OAuth client, which runs
 * only with an auth provider; the runtime gives none, so a stand-in
 * (src/core/mcp/withoutOAuth.ts) keeps about 20 KB out of dist/mcp.cjs.
 */
function withoutOAuth() {
  return {
    name: 'without-oauth',
    setup(build) {
      build.onResolve({ filter: /^\.\/auth\.js$/ }, (args) =>
        /@modelcontextprotocol[\\/]sdk[\\/].*[\\/]client$/.test(args.resolveDir) ? { path: path.join(root, 'src', 'core', 'mcp', 'withoutOAuth.ts') } : undefined,
      );
    },
  };
}

/**
 * The MCP SDK's client loads an Ajv JSON Schema validator as its default;
 * the runtime always passes its own (src/core/mcp/sdk.ts), so Ajv and its
 * formats (about 130 KB) are left out of the bundles for a stand-in.
 */
function withoutAjv() {
  return {
    name: 'without-ajv',
    setup(build) {
      build.onResolve({ filter: /validation[\\/]ajv-provider(\.js)?$/ }, (args) =>
        /@modelcontextprotocol[\\/]sdk/.test(args.importer) ? { path: path.join(root, 'src', 'core', 'mcp', 'withoutAjv.ts') } : undefined,
      );
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
    // `subagents agents --check-mcp` borrows the engine bundle's MCP host;
    // `subagents run` loads the engine only to run in its own process.
    const borrowers = ['agents.ts', 'run.ts'].map((name) => path.join('src', 'cli', 'commands', name));
    build.onResolve({ filter: /^\.\.\/engineCommands$/ }, (args) =>
      borrowers.some((file) => args.importer.endsWith(file)) ? { path: './cli-engine.cjs', external: true } : undefined,
    );
  },
};

/**
 * The engine commands take the agent catalog, the model names and the MCP
 * configuration core from dist/cli-agents.cjs (src/cli/agentsBundle.ts
 * exports them) rather than a second copy of discovery, which keeps the
 * .vsix within its size budget.
 */
const SHARED_WITH_ENGINE = [
  ...['catalog', 'modelNames'].map((name) => path.join(root, 'src', 'core', 'agents', name)),
  ...['agentField', 'configFiles', 'launch', 'limits', 'plan', 'serverEntries', 'spec', 'status', 'toolPatterns', 'variables'].map((name) => path.join(root, 'src', 'core', 'mcp', name)),
];
const sharedAgentsCore = {
  name: 'shared-agents-core',
  setup(build) {
    const names = new Set(SHARED_WITH_ENGINE.map((file) => path.basename(file)));
    build.onResolve({ filter: /^\.{1,2}\/.*[A-Za-z]$/ }, (args) =>
      names.has(path.basename(args.path)) && SHARED_WITH_ENGINE.includes(path.resolve(args.resolveDir, args.path)) ? { path: './cli-agents.cjs', external: true } : undefined,
    );
  },
};

/**
 * The MCP SDK client is a bundle of its own (dist/mcp.cjs), which the
 * extension and the CLI load when a server first starts: evaluating it
 * takes around 100 ms that no start-up should pay, one copy serves both, and
 * esbuild cannot lazily load part of a bundle that shares zod with the rest.
 */
const mcpSdkBundle = {
  name: 'mcp-sdk-bundle',
  setup(build) {
    build.onResolve({ filter: /^\.\/sdk$/ }, (args) =>
      args.importer.endsWith(path.join('src', 'core', 'mcp', 'connection.ts')) ? { path: './mcp.cjs', external: true } : undefined,
    );
  },
};

/**
 * dist/mcp.cjs takes zod from the bundle that loads it (the extension's or
 * the CLI's, which both carry zod 4 already) through a global the loader
 * sets (src/core/mcp/sharedZod.ts): a second copy would cost the .vsix
 * about 30 KB. The SDK's client needs zod 4 classic (`zod/v4`) and the
 * top-level parse functions of `zod/v4-mini`, which classic exports as
 * well; its `zod/v3` import is for servers built with zod 3 and never
 * reached by a client.
 */
function zodFromHost() {
  const shared = readFileSync(path.join(root, 'src/core/mcp/sharedZod.ts'), 'utf8');
  const names = [...shared.matchAll(/^ {2}(\w+): z\.\1,$/gm)].map((m) => m[1]);
  const fromHost = `const z = globalThis[Symbol.for('subagents.mcp.zod')];
if (!z) throw new Error('dist/mcp.cjs was loaded without zod: load it through src/core/mcp/connection.ts');
export const { ${names.join(', ')} } = z;`;
  // zod 3 is for servers whose tools are zod 3 schemas, which a client never builds.
  const zod3 = `const absent = () => { throw new Error('zod 3 is left out of dist/mcp.cjs'); };
export const object = absent;
export const ZodFirstPartyTypeKind = {};`;
  const contents = { zod: fromHost, 'zod/v4': fromHost, 'zod/v4-mini': fromHost, 'zod/v3': zod3 };
  return {
    name: 'zod-from-host',
    setup(build) {
      // An import of a name not shared is an error, not a function found undefined at run time.
      build.initialOptions.logOverride = { ...build.initialOptions.logOverride, 'import-is-undefined': 'error' };
      build.onResolve({ filter: /^zod(\/.*)?$/ }, (args) => {
        if (!(args.path in contents)) throw new Error(`${args.importer} imports ${args.path}; map it in zodFromHost() (scripts/build.mjs)`);
        return { path: args.path, namespace: 'zod-from-host' };
      });
      build.onLoad({ filter: /.*/, namespace: 'zod-from-host' }, (args) => ({
        contents: contents[args.path],
        loader: 'js',
      }));
    },
  };
}

/**
 * The agent host (dist/host.js) runs the engine of dist/cli-engine.cjs, which
 * the .vsix and the npm package ship already: its own bundle holds only the
 * host's server and lifetime, and the .vsix stays within its size budget.
 */
const runtimeFromEngineBundle = {
  name: 'runtime-from-engine-bundle',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/core\/runtime\/runtime$/ }, (args) =>
      args.importer.endsWith(path.join('src', 'host', 'main.ts')) ? { path: './cli-engine.cjs', external: true } : undefined,
    );
  },
};

/** When this was built: an agent host older than a window's extension hands over to one of the window's build. */
const buildStamp = { SUBAGENTS_BUILD: JSON.stringify(new Date().toISOString()) };

const builds = [
  {
    ...nodeBundle,
    entryPoints: { extension: 'src/vscode/extension.ts' },
    outdir: 'dist',
    define: { ...nodeBundle.define, ...buildStamp },
    external: [...nodeBundle.external, 'vscode'],
    plugins: [...nodeBundle.plugins, mcpSdkBundle],
  },
  {
    ...nodeBundle,
    entryPoints: { mcp: 'src/core/mcp/sdk.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
    plugins: [...nodeBundle.plugins, zodFromHost(), withoutOAuth()],
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
    // `subagents run` is here too (the host client's build stamp).
    define: { ...nodeBundle.define, ...buildStamp },
    outExtension: { '.js': '.cjs' },
    plugins: [...nodeBundle.plugins, cliCommandBundles],
  },
  {
    ...nodeBundle,
    entryPoints: { 'cli-engine': 'src/cli/engineCommands.ts' },
    outdir: 'dist',
    define: { ...nodeBundle.define, ...buildStamp },
    outExtension: { '.js': '.cjs' },
    plugins: [...nodeBundle.plugins, sharedAgentsCore, mcpSdkBundle],
  },
  {
    ...nodeBundle,
    entryPoints: { server: 'src/server/server.ts' },
    outdir: 'dist',
  },
  {
    ...nodeBundle,
    entryPoints: { host: 'src/host/main.ts' },
    outdir: 'dist',
    define: { ...nodeBundle.define, ...buildStamp },
    plugins: [...nodeBundle.plugins, runtimeFromEngineBundle],
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
