import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { WorktreeManager } from '../../../../src/core/isolation';
import { branchName, worktreeName } from '../../../../src/core/isolation/names';
import { branchExists, gitStopper, makeSandbox, type Sandbox } from './helpers';

const RECYCLE_CHILD = path.join(import.meta.dirname, 'recycleChild.ts');
const ROOT = path.join(import.meta.dirname, '../../../..');

const sandboxes: Sandbox[] = [];
after(() => sandboxes.forEach((sb) => sb.cleanup()));

function pooled(sb: Sandbox, size: number): WorktreeManager {
  const m = new WorktreeManager({ stateDir: sb.stateDir, worktreesRoot: sb.worktreesRoot, poolSize: () => size });
  after(() => m.dispose());
  return m;
}

function sandbox(files?: Record<string, string>): Sandbox {
  const sb = makeSandbox(files ?? { 'README.md': '# demo\n', 'src/app.ts': 'export const a = 1;\n', '.gitignore': 'build/\n' });
  sandboxes.push(sb);
  return sb;
}

test('a discarded worktree is reused at a new base with the user\'s uncommitted changes, and shows nothing of the agent before', async () => {
  const sb = sandbox();
  const m = pooled(sb, 2);
  const first = await m.create({ cwd: sb.repo, agentName: 'first', agentId: 'first-1' });
  assert.equal(first.prepared, 'new');
  // The first agent leaves every kind of trace: a change, a new file, an ignored build output, a commit of its own.
  sb.write('src/app.ts', 'export const a = "first agent";\n', first.path);
  sb.write('first-notes.txt', 'notes of the first agent\n', first.path);
  sb.write('build/out.log', 'build output\n', first.path);
  sb.git(['add', 'first-notes.txt'], first.path);
  sb.git(['-c', 'user.name=A', '-c', 'user.email=a@b', 'commit', '-q', '-m', 'secret commit message of the first agent'], first.path);
  assert.equal((await m.finish('first-1'))?.filesChanged, 2);
  await m.discard('first-1');
  assert.ok(existsSync(first.path), 'the folder went to the pool instead of being deleted');
  assert.equal(branchExists(sb, first.branch), false);
  const [status] = await m.poolStatus();
  assert.equal(status?.worktrees.length, 1);
  assert.ok(status!.diskBytes > 0, 'the pool says how much disk it takes');

  // The user moves on: a new commit, then uncommitted work of every kind.
  sb.write('src/next.ts', 'export const next = true;\n');
  sb.git(['add', '-A']);
  sb.git(['commit', '-q', '-m', 'next']);
  sb.write('README.md', '# demo, edited\n');
  sb.write('untracked.txt', 'the user\'s untracked file\n');
  const userBefore = sb.userState();

  const second = await m.create({ cwd: sb.repo, agentName: 'second', agentId: 'second-1' });
  assert.equal(second.prepared, 'reused');
  assert.equal(second.path, first.path, 'the pooled folder was taken');
  assert.equal(sb.read('README.md', second.path), '# demo, edited\n');
  assert.equal(sb.read('untracked.txt', second.path), 'the user\'s untracked file\n');
  assert.equal(sb.read('src/next.ts', second.path), 'export const next = true;\n');
  assert.equal(sb.read('src/app.ts', second.path), 'export const a = 1;\n');
  assert.equal(sb.exists('first-notes.txt', second.path), false);
  assert.equal(sb.exists('build', second.path), false, 'ignored files of the agent before are gone');
  assert.equal(sb.git(['status', '--porcelain', '--ignored'], second.path), '', 'the worktree is exactly its base');
  assert.equal(sb.git(['symbolic-ref', 'HEAD'], second.path).trim(), `refs/heads/${second.branch}`);
  assert.doesNotMatch(sb.git(['log', '-g', '--format=%s', 'HEAD', '--'], second.path), /first agent/, 'its reflog does not show the agent before');
  assert.equal(sb.git(['rev-parse', 'HEAD'], second.path).trim(), second.baseCommit);
  const userRefs = (refs: string) => refs.split('\n').filter((l) => !l.startsWith('refs/heads/subagents/')).join('\n');
  const userAfter = sb.userState();
  assert.deepEqual({ ...userAfter, refs: userRefs(userAfter.refs) }, { ...userBefore, refs: userRefs(userBefore.refs) }, 'the user tree is untouched');
  assert.deepEqual(await m.poolStatus(), [], 'the pool gave it out');

  // Unchanged: back to the pool again; changed: kept.
  assert.equal(await m.finish('second-1'), null);
  assert.ok(existsSync(second.path));
  assert.equal((await m.poolStatus())[0]?.worktrees.length, 1);
});

