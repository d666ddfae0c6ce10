/**
 * `npm run bench [name…]` (through scripts/bench.mjs): every benchmark (or
 * the named ones), one after the other, each in its own Node process so none
 * warms another's caches. Results land in bench/results/<name>.json; the
 * README's table quotes them.
 *
 * First the production build: the CLI, language-server and Runs view
 * benchmarks measure dist/ as it ships. Every benchmark runs on Node 24 (the
 * `node` package's), the Node VS Code users have, whichever Node started this.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { node24, node24Env, root } from '../scripts/env.mjs';

const dir = import.meta.dirname;
const all = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'run.ts').map((f) => f.replace(/\.ts$/, ''));
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length) {
  console.error(`Unknown benchmark(s): ${unknown.join(', ')}. There are: ${all.join(', ')}`);
  process.exit(2);
}
const env = node24Env();
console.log('› production build (node scripts/build.mjs --production)');
const build = spawnSync(node24(), ['scripts/build.mjs', '--production'], { cwd: root, env, stdio: 'inherit' });
if (build.status !== 0) {
  console.error(`✕ the production build failed (${build.error?.message ?? `exit ${build.status}`}); no benchmark ran`);
  process.exit(1);
}
let failed = 0;
for (const name of wanted.length ? wanted : all) {
  console.log(`\n› ${name}`);
  // The lifecycle benchmark samples the heap after a forced collection.
  const r = spawnSync(node24(), ['--expose-gc', '--import', 'tsx', path.join(dir, `${name}.ts`)], { cwd: root, env, stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.error(`✕ ${name} ${r.error ? `could not start: ${r.error.message}` : `failed (${r.signal ?? `exit ${r.status}`})`}`);
  }
}
if (failed) console.error(`\n${failed} benchmark(s) failed`);
process.exit(failed ? 1 : 0);
