import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { globSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, node24 } from '../../scripts/env.mjs';

// The npm package is how the CLI is installed (`npm install -g` from a clone
// or a packed tarball, `npx`): it must hold the built CLI and nothing of the
// sources, and install and run with nothing fetched, since the bundles hold
// every dependency. Run after the package phase has built dist/.

const root = path.join(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };

/** npm as a user's shell would run it: none of the outer npm's variables, a cache of the test's own. */
function npm(args: string[], cwd: string, cache: string) {
  const r = spawnSync('npm', [...args, '--cache', cache, '--no-audit', '--no-fund', '--no-update-notifier'], { cwd, env: cleanEnv(), encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `npm ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test('package.json has no runtime dependencies: the bundles in dist/ hold them all', () => {
  // A dependency listed here would be fetched by every `npm install -g` of the CLI for nothing;
  // add libraries to devDependencies (esbuild bundles them).
  assert.deepEqual(pkg.dependencies ?? {}, {});
});

test('npm pack holds the built CLI, server, extension and bundled agents, and no sources or tests', (t) => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'subagents-npm-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const [packed] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], root, path.join(tmp, 'cache'))) as Array<{ files: Array<{ path: string }> }>;
  const files = packed!.files.map((f) => f.path).sort();
  for (const required of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist/cli.js', 'dist/cli-main.cjs', 'dist/cli-agents.cjs', 'dist/cli-run.cjs', 'dist/engine.cjs', 'dist/zod.cjs', 'dist/server.js', 'dist/extension.js', 'agents/general-purpose.md']) {
    assert.ok(files.includes(required), `${required} is not in the package`);
  }
  assert.deepEqual(files.filter((f) => /^(src|test|scripts|bench|webview-ui|docs|node_modules)\//.test(f) || f.endsWith('.map')), []);
});

test('the npm package holds exactly what .vscodeignore lets into the .vsix', (t) => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'subagents-npm-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const [packed] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], root, path.join(tmp, 'cache'))) as Array<{ files: Array<{ path: string }> }>;
  // .vscodeignore is `**` followed by one `!pattern` per thing that ships.
  const allowed = readFileSync(path.join(root, '.vscodeignore'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('!'))
    .map((line) => line.slice(1));
  const vsix = globSync(allowed, { cwd: root }).filter((f) => statSync(path.join(root, f)).isFile()).sort();
  assert.deepEqual(packed!.files.map((f) => f.path).sort(), vsix, '.npmignore and .vscodeignore disagree');
});

test('installed from a packed tarball into an empty prefix, `subagents` runs with nothing fetched', (t) => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'subagents-npm-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const cache = path.join(tmp, 'cache');
  npm(['pack', '--ignore-scripts', '--pack-destination', tmp], root, cache);
  const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack made no tarball');
  const prefix = path.join(tmp, 'prefix');
  npm(['install', '--global', '--offline', '--prefix', prefix, path.join(tmp, tarball)], tmp, cache);
  const bin = path.join(prefix, 'bin', 'subagents');
  const env = { ...cleanEnv(), PATH: `${path.dirname(node24())}${path.delimiter}${process.env.PATH ?? ''}`, HOME: tmp, XDG_CACHE_HOME: path.join(tmp, 'xdg-cache') };
  const help = spawnSync(bin, ['--help'], { env, encoding: 'utf8' });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: subagents <command>/);
  const listing = spawnSync(bin, ['agents', '--json', '--cwd', tmp], { env, encoding: 'utf8' });
  assert.equal(listing.status, 0, listing.stderr);
  const agents = (JSON.parse(listing.stdout) as { agents: Array<{ name: string; filePath: string }> }).agents;
  assert.deepEqual(agents.map((a) => a.name).sort(), ['explore', 'general-purpose', 'plan', 'reviewer']);
  assert.ok(agents.every((a) => a.filePath.startsWith(path.join(prefix, 'lib', 'node_modules', 'subagents', 'agents'))), 'the bundled agents come from the installed package');
});
