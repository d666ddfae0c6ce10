// Bundles the extension-host test suite (test/exthost/) into dist-test/exthost/:
// the extension host loads plain CommonJS, so the TypeScript runner (with
// mocha inside it) and each suite file become one bundle each, with `vscode`
// left to the host. Used by test/e2e/exthost.test.ts (code-server) and
// test/exthost/runElectron.ts (desktop VS Code).
//   node scripts/build-exthost-tests.mjs
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
export const outDir = path.join(root, 'dist-test/exthost');

export async function buildExthostTests() {
  // Each folder is a suite of its own: `suite` runs in a one-folder window, `multiRoot` in a two-folder workspace,
  // `mcp` in a folder whose .vscode/mcp.json configures an MCP server.
  const suites = ['suite', 'multiRoot', 'mcp'].flatMap((dir) =>
    readdirSync(path.join(root, 'test/exthost', dir))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => path.join(dir, f)),
  );
  rmSync(outDir, { recursive: true, force: true });
  const common = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    sourcemap: 'linked',
    logLevel: 'error',
    external: ['vscode'],
    // As in build.mjs: jsonc-parser's `main` is a UMD build esbuild cannot follow.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  };
  await Promise.all([
    esbuild.build({ ...common, entryPoints: { index: 'test/exthost/index.ts' }, outdir: outDir }),
    esbuild.build({
      ...common,
      entryPoints: Object.fromEntries(suites.map((f) => [f.replace(/\.ts$/, ''), path.join('test/exthost', f)])),
      outdir: outDir,
    }),
  ]);
  return { index: path.join(outDir, 'index.js'), suites: suites.length };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  // No top-level await: the TypeScript tests import this module through tsx.
  const started = Date.now();
  buildExthostTests().then(
    ({ suites }) => console.log(`built dist-test/exthost/ (${suites} suite files) in ${Date.now() - started} ms`),
    (e) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
