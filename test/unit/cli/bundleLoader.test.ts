import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The CLI's bundles load through a code cache made after the command ran (src/cli/bundleLoader.ts).

const LOADER = path.resolve(import.meta.dirname, '../../../src/cli/bundleLoader.ts');

function fixture(t: { after(fn: () => void): void }) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'subagents-bundles-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dist = path.join(root, 'dist');
  const cache = path.join(root, 'cache');
  writeFileSync(path.join(root, 'package.json'), '{}');
  mkdirSync(dist);
  // A function compiled only when called (V8 compiles lazily): what a cache made before running would not hold.
  const body = Array.from({ length: 400 }, (_, i) => `  total += Math.sqrt(${i}) * ${i};`).join('\n');
  writeFileSync(path.join(dist, 'main.cjs'), `const other = require('./other.cjs');\nconst path = require('node:path');\nconst work = { run() { let total = 0;\n${body}\n  return Math.round(total); } };\nexports.answer = () => [other.twice(21), work.run() > 0, path.basename(__filename), typeof module.exports];\n`);
  writeFileSync(path.join(dist, 'other.cjs'), 'exports.twice = (n) => n * 2;\nexports.loadedAs = module.id;\n');
  writeFileSync(path.join(dist, 'broken.cjs'), 'throw new Error("broken at load");\n');
  return { root, dist, cache };
}

/** Loads `bundle` in a fresh Node through the loader, as dist/cli.js does, and prints what it found. */
function load(dist: string, cache: string, bundle: string, extraEnv: NodeJS.ProcessEnv = {}, purpose = 'agents') {
  const script = `
import { BundleLoader } from ${JSON.stringify(LOADER)};
import { createRequire } from 'node:module';
import path from 'node:path';
const loader = BundleLoader.forProcess(['node', 'cli.js', ${JSON.stringify(purpose)}], { HOME: '/nonexistent', XDG_CACHE_HOME: ${JSON.stringify(cache)}, ...${JSON.stringify(extraEnv)} });
const file = path.join(${JSON.stringify(dist)}, ${JSON.stringify(bundle)});
let out;
try {
  const exports = loader.load(file);
  const cache = createRequire(file).cache;
  out = { answer: exports.answer(), sameTwice: loader.load(file) === exports, cached: Object.keys(cache).filter((f) => f.startsWith(${JSON.stringify(dist)})).map((f) => path.basename(f)).sort() };
} catch (error) {
  out = { error: error.message, cached: Object.keys(createRequire(file).cache).filter((f) => f.startsWith(${JSON.stringify(dist)})).map((f) => path.basename(f)) };
}
console.log(JSON.stringify(out));`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH } });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { answer?: unknown[]; sameTwice?: boolean; cached: string[]; error?: string };
}

const cacheFiles = (cache: string) => readdirSync(path.join(cache, 'subagents', 'code')).sort();

test('a bundle and the bundles it requires load as modules of Node\'s cache, once, and run as Node would run them', (t) => {
  const { dist, cache } = fixture(t);
  const first = load(dist, cache, 'main.cjs');
  assert.deepEqual(first.answer, [42, true, 'main.cjs', 'object']);
  assert.equal(first.sameTwice, true);
  assert.deepEqual(first.cached, ['main.cjs', 'other.cjs']);
});

test('the cache is made at exit, holds the functions the command ran, and the next process takes it', (t) => {
  const { dist, cache } = fixture(t);
  load(dist, cache, 'main.cjs');
  const files = cacheFiles(cache);
  assert.equal(files.length, 2, files.join(', '));
  assert.ok(files.every((f) => /^(main|other)\.cjs\.agents\.v\d+/.test(f)), files.join(', '));
  const mainCache = files.find((f) => f.startsWith('main.cjs'))!;
  // Made before running, a cache holds only the top level (a few hundred bytes here); made at exit, the called function too.
  assert.ok(statSync(path.join(cache, 'subagents', 'code', mainCache)).size > 4000, `the cache holds the function run (${statSync(path.join(cache, 'subagents', 'code', mainCache)).size} bytes)`);
  const before = statSync(path.join(cache, 'subagents', 'code', mainCache)).mtimeMs;
  // The second process takes the cache V8 accepts, and writes nothing.
  assert.deepEqual(load(dist, cache, 'main.cjs').answer, [42, true, 'main.cjs', 'object']);
  assert.deepEqual(cacheFiles(cache), files);
  assert.equal(statSync(path.join(cache, 'subagents', 'code', mainCache)).mtimeMs, before);
});

test('each command has its own cache, and a changed bundle gets a new one in place of the old', (t) => {
  const { dist, cache } = fixture(t);
  load(dist, cache, 'main.cjs', {}, 'agents');
  load(dist, cache, 'main.cjs', {}, 'run');
  assert.equal(cacheFiles(cache).filter((f) => f.startsWith('other.cjs')).length, 2);
  // The same length, other code: V8 would run an old cache of it (it checks only the length), so the name must change.
  writeFileSync(path.join(dist, 'other.cjs'), 'exports.twice = (n) => n * 3;\nexports.loadedAs = module.id;\n');
  const after = load(dist, cache, 'main.cjs', {}, 'agents');
  assert.deepEqual(after.answer?.[0], 63);
  const others = cacheFiles(cache).filter((f) => f.startsWith('other.cjs.agents.'));
  assert.equal(others.length, 1, `the old build's cache is removed: ${others.join(', ')}`);
  assert.deepEqual(load(dist, cache, 'main.cjs', {}, 'agents').answer?.[0], 63);
});

test('a cache V8 refuses is made again; a bundle that throws at load is not left half-loaded; NODE_DISABLE_COMPILE_CACHE=1 writes none', (t) => {
  const { dist, cache } = fixture(t);
  load(dist, cache, 'main.cjs');
  const dir = path.join(cache, 'subagents', 'code');
  const mainCache = cacheFiles(cache).find((f) => f.startsWith('main.cjs'))!;
  writeFileSync(path.join(dir, mainCache), 'not a code cache');
  assert.deepEqual(load(dist, cache, 'main.cjs').answer, [42, true, 'main.cjs', 'object']);
  assert.ok(statSync(path.join(dir, mainCache)).size > 4000, 'the refused cache was made again');

  const broken = load(dist, cache, 'broken.cjs');
  assert.equal(broken.error, 'broken at load');
  assert.deepEqual(broken.cached, []);

  const off = path.join(cache, 'off');
  assert.deepEqual(load(dist, off, 'main.cjs', { NODE_DISABLE_COMPILE_CACHE: '1' }).answer, [42, true, 'main.cjs', 'object']);
  assert.throws(() => readdirSync(path.join(off, 'subagents', 'code')), /ENOENT/);
});
