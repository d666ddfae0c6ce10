// Builds the bundles the extension ships: the extension host entry, the CLI,
// the agent host, the agent-file language server and the sidebar webview.
//   node scripts/build.mjs            development build (source maps)
//   node scripts/build.mjs --production  minified, no source maps (packaging)
//   node scripts/build.mjs --watch    rebuild on change
import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
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
  plugins: [withoutEsprima(), withoutAjv(), lazyModules()],
  // jsonc-parser's `main` is a UMD build whose factory requires its own
  // modules at run time, which a bundle cannot resolve; its ESM build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // These bundles run in Node, never in a browser. Libraries that sniff for
  // one (the SDK's browser detection, zod's eval check) read `navigator`, and
  // VS Code's extension host defines it as a getter that logs a
  // PendingMigrationError each time: the sniffing is settled at build time.
  define: { navigator: 'undefined', 'globalThis.navigator': 'undefined' },
  // A lazily loaded bundle (`import('./engineCommands')` → ./engine.cjs) is
  // loaded with require: an import() would take it through Node's ESM
  // loader, which first scans the whole CommonJS file for its export names.
  supported: { 'dynamic-import': false },
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
    const bundles = { './agentsBundle': './cli-agents.cjs', './runBundle': './cli-run.cjs', './engineCommands': './engine.cjs' };
    build.onResolve({ filter: /^\.\/(agentsBundle|runBundle|engineCommands)$/ }, (args) =>
      args.importer.endsWith(path.join('src', 'cli', 'commands.ts')) ? { path: bundles[args.path], external: true } : undefined,
    );
    // `subagents agents --check-mcp` borrows the engine bundle's MCP host;
    // `subagents run` loads the engine only to run in its own process.
    const borrowers = ['agents.ts', 'run.ts'].map((name) => path.join('src', 'cli', 'commands', name));
    build.onResolve({ filter: /^\.\.\/engineCommands$/ }, (args) =>
      borrowers.some((file) => args.importer.endsWith(file)) ? { path: './engine.cjs', external: true } : undefined,
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

/** When this was built: an agent host older than a window's extension hands over to one of the window's build. */
const buildStamp = { SUBAGENTS_BUILD: JSON.stringify(new Date().toISOString()) };

/**
 * Modules that most commands never use but that the sources import at their
 * top: Node's child_process, net, crypto, readline (their loading pulls in
 * streams, sockets and the crypto bindings) and yaml (Roo Code's
 * .roomodes only). Imported from the sources, each is a stand-in whose
 * exports load the module on first use, so `subagents agents` does not pay
 * for what a run or a .roomodes file needs. Named imports stay live
 * property reads (esbuild reads a CommonJS module's exports at each use),
 * so functions keep their own properties (util.promisify's custom form).
 *
 * zod is such a module too, with its own bundle (see zodBundle): its
 * stand-ins load dist/zod.cjs, so a command that validates nothing (a
 * listing with no settings file) never evaluates it, and every bundle that
 * does shares the one copy.
 */
const LAZY_MODULES = ['node:child_process', 'node:net', 'node:crypto', 'node:readline/promises', 'node:worker_threads', 'node:perf_hooks', 'node:fs/promises', 'node:timers/promises', 'yaml'];
/** zod's entry points the sources import, each by the export of dist/zod.cjs that holds it. */
const ZOD_ENTRIES = { zod: 'classic', 'zod/mini': 'mini' };
/**
 * zod's exports dist/zod.cjs does not hand out: its translated error
 * messages (about 300 KB, which nothing here loads; the English ones are
 * built in) and the namespaces that hold everything again (`z`, its default
 * export, `core`), which would keep them. The sources import zod's
 * functions (`import * as z from 'zod'`, then z.object…), never these.
 */
const LEFT_OUT_OF_ZOD = new Set(['locales', 'z', 'default', 'core']);
async function zodNames(specifier) {
  return Object.keys(await import(specifier)).filter((n) => !LEFT_OUT_OF_ZOD.has(n));
}

function lazyModules() {
  return {
    name: 'lazy-modules',
    setup(build) {
      const own = createRequire(path.join(root, 'package.json'));
      const names = new Map();
      const specifiers = [...LAZY_MODULES, ...Object.keys(ZOD_ENTRIES)];
      const filter = new RegExp(`^(${specifiers.map((s) => s.replace(/[/]/g, '\\/')).join('|')})$`);
      build.onResolve({ filter }, (args) =>
        (args.namespace === 'file' && args.importer.startsWith(srcRoot)) || args.namespace === 'shared-bundle-entry' ? { path: args.path, namespace: 'lazy-module' } : undefined,
      );
      // What a zod stand-in loads: the bundle beside this one, at run time.
      build.onResolve({ filter: /^\.\/zod\.cjs$/, namespace: 'lazy-module' }, (args) => ({ path: args.path, external: true }));
      build.onLoad({ filter: /.*/, namespace: 'lazy-module' }, async (args) => {
        const zod = ZOD_ENTRIES[args.path];
        if (!names.has(args.path)) names.set(args.path, zod ? await zodNames(args.path) : Object.keys(own(args.path)).filter((n) => n !== 'default' && n !== '__esModule'));
        const load = zod ? `require("./zod.cjs").${zod}` : `require(${JSON.stringify(args.path)})`;
        return {
          contents: [
            'let loaded;',
            `const real = () => (loaded ??= ${load});`,
            'const lazy = {};',
            `for (const name of ${JSON.stringify(names.get(args.path))}) Object.defineProperty(lazy, name, { enumerable: true, get: () => real()[name] });`,
            'module.exports = lazy;',
          ].join('\n'),
          loader: 'js',
          resolveDir: root,
        };
      });
    },
  };
}

/**
 * dist/zod.cjs: zod classic and zod mini (which share zod's core), for the
 * stand-ins of lazyModules to load. An entry of named imports, not the
 * namespaces, so what LEFT_OUT_OF_ZOD names stays out of the bundle.
 */
async function zodBundle() {
  const parts = [];
  for (const [specifier, name] of Object.entries(ZOD_ENTRIES)) {
    const kept = await zodNames(specifier);
    parts.push(
      `import { ${kept.map((n) => `${n} as ${name}_${n}`).join(', ')} } from ${JSON.stringify(specifier)};`,
      `export const ${name} = { ${kept.map((n) => `${JSON.stringify(n)}: ${name}_${n}`).join(', ')} };`,
    );
  }
  return {
    ...nodeBundle,
    stdin: { contents: parts.join('\n'), resolveDir: root, sourcefile: 'zod-bundle-entry.js', loader: 'js' },
    outfile: 'dist/zod.cjs',
    plugins: [],
  };
}

/**
 * Shared bundles: every module is in the package once. dist/cli-agents.cjs
 * (discovery, settings, the protocol: what `subagents agents` and a `run`
 * through the agent host need) and dist/engine.cjs (the engine, the SDK, the
 * engine commands) are each built with a table of the modules they hold:
 * source files by their path in the repository, packages by the name the
 * sources import them by. A bundle built after one of them (the engine after
 * the agents core; the extension, the agent host and the language server
 * after both) gets, for each module the table has, a stand-in that takes
 * the module from that bundle at run time instead of a copy of its own. So
 * the extension, the CLI and the host run one engine, the .vsix carries it
 * once, and a module's state (a class, a cache) exists once per process.
 */
const borrowedPrefix = 'borrowed:';
function borrowFrom(lenders) {
  const isBare = (specifier) => !/^[./]/.test(specifier) && !specifier.startsWith('node:');
  return {
    name: 'borrow-from-shared-bundles',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.borrowing || args.kind === 'entry-point' || args.path.startsWith('node:')) return undefined;
        // The sources' imports, and what a lazy stand-in (lazyModules) loads.
        if (!(args.namespace === 'file' && args.importer.startsWith(srcRoot)) && !(args.namespace === 'lazy-module' && isBare(args.path))) return undefined;
        let key = args.path;
        if (!isBare(args.path)) {
          const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { borrowing: true } });
          if (resolved.errors.length > 0 || resolved.external) return undefined;
          key = moduleKey(resolved.path);
        }
        const lender = lenders.find((l) => l.keys.has(key));
        return lender ? { path: key, namespace: 'borrowed', pluginData: lender.file } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: 'borrowed' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.pluginData)}).__borrow(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
      build.onResolve({ filter: /^\.\/[\w-]+\.cjs$/, namespace: 'borrowed' }, (args) => ({ path: args.path, external: true }));
    },
  };
}

