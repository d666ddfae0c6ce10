// `npm run bench [name…]`: the benchmarks (bench/run.ts) on a fresh clone.
// npm runs this script on whatever Node the user's npm uses (often an older
// one), before anything is installed: so it installs the npm dependencies
// (and with them Node 24), and the Chromium the Runs view benchmark renders
// in, then hands over to bench/run.ts on Node 24, which builds what the
// benchmarks measure. Plain ESM that runs on Node 20.
import { ensureSystemPackages } from './code-server.mjs';
import { ensureDependencies, node24, node24Env, run } from './env.mjs';

const wanted = process.argv.slice(2);
ensureDependencies();
if (wanted.length === 0 || wanted.includes('runsView')) {
  try {
    ensureSystemPackages(['chromium']);
  } catch (error) {
    console.error(`\n✕ The Runs view benchmark renders in Chromium: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
process.exit(run(node24(), ['--import', 'tsx', 'bench/run.ts', ...wanted], { env: node24Env() }));
