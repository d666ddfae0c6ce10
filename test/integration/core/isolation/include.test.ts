import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { WorktreeManager } from '../../../../src/core/isolation';
import { makeSandbox, type Sandbox } from './helpers';

const sandboxes: Sandbox[] = [];
after(() => sandboxes.forEach((sb) => sb.cleanup()));

function manager(sb: Sandbox, poolSize = 2): WorktreeManager {
  const m = new WorktreeManager({ stateDir: sb.stateDir, worktreesRoot: sb.worktreesRoot, poolSize: () => poolSize });
  after(() => m.dispose());
  return m;
}

function project(): Sandbox {
  const sb = makeSandbox({
    'README.md': '# demo\n',
    '.gitignore': ['.env', '*.local.json', 'secrets/', 'node_modules/', '.vscode/', 'debug.log', 'tracked-but-ignored.txt', ''].join('\n'),
    // A tracked file a pattern also matches: never copied.
    'config/app.local.json': '{"tracked": true}\n',
    '.worktreeinclude': ['# what the project needs to run', '.env', '*.local.json', '!dev.local.json', 'secrets/', '.vscode/launch.json', 'README.md', ''].join('\n'),
  });
  sandboxes.push(sb);
  sb.git(['add', '-f', 'config/app.local.json']);
  sb.git(['commit', '-q', '-m', 'track one local file']);
  sb.write('.env', 'API_URL=http://localhost\n');
  sb.write('packages/api/.env', 'PORT=1\n');
  sb.write('prod.local.json', '{"prod": 1}\n');
  sb.write('dev.local.json', '{"dev": 1}\n');
  sb.write('secrets/key.pem', 'KEY\n');
  sb.write('secrets/deep/cert.pem', 'CERT\n');
  sb.write('node_modules/pkg/.env', 'not wanted\n');
  sb.write('.vscode/launch.json', '{"launch": 1}\n');
  sb.write('.vscode/settings.json', '{"not": "listed"}\n');
  sb.write('debug.log', 'ignored, not listed\n');
  return sb;
}

test('.worktreeinclude copies the ignored files it matches into a new worktree, and nothing else', async () => {
  const sb = project();
  const before = sb.userState();
  const m = manager(sb);
  const rec = await m.create({ cwd: sb.repo, agentName: 'w', agentId: 'inc-1' });
  assert.deepEqual(
    [...rec.included].sort(),
    ['.env', '.vscode/launch.json', 'packages/api/.env', 'prod.local.json', 'secrets/deep/cert.pem', 'secrets/key.pem'],
  );
  assert.equal(sb.read('.env', rec.path), 'API_URL=http://localhost\n');
  assert.equal(sb.read('secrets/deep/cert.pem', rec.path), 'CERT\n');
  for (const absent of ['dev.local.json', 'node_modules', '.vscode/settings.json', 'debug.log']) assert.equal(sb.exists(absent, rec.path), false, absent);
  assert.equal(sb.read('config/app.local.json', rec.path), '{"tracked": true}\n', 'a tracked file comes from the commit, not copied');
  assert.equal(sb.git(['status', '--porcelain'], rec.path), '', 'copied files are ignored in the worktree too');
  assert.deepEqual({ ...sb.userState(), refs: '' }, { ...before, refs: '' }, 'status, index, stash and HEAD untouched');

  // The agent's branch never holds them.
  sb.write('work.txt', 'work\n', rec.path);
  const info = await m.finish('inc-1');
  assert.equal(info?.filesChanged, 1);
  assert.equal(sb.git(['ls-tree', '-r', '--name-only', rec.branch]).includes('.env'), false);
});

test('a reused worktree gets fresh copies: the user\'s current ones, none of the agent before\'s', async () => {
  const sb = project();
  const m = manager(sb);
  const first = await m.create({ cwd: sb.repo, agentName: 'w', agentId: 'inc-a' });
  sb.write('.env', 'CHANGED_BY_AGENT=1\n', first.path);
  sb.write('secrets/agent-made.pem', 'agent\n', first.path);
  assert.equal(await m.finish('inc-a'), null, 'changes to ignored files are not work');
  sb.write('.env', 'API_URL=http://staging\n');
  const second = await m.create({ cwd: sb.repo, agentName: 'w', agentId: 'inc-b' });
  assert.equal(second.path, first.path);
  assert.equal(sb.read('.env', second.path), 'API_URL=http://staging\n');
  assert.equal(sb.exists('secrets/agent-made.pem', second.path), false);
});

test('a file the base tracks is not copied over, and no copy goes through a symlink out of the worktree', async () => {
  const sb = project();
  // On the branch the agent starts from, `.env` is tracked and `link` is a symlink leading out of the worktree.
  sb.git(['checkout', '-q', '-b', 'tracks-env']);
  sb.git(['add', '-f', '.env']);
  symlinkSync(sb.root, path.join(sb.repo, 'outside'));
  sb.git(['add', 'outside']);
  sb.git(['commit', '-q', '-m', 'track .env and a symlink']);
  sb.git(['checkout', '-q', 'main']);
  sb.write('.env', 'API_URL=http://localhost\n');
  sb.write('.worktreeinclude', `${sb.read('.worktreeinclude')}outside/escape.local.json\n`);
  sb.write('outside/escape.local.json', '{}\n');
  const logs: string[] = [];
  const m = new WorktreeManager({ stateDir: sb.stateDir, worktreesRoot: sb.worktreesRoot, log: (level, msg) => logs.push(`${level}: ${msg}`) });
  after(() => m.dispose());
  const rec = await m.create({ cwd: sb.repo, agentName: 'w', agentId: 'inc-base', baseRef: 'tracks-env' });
  assert.equal(sb.git(['show', 'tracks-env:.env']), sb.read('.env', rec.path), 'the tracked .env of the base, not the user\'s copy');
  assert.ok(!rec.included.includes('.env'));
  assert.ok(logs.some((l) => /did not copy \.env \(the worktree's base tracks it/.test(l)), logs.join('\n'));
});