const srcRoot = path.join(root, 'src') + path.sep;
const moduleKey = (file) => path.relative(root, file).split(path.sep).join('/');

/**
 * Builds a shared bundle: first the graph of its entry (nothing written),
 * then the bundle itself from an entry that exports the entry's own exports
 * and `__borrow(key)`, which hands out each module of the graph.
 */
async function sharedBundle(options, lenders) {
  const [[name, entry]] = Object.entries(options.entryPoints);
  const plugins = [...options.plugins, borrowFrom(lenders)];
  const graph = await esbuild.build({ ...options, plugins, write: false, metafile: true, minify: false, sourcemap: false });
  const keys = new Set();
  for (const [file, input] of Object.entries(graph.metafile.inputs)) {
    if (!file.startsWith('src/')) continue;
    keys.add(file);
    for (const used of input.imports) {
      if (!used.external && used.original && !/^[./]/.test(used.original) && !used.original.startsWith('node:') && !used.path.startsWith(borrowedPrefix) && !(used.original in ZOD_ENTRIES)) keys.add(used.original);
    }
  }
  const table = [...keys];
  const imports = await Promise.all(table.map(async (key, i) => {
    if (key.startsWith('src/')) return `import * as m${i} from ${JSON.stringify(path.join(root, key))};`;
    return `import * as m${i} from ${JSON.stringify(key)};`;
  }));
  const contents = [
    `export * from ${JSON.stringify(path.join(root, entry))};`,
    ...imports,
    `const modules = { ${table.map((key, i) => `${JSON.stringify(key)}: m${i}`).join(', ')} };`,
    'const handedOut = new Map();',
    '/** A module of this bundle, for a bundle built to take it from here (scripts/build.mjs). */',
    'export function __borrow(key) {',
    '  let out = handedOut.get(key);',
    '  if (out) return out;',
    '  const ns = modules[key];',
    '  if (!ns) throw new Error(`${key} is not in ${__filename}: rebuild dist/ (node scripts/build.mjs)`);',
    "  out = Object.defineProperty({}, '__esModule', { value: true });",
    "  for (const name of Object.keys(ns)) if (name !== '__esModule') Object.defineProperty(out, name, { enumerable: true, get: () => ns[name] });",
    '  handedOut.set(key, out);',
    '  return out;',
    '}',
  ].join('\n');
  const tableEntry = {
    name: 'shared-bundle-entry',
    setup(build) {
      build.onResolve({ filter: /^shared-bundle-entry$/ }, () => ({ path: name, namespace: 'shared-bundle-entry' }));
      build.onLoad({ filter: /.*/, namespace: 'shared-bundle-entry' }, () => ({ contents, loader: 'js', resolveDir: root }));
    },
  };
  await build({ ...options, entryPoints: { [name]: 'shared-bundle-entry' }, plugins: [tableEntry, ...plugins] });
  return { file: `./${name}${options.outExtension?.['.js'] ?? '.js'}`, keys };
}

