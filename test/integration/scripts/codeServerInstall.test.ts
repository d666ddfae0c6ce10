// `npm test` and `npm start` are usually started by a system npm on an older
// Node, which exports its config (npm_config_user_agent naming Node 20 …) to
// every child. code-server's postinstall reads the Node version from that
// variable, so an install that inherited it failed on every fresh machine.
// This installs a stand-in code-server package (same postinstall check, an
// entry script that answers --version) through the real ensureCodeServer and
// the real npm, from a hostile environment, offline.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { CODE_SERVER_VERSION } from '../../../scripts/code-server.mjs';
import { node24, node24Env } from '../../../scripts/env.mjs';
import { repoRoot } from '../../e2e/support/paths';

/** What an `npm test` started by npm 11 on Node 20 leaves in the environment. */
const HOSTILE = {
  npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
  npm_node_execpath: '/usr/bin/node',
  npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
  npm_config_nodedir: '/usr',
  npm_lifecycle_event: 'test',
  NODE: '/usr/bin/node',
  INIT_CWD: repoRoot,
};

/**
 * code-server's own check, as its postinstall.sh does it; then that npm read
 * the global npmrc the user's npm reads (registry, a proxy's `cafile`), which
 * npm on Node 24 would otherwise look for next to that Node.
 */
const POSTINSTALL = `#!/bin/sh
major=$(echo "$npm_config_user_agent" | sed -n 's/.*node\\/v\\([^.]*\\).*/\\1/p')
if [ "$major" != "24" ]; then
  echo "ERROR: code-server currently requires node v24."
  echo "We have detected that you are on node v$major"
  exit 1
fi
if [ -n "$EXPECTED_GLOBALCONFIG" ] && [ "$npm_config_globalconfig" != "$EXPECTED_GLOBALCONFIG" ]; then
  echo "ERROR: npm read the global npmrc $npm_config_globalconfig, the user's npm reads $EXPECTED_GLOBALCONFIG"
  exit 1
fi
case ":$PATH:" in
  *":$OUTER_BIN:"*) echo "ERROR: the outer project's $OUTER_BIN is still on PATH: $PATH"; exit 1 ;;
esac
`;

function fakeCodeServerTarball(dir: string): string {
  const pkg = path.join(dir, 'package');
  mkdirSync(path.join(pkg, 'out/node'), { recursive: true });
  writeFileSync(
    path.join(pkg, 'package.json'),
    JSON.stringify({ name: 'code-server', version: CODE_SERVER_VERSION, scripts: { postinstall: 'sh ./postinstall.sh' } }),
  );
  writeFileSync(path.join(pkg, 'postinstall.sh'), POSTINSTALL);
  writeFileSync(path.join(pkg, 'out/node/entry.js'), `console.log('${CODE_SERVER_VERSION} 0000000 with Code 1.139.1');\n`);
  const tarball = path.join(dir, `code-server-${CODE_SERVER_VERSION}.tgz`);
  execFileSync('tar', ['-czf', tarball, '-C', dir, 'package']);
  return tarball;
}

test('node24Env: Node 24 first on PATH, and no other node_modules folder an outer npm put there', () => {
  const node24Bin = path.dirname(node24());
  const outer = [path.join(repoRoot, 'node_modules/.bin'), '/usr/local/bin', path.join(repoRoot, 'webview-ui/node_modules/.bin'), '/usr/bin'].join(path.delimiter);
  const env = node24Env({ EXTRA: '1' }, { ...HOSTILE, PATH: outer, HOME: '/home/someone' });
  assert.equal(env.PATH, [node24Bin, '/usr/local/bin', '/usr/bin'].join(path.delimiter));
  assert.deepEqual(Object.keys(env).sort(), ['EXTRA', 'HOME', 'PATH']);
  assert.equal(node24Env({}, {}).PATH, node24Bin);
});

test('code-server installs from an environment an outer npm on Node 20 left behind', { timeout: 120_000 }, (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'subagents-install-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const tarball = fakeCodeServerTarball(dir);
  const cache = path.join(dir, 'cache');

  // The hazard is real: npm takes the inherited user agent as its own, and the postinstall refuses.
  const consumer = path.join(dir, 'consumer');
  mkdirSync(consumer);
  writeFileSync(path.join(consumer, 'package.json'), '{"name":"consumer","private":true}');
  const bare = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', tarball], {
    cwd: consumer,
    env: { ...node24Env(), ...HOSTILE },
    encoding: 'utf8',
  });
  assert.notEqual(bare.status, 0, 'a plain npm install with the inherited variables was expected to fail');
  assert.match(`${bare.stdout}${bare.stderr}`, /requires node v24[\s\S]*on node v20/);

  // ensureCodeServer, run the way npm test runs it.
  const script = `import(${JSON.stringify(path.join(repoRoot, 'scripts/code-server.mjs'))}).then((m) => {
    const cs = m.ensureCodeServer(${JSON.stringify(CODE_SERVER_VERSION)}, { spec: ${JSON.stringify(tarball)} });
    console.log(JSON.stringify(cs));
  });`;
  // What the user's npm reads, asked with a PATH where `node` is the system's own.
  const systemPath = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => !dir.includes(`${path.sep}node_modules${path.sep}`));
  const expected = execFileSync('npm', ['config', 'get', 'globalconfig'], { env: { PATH: systemPath.join(path.delimiter), HOME: process.env.HOME }, encoding: 'utf8' }).trim();
  const r = spawnSync(process.execPath, ['-e', script], {
    cwd: repoRoot,
    // As `npm test` runs it: node_modules/.bin and Node 24's folder first on PATH, so `node` there is Node 24.
    env: {
      ...process.env,
      ...HOSTILE,
      PATH: [path.join(repoRoot, 'node_modules/.bin'), path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
      XDG_CACHE_HOME: cache,
      EXPECTED_GLOBALCONFIG: expected,
      // What the outer npm put first on PATH, which the install must not inherit (npm adds the installed package's own).
      OUTER_BIN: path.join(repoRoot, 'node_modules/.bin'),
    },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `ensureCodeServer failed:\n${r.stdout}\n${r.stderr}`);
  const installed = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { node: string; entry: string; dir: string };
  assert.equal(installed.dir, path.join(cache, 'subagents-vscode', `code-server-${CODE_SERVER_VERSION}`));
  const version = execFileSync(installed.node, [installed.entry, '--version'], { encoding: 'utf8' });
  assert.match(version, new RegExp(`^${CODE_SERVER_VERSION.replace(/\./g, '\\.')} `));
});