test('a pooled worktree carries nothing to the next agent: a file rewritten under skip-worktree or assume-unchanged, and a nested repository committed as a gitlink', async () => {
  const sb = sandbox({ 'README.md': '# demo\n', 'config.json': '{"safe":true}\n', 'src/app.ts': 'export const a = 1;\n' });
  const m = pooled(sb, 2);
  // (a) Hidden from git by index flags: git reports no change, so the agent "changed nothing" and its worktree is pooled.
  const first = await m.create({ cwd: sb.repo, agentName: 'first', agentId: 'flags-1' });
  sb.git(['update-index', '--skip-worktree', 'config.json'], first.path);
  sb.write('config.json', '{"planted":"by the first agent"}\n', first.path);
  sb.git(['update-index', '--assume-unchanged', 'src/app.ts'], first.path);
  sb.write('src/app.ts', 'export const a = "planted";\n', first.path);
  assert.equal(sb.git(['status', '--porcelain'], first.path), '', 'git sees no change');
  assert.equal(await m.finish('flags-1'), null);
  const second = await m.create({ cwd: sb.repo, agentName: 'second', agentId: 'flags-2' });
  assert.equal(second.path, first.path, 'the pooled folder was reused');
  assert.equal(sb.read('config.json', second.path), '{"safe":true}\n');
  assert.equal(sb.read('src/app.ts', second.path), 'export const a = 1;\n');
  assert.doesNotMatch(sb.git(['ls-files', '-v'], second.path), /^[a-zS] /m, 'no index flag is left');

  // (b) A nested repository the agent committed as a gitlink, then discarded.
  sb.write('nested/secret.txt', 'planted by the second agent\n', second.path);
  sb.git(['init', '-q'], path.join(second.path, 'nested'));
  sb.git(['add', 'secret.txt'], path.join(second.path, 'nested'));
  sb.git(['-c', 'user.name=A', '-c', 'user.email=a@b', 'commit', '-q', '-m', 'nested'], path.join(second.path, 'nested'));
  sb.git(['add', 'nested'], second.path);
  sb.git(['-c', 'user.name=A', '-c', 'user.email=a@b', 'commit', '-q', '-m', 'gitlink'], second.path);
  assert.equal((await m.finish('flags-2'))?.filesChanged, 1);
  await m.discard('flags-2');
  const third = await m.create({ cwd: sb.repo, agentName: 'third', agentId: 'flags-3' });
  assert.equal(third.path, first.path, 'the pooled folder was reused');
  assert.equal(sb.exists('nested', third.path), false, 'the nested repository did not survive the move to the new base');
  assert.equal(sb.git(['status', '--porcelain', '--ignored'], third.path), '', 'the worktree is exactly its base');
});

test('an applied worktree goes back to the pool, and a follow-up gets a worktree with its work again', async () => {
  const sb = sandbox();
  const m = pooled(sb, 2);
  const rec = await m.create({ cwd: sb.repo, agentName: 'writer', agentId: 'writer-1' });
  sb.write('feature.txt', 'feature\n', rec.path);
  await m.finish('writer-1');
  const outcome = await m.apply('writer-1');
  assert.equal(outcome.applied, true);
  assert.equal(sb.read('feature.txt'), 'feature\n');
  assert.equal((await m.poolStatus())[0]?.worktrees.length, 1, 'the folder is pooled');
  assert.ok(branchExists(sb, rec.branch), 'the branch stays until discard');

  // Another agent takes the pooled folder meanwhile: the follow-up must not get (or disturb) it.
  const other = await m.create({ cwd: sb.repo, agentName: 'other', agentId: 'other-1' });
  assert.equal(other.path, rec.path);
  sb.write('other-work.txt', 'in progress\n', other.path);
  const again = await m.reopen('writer-1');
  assert.notEqual(again.path, other.path);
  assert.equal(again.prepared, 'new');
  assert.equal(sb.read('feature.txt', again.path), 'feature\n', 'its work is there');
  assert.equal(sb.read('other-work.txt', other.path), 'in progress\n', 'the other agent\'s worktree was not touched');
  sb.write('more.txt', 'more\n', again.path);
  assert.equal((await m.finish('writer-1'))?.filesChanged, 2);

  // Discarding the applied-then-reopened agent releases its own folder only.
  await m.discard('writer-1');
  assert.equal(sb.read('other-work.txt', other.path), 'in progress\n');
  assert.equal(sb.git(['symbolic-ref', 'HEAD'], other.path).trim(), `refs/heads/${other.branch}`);
});

