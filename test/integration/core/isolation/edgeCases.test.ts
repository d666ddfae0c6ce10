import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { branchExists, makeSandbox, type Sandbox } from './helpers';

const sandboxes: Sandbox[] = [];
function sandbox(files?: Record<string, string>): Sandbox {
  const sb = makeSandbox(files);
  sandboxes.push(sb);
  return sb;
}
after(() => sandboxes.forEach((sb) => sb.cleanup()));

test('reopen: a follow-up continues in the same worktree, recreated from the branch after an apply', async () => {
  const sb = sandbox();
  const m = sb.manager();
  const rec = await m.create({ cwd: sb.repo, agentName: 'resumable', agentId: 'r1' });
  sb.write('one.txt', '1\n', rec.path);
  assert.equal((await m.finish('r1'))?.filesChanged, 1);

  const again = await m.reopen('r1');
  assert.equal(again.state, 'active');
  assert.equal(again.path, rec.path);
  sb.write('two.txt', '2\n', rec.path);
  assert.equal((await m.finish('r1'))?.filesChanged, 2, 'base..branch covers both rounds');

  await m.apply('r1');
  assert.equal(existsSync(rec.path), false, 'apply removes the folder');
  const third = await m.reopen('r1');
  assert.equal(sb.read('two.txt', third.path), '2\n', 'recreated with the earlier work');
  sb.write('three.txt', '3\n', third.path);
  assert.equal((await m.finish('r1'))?.filesChanged, 3);
  const second = await m.apply('r1');
  assert.deepEqual(second.updated, ['three.txt'], 'what was applied before is not applied twice');
  await m.discard('r1');
  await assert.rejects(m.reopen('r1'), /it is discarded/);
});

test('an agent that switches branches in its worktree: the subagents branch follows its work', async () => {
  const sb = sandbox();
  const m = sb.manager();
  const rec = await m.create({ cwd: sb.repo, agentName: 'wanderer', agentId: 'b1' });
  sb.git(['checkout', '-q', '-b', 'agent-own-branch'], rec.path);
  sb.write('w.txt', 'w\n', rec.path);
  const info = await m.finish('b1');
  assert.equal(info?.filesChanged, 1);
  assert.equal(sb.git(['show', `${rec.branch}:w.txt`]), 'w\n');
  assert.deepEqual((await m.apply('b1')).updated, ['w.txt']);
  sb.git(['branch', '-D', 'agent-own-branch']);
});

test('a worktree folder deleted by hand: finish keeps committed work from the branch, else cleans up', async () => {
  const sb = sandbox();
  const m = sb.manager();
  const empty = await m.create({ cwd: sb.repo, agentName: 'gone', agentId: 'd1' });
  rmSync(empty.path, { recursive: true, force: true });
  assert.equal(await m.finish('d1'), null);
  assert.equal(branchExists(sb, empty.branch), false);
  assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 1, 'registration pruned');

  const worked = await m.create({ cwd: sb.repo, agentName: 'gone', agentId: 'd2' });
  sb.write('kept.txt', 'k\n', worked.path);
  sb.git(['add', 'kept.txt'], worked.path);
  sb.git(['-c', 'user.name=A', '-c', 'user.email=a@b', 'commit', '-q', '-m', 'work'], worked.path);
  rmSync(worked.path, { recursive: true, force: true });
  assert.equal((await m.finish('d2'))?.filesChanged, 1);
  assert.equal(sb.git(['show', `${worked.branch}:kept.txt`]), 'k\n');
});

test('submodules are not initialised in the worktree, and the user’s stay untouched', async () => {
  const lib = sandbox({ 'lib.ts': 'export const lib = 1;\n' });
  const sb = sandbox();
  sb.git(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib.repo, 'vendor/lib']);
  sb.git(['commit', '-q', '-m', 'add submodule']);
  const before = sb.userState();

  const m = sb.manager();
  const rec = await m.create({ cwd: sb.repo, agentName: 'sub', agentId: 's1' });
  assert.ok(existsSync(path.join(rec.path, 'vendor/lib')), 'the submodule folder exists');
  assert.deepEqual(readdirSync(path.join(rec.path, 'vendor/lib')), [], '…but is empty (not initialised)');
  assert.equal(sb.read('.gitmodules', rec.path).includes('vendor/lib'), true);
  assert.equal(await m.finish('s1'), null, 'an uninitialised submodule is no change');
  assert.deepEqual(sb.userState(), before);
  assert.equal(sb.read('vendor/lib/lib.ts'), 'export const lib = 1;\n');
});

test('without git-lfs, LFS files come through as their pointers and are no change', { skip: hasGitLfs() && 'git-lfs is installed here' }, async () => {
  const pointer = 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n';
  const sb = sandbox({ '.gitattributes': '*.psd filter=lfs diff=lfs merge=lfs -text\n', 'art/cover.psd': pointer });
  const m = sb.manager();
  const rec = await m.create({ cwd: sb.repo, agentName: 'lfs', agentId: 'l1' });
  assert.equal(sb.read('art/cover.psd', rec.path), pointer);
  assert.equal(await m.finish('l1'), null);
});

function hasGitLfs(): boolean {
  try {
    execFileSync('git', ['lfs', 'version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
