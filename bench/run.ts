/**
 * `npm run bench [name…]`: every benchmark (or the named ones), one after the
 * other, each in its own Node process so none warms another's caches. Results
 * land in bench/results/<name>.json; the README's table quotes them.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const dir = import.meta.dirname;
const all = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'run.ts').map((f) => f.replace(/\.ts$/, ''));
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length) {
  console.error(`Unknown benchmark(s): ${unknown.join(', ')}. There are: ${all.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length ? wanted : all) {
  console.log(`\n› ${name}`);
  // The lifecycle benchmark samples the heap after a forced collection.
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(dir, `${name}.ts`)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