test('the pool is bounded: worktrees past its size are deleted, and size 0 deletes them all', async () => {
  const sb = sandbox();
  let size = 2;
  const m = new WorktreeManager({ stateDir: sb.stateDir, worktreesRoot: sb.worktreesRoot, poolSize: () => size });
  after(() => m.dispose());
  const recs = await Promise.all([0, 1, 2, 3].map((i) => m.create({ cwd: sb.repo, agentName: 'w', agentId: `w-${i}` })));
  await Promise.all(recs.map((r) => m.finish(r.agentId)));
  await m.maintain({ wait: true });
  assert.equal((await m.poolStatus())[0]?.worktrees.length, 2);
  assert.equal(recs.filter((r) => existsSync(r.path)).length, 2);
  assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 3, 'the main tree and the two pooled ones');
  assert.equal(readdirSync(path.join(sb.worktreesRoot, '.trash')).length, 0, 'deleted ones leave nothing behind');

  size = 0;
  const more = await m.create({ cwd: sb.repo, agentName: 'w', agentId: 'w-4' });
  assert.equal(more.prepared, 'new', 'with no pool, nothing is reused');
  await m.finish('w-4');
  assert.equal(existsSync(more.path), false);
  assert.equal(await m.emptyPool(), 2);
  assert.deepEqual(await m.poolStatus(), []);
  assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 1);
  assert.equal(sb.git(['branch', '--list', 'subagents/*']), '');
});

test('a pooled worktree is not reused after the checkout settings change', async () => {
  const sb = sandbox();
  const m = pooled(sb, 2);
  const rec = await m.create({ cwd: sb.repo, agentName: 'w', agentId: 'shape-1' });
  await m.finish('shape-1');
  assert.ok(existsSync(rec.path));
  sb.git(['config', 'core.autocrlf', 'input']);
  const next = await m.create({ cwd: sb.repo, agentName: 'w', agentId: 'shape-2' });
  assert.equal(next.prepared, 'new');
  assert.equal(existsSync(rec.path), false, 'the worktree of the old shape was deleted');
});

test('a worktree whose agent initialised a submodule or left a rebase behind is deleted, not pooled', async () => {
  const sb = sandbox();
  const m = pooled(sb, 2);
  const rec = await m.create({ cwd: sb.repo, agentName: 'w', agentId: 'odd-1' });
  const admin = sb.git(['rev-parse', '--absolute-git-dir'], rec.path).trim();
  sb.write('rebase-merge/head-name', 'refs/heads/x\n', admin);
  await m.finish('odd-1');
  assert.equal(existsSync(rec.path), false);
  assert.deepEqual(await m.poolStatus(), []);
});