// Built each on its own, at once.
const independent = [
  {
    ...nodeBundle,
    entryPoints: { mcp: 'src/core/mcp/sdk.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
    plugins: [...nodeBundle.plugins, zodFromHost(), withoutOAuth()],
  },
  // The CLI: a small launcher (dist/cli.js) that loads the CLI proper
  // (dist/cli-main.cjs) and the bundles it asks for through a code cache of
  // its own (src/cli/bundleLoader.ts).
  {
    ...nodeBundle,
    entryPoints: { cli: 'src/cli/bin.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
  },
  // `.cjs`: Node loads them as CommonJS without first scanning them for ESM syntax.
  // The dispatcher takes nothing from the shared bundles: it loads them only for the command that runs.
  {
    ...nodeBundle,
    entryPoints: { 'cli-main': 'src/cli/main.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
    plugins: [...nodeBundle.plugins, cliCommandBundles],
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

const agentsCore = {
  ...nodeBundle,
  entryPoints: { 'cli-agents': 'src/cli/agentsBundle.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  plugins: [...nodeBundle.plugins, cliCommandBundles],
};
const runClient = {
  ...nodeBundle,
  entryPoints: { 'cli-run': 'src/cli/runBundle.ts' },
  outdir: 'dist',
  // The host client's build stamp.
  define: { ...nodeBundle.define, ...buildStamp },
  outExtension: { '.js': '.cjs' },
  plugins: [...nodeBundle.plugins, cliCommandBundles],
};
const engine = {
  ...nodeBundle,
  entryPoints: { engine: 'src/cli/engineCommands.ts' },
  outdir: 'dist',
  define: { ...nodeBundle.define, ...buildStamp },
  outExtension: { '.js': '.cjs' },
  plugins: [...nodeBundle.plugins, mcpSdkBundle],
};
/** What takes the shared bundles' modules from them. */
const borrowers = [
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
    entryPoints: { host: 'src/host/main.ts' },
    outdir: 'dist',
    define: { ...nodeBundle.define, ...buildStamp },
  },
  {
    ...nodeBundle,
    entryPoints: { server: 'src/server/server.ts' },
    outdir: 'dist',
  },
];

/** What this build wrote to dist/, for `removeStaleBundles`. */
const written = new Set();

async function build(options) {
  const result = await esbuild.build({ ...options, metafile: true });
  for (const file of Object.keys(result.metafile.outputs)) written.add(path.resolve(root, file));
  return result;
}

async function buildAll() {
  written.clear();
  const rest = Promise.all([...independent, await zodBundle()].map((b) => build(b)));
  // Awaited below, after the shared bundles; until then a failure must not count as unhandled (it would end --watch).
  rest.catch(() => undefined);
  const shared = [];
  for (const lender of [agentsCore, runClient, engine]) shared.push(await sharedBundle(lender, [...shared]));
  await Promise.all(borrowers.map((b) => build({ ...b, plugins: [...b.plugins, borrowFrom(shared)] })));
  await rest;
  await removeStaleBundles();
}

/**
 * Deletes the bundles in dist/ this build did not write: one an older build
 * made under a name no longer used (as `cli-engine.cjs` was) would otherwise
 * be found by whatever looks for a module among the bundles (the package
 * test, the agent host's check of which bundle holds its paths) and be run
 * by nothing. The .vsix names its bundles one by one (.vscodeignore).
 */
async function removeStaleBundles() {
  const dist = path.join(root, 'dist');
  for (const entry of await readdir(dist, { withFileTypes: true })) {
    const file = path.join(dist, entry.name);
    if (entry.isFile() && /\.(c?js|css)(\.map)?$/.test(entry.name) && !entry.name.startsWith('codicon') && !written.has(file)) await rm(file, { force: true });
  }
}

async function copyCodicons() {
  const dir = path.dirname(require.resolve('@vscode/codicons/dist/codicon.css'));
  await mkdir(path.join(root, 'dist'), { recursive: true });
  await copyFile(path.join(dir, 'codicon.css'), path.join(root, 'dist/codicon.css'));
  await copyFile(path.join(dir, 'codicon.ttf'), path.join(root, 'dist/codicon.ttf'));
}

process.chdir(root);
await copyCodicons();
if (watch) {
  // The shared bundles' tables follow the import graph, so a change
  // rebuilds every bundle (a few seconds) rather than one.
  const { watch: watchFiles } = await import('node:fs');
  let timer;
  let running = Promise.resolve();
  const rebuild = () => {
    running = running.then(async () => {
      const started = Date.now();
      try {
        await buildAll();
        console.log(`rebuilt dist/ in ${Date.now() - started} ms`);
      } catch {
        // esbuild has printed the errors; the next change tries again.
      }
    });
  };
  await buildAll().catch(() => {});
  for (const dir of ['src', 'webview-ui/src']) {
    watchFiles(path.join(root, dir), { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(rebuild, 100);
    });
  }
  console.log('watching for changes…');
} else {
  const started = Date.now();
  await buildAll();
  console.log(`built dist/ in ${Date.now() - started} ms${production ? ' (production)' : ''}`);
}