/** Runs recycleChild.ts until the stopped git step is reached, then kills it and everything it started. */
async function killMidway(sb: Sandbox, mode: 'take' | 'release', gitStep: string): Promise<void> {
  const stop = gitStopper(sb.root, gitStep);
  const child = spawn(process.execPath, ['--import', 'tsx', RECYCLE_CHILD, sb.stateDir, sb.worktreesRoot, sb.repo, mode], { cwd: ROOT, env: stop.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const started = Date.now();
  while (!existsSync(stop.reached)) {
    if (child.exitCode !== null || Date.now() - started > 60_000) throw new Error(`the child never reached "${gitStep}": ${output}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  process.kill(-child.pid!, 'SIGKILL');
  await exited;
}

test('a crash while a pooled worktree is being moved to its new base loses nothing and leaves the pool consistent', async () => {
  const sb = sandbox();
  const m = pooled(sb, 2);
  const first = await m.create({ cwd: sb.repo, agentName: 'w', agentId: 'before-crash' });
  assert.equal(await m.finish('before-crash'), null);
  sb.write('README.md', '# the user keeps writing\n');
  const userBefore = sb.userState();

  await killMidway(sb, 'take', 'checkout-index');

  const fresh = pooled(sb, 2);
  const report = await fresh.recover();
  assert.deepEqual(report.removed.map((r) => r.agentId), ['recycle-take'], 'the half-recycled worktree is cleaned up');
  assert.deepEqual(report.kept, []);
  assert.equal(existsSync(first.path), false);
  assert.deepEqual(await fresh.poolStatus(), [], 'the pool does not offer it again');
  assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 1);
  assert.equal(sb.git(['branch', '--list', 'subagents/*']), '');
  assert.deepEqual(sb.userState(), userBefore, 'the user\'s work is untouched');
  const next = await fresh.create({ cwd: sb.repo, agentName: 'w', agentId: 'after-crash' });
  assert.equal(sb.read('README.md', next.path), '# the user keeps writing\n');
});

test('a crash while the upkeep cleans a discarded worktree leaves it to the next pass, and no agent ever gets it uncleaned', async () => {
  const sb = sandbox();
  await killMidway(sb, 'release', 'clean');

  const fresh = pooled(sb, 2);
  const report = await fresh.recover();
  assert.deepEqual(report.kept, [], 'the discard was done: the user asked for the work to go');
  assert.equal(sb.git(['branch', '--list', 'subagents/*']), '');
  const [status] = await fresh.poolStatus();
  assert.deepEqual(status?.worktrees.map((w) => w.ready), [false], 'pooled, still to be cleaned');
  const folder = status!.worktrees[0]!.path;

  const pass = await fresh.maintain();
  assert.equal(pass?.cleaned, 1, 'the next pass cleans what the killed one left');
  assert.deepEqual((await fresh.poolStatus())[0]?.worktrees.map((w) => w.ready), [true]);
  const next = await fresh.create({ cwd: sb.repo, agentName: 'w', agentId: 'after-crash' });
  assert.equal(next.path, folder);
  assert.equal(sb.exists('kept-work.txt', next.path), false);
  assert.equal(sb.git(['status', '--porcelain', '--ignored'], next.path), '');
});

test('a create that fails while a taken name is tried never deletes the branch that holds the name', async () => {
  const sb = sandbox();
  const m = pooled(sb, 1);
  const first = await m.create({ cwd: sb.repo, agentName: 'first', agentId: 'first-1' });
  await m.discard('first-1');
  await m.maintain({ wait: true });
  // Someone else's branch holds the next agent's first name, at the very commit the agent would start from; and the
  // pooled folder's HEAD cannot be moved (its lock is held), so the attempt that finds the name taken also fails.
  const taken = branchName(worktreeName('second', 'second-1'));
  sb.git(['branch', taken, 'HEAD']);
  const gitDir = path.resolve(first.path, sb.git(['rev-parse', '--git-dir'], first.path).trim());
  mkdirSync(path.join(gitDir, 'HEAD.lock'));
  try {
    await assert.rejects(m.create({ cwd: sb.repo, agentName: 'second', agentId: 'second-1' }));
  } finally {
    rmSync(path.join(gitDir, 'HEAD.lock'), { recursive: true, force: true });
  }
  assert.ok(branchExists(sb, taken), 'the branch that held the name is still there');
});

test('a pooled worktree whose branch name is taken goes to the next name, and the taken branch keeps its commit', async () => {
  const sb = sandbox();
  const m = pooled(sb, 1);
  const first = await m.create({ cwd: sb.repo, agentName: 'first', agentId: 'first-1' });
  await m.discard('first-1');
  await m.maintain({ wait: true });
  // Someone else's branch holds the name the next agent would get first, on a commit of its own.
  sb.write('theirs.txt', 'their work\n');
  sb.git(['add', 'theirs.txt']);
  sb.git(['commit', '-q', '-m', 'theirs']);
  const theirs = sb.git(['rev-parse', 'HEAD']).trim();
  sb.git(['reset', '-q', '--hard', 'HEAD~1']);
  const taken = branchName(worktreeName('second', 'second-1'));
  sb.git(['branch', taken, theirs]);
  const second = await m.create({ cwd: sb.repo, agentName: 'second', agentId: 'second-1' });
  assert.equal(second.prepared, 'reused');
  assert.equal(second.path, first.path);
  assert.notEqual(second.branch, taken);
  assert.equal(sb.git(['symbolic-ref', 'HEAD'], second.path).trim(), `refs/heads/${second.branch}`);
  assert.equal(sb.git(['rev-parse', 'HEAD'], second.path).trim(), second.baseCommit);
  assert.equal(sb.git(['rev-parse', taken]).trim(), theirs, 'the taken branch is where its owner left it');
  assert.equal(sb.git(['status', '--porcelain', '--ignored'], second.path), '');
});
