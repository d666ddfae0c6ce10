import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { IsolationError } from '../../../../src/core/isolation';
import { branchExists, makeSandbox, newRefs, type Sandbox } from './helpers';

const sandboxes: Sandbox[] = [];
function sandbox(files?: Record<string, string>): Sandbox {
  const sb = makeSandbox(files);
  sandboxes.push(sb);
  return sb;
}
after(() => sandboxes.forEach((sb) => sb.cleanup()));

describe('an isolated change', () => {
  test('stays in the worktree until applied, then lands in the working tree; discard removes branch and worktree', async () => {
    const sb = sandbox();
    const m = sb.manager();
    const before = sb.userState();

    const rec = await m.create({ cwd: sb.repo, agentName: 'Code Reviewer', agentId: 'agent-1' });
    assert.equal(rec.state, 'active');
    assert.match(rec.branch, /^subagents\/code-reviewer-[0-9a-f]{8}$/);
    assert.ok(rec.path.startsWith(sb.worktreesRoot + path.sep), 'worktree lives under worktreesRoot');
    assert.ok(!rec.path.startsWith(sb.repo), 'worktree is outside the user repository');
    assert.equal(rec.baseCommit, before.head.trim(), 'clean tree: the agent starts from HEAD');
    assert.equal(rec.cwd, rec.path);
    assert.deepEqual({ ...sb.userState(), refs: '' }, { ...before, refs: '' }, 'status, index, stash and HEAD unchanged');
    assert.deepEqual(newRefs(before.refs, sb.userState().refs), [`refs/heads/${rec.branch}`], 'only the new branch was added');

    sb.write('notes/todo.md', 'agent was here\n', rec.path);
    const info = await m.finish('agent-1');
    assert.ok(info);
    assert.deepEqual(info, { path: rec.path, branch: rec.branch, baseCommit: rec.baseCommit, filesChanged: 1, insertions: 1, deletions: 0 });

    // The user's tree did not see any of it.
    assert.deepEqual({ ...sb.userState(), refs: '' }, { ...before, refs: '' });
    assert.equal(sb.exists('notes/todo.md'), false);
    // The branch holds exactly that change, committed.
    assert.equal(sb.git(['diff', '--name-status', `${rec.baseCommit}..${rec.branch}`]), 'A\tnotes/todo.md\n');
    assert.equal(sb.git(['show', `${rec.branch}:notes/todo.md`]), 'agent was here\n');
    assert.equal(sb.git(['status', '--porcelain'], rec.path), '', 'nothing left uncommitted in the worktree');
    assert.equal(m.get('agent-1')?.state, 'finished');
    assert.match(await m.diff('agent-1'), /\+\+\+ b\/notes\/todo.md\n@@ -0,0 \+1 @@\n\+agent was here/);

    const outcome = await m.apply('agent-1');
    assert.equal(outcome.applied, true);
    assert.deepEqual(outcome.conflicts, []);
    assert.deepEqual(outcome.updated, ['notes/todo.md']);
    assert.equal(sb.read('notes/todo.md'), 'agent was here\n');
    const afterApply = sb.userState();
    assert.equal(afterApply.head, before.head, 'apply makes no commit');
    assert.equal(afterApply.index, before.index, 'apply leaves the index alone');
    assert.equal(afterApply.status, '?? notes/todo.md\n');
    assert.equal(m.get('agent-1')?.state, 'applied');

    await m.discard('agent-1');
    assert.equal(existsSync(rec.path), false);
    assert.equal(branchExists(sb, rec.branch), false);
    assert.equal(sb.git(['worktree', 'list', '--porcelain']).includes(rec.path), false);
    assert.equal(sb.git(['for-each-ref', 'refs/subagents']), '', 'the apply backup ref goes with discard');
    assert.equal(m.get('agent-1')?.state, 'discarded');
    assert.equal(sb.read('notes/todo.md'), 'agent was here\n', 'discard does not undo an apply');
  });

  test('no changes: finish returns null and leaves no worktree folder and no branch', async () => {
    const sb = sandbox();
    const m = sb.manager();
    const before = sb.userState();
    const rec = await m.create({ cwd: sb.repo, agentName: 'explorer', agentId: 'agent-2' });
    assert.ok(existsSync(rec.path));
    sb.read('README.md', rec.path); // looking is not changing
    assert.equal(await m.finish('agent-2'), null);
    assert.equal(existsSync(rec.path), false);
    assert.equal(branchExists(sb, rec.branch), false);
    assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 1);
    assert.deepEqual(sb.userState(), before);
    assert.equal(m.get('agent-2')?.state, 'discarded');
    assert.equal(await m.finish('agent-2'), null, 'finishing twice is harmless');
  });

  test('the agent starts from what the user sees: modified, staged, deleted and untracked files; user index and stash untouched', async () => {
    const sb = sandbox({ 'a.txt': 'one\n', 'b.txt': 'two\n', 'gone.txt': 'bye\n', '.gitignore': 'secret.env\n' });
    sb.write('stashed.txt', 'stash me\n');
    sb.git(['stash', 'push', '-q', '-u', '-m', 'user stash']);
    sb.write('a.txt', 'one, edited but not staged\n');
    sb.write('b.txt', 'two, staged\n');
    sb.git(['add', 'b.txt']);
    sb.git(['rm', '-q', '--cached', 'gone.txt']);
    rmSync(path.join(sb.repo, 'gone.txt'));
    sb.write('fresh/untracked.txt', 'new and untracked\n');
    sb.write('secret.env', 'TOKEN=ignored\n');
    const before = sb.userState();
    assert.notEqual(before.stash, '');

    const m = sb.manager();
    const rec = await m.create({ cwd: sb.repo, agentName: 'tester', agentId: 'agent-3' });
    assert.equal(sb.read('a.txt', rec.path), 'one, edited but not staged\n');
    assert.equal(sb.read('b.txt', rec.path), 'two, staged\n');
    assert.equal(sb.exists('gone.txt', rec.path), false);
    assert.equal(sb.read('fresh/untracked.txt', rec.path), 'new and untracked\n');
    assert.equal(sb.exists('secret.env', rec.path), false, 'ignored files are not copied');
    assert.notEqual(rec.baseCommit, rec.userHead, 'base is a snapshot commit');
    assert.equal(sb.git(['rev-parse', `${rec.baseCommit}^`]).trim(), rec.userHead, 'the snapshot sits on the user HEAD');
    assert.equal(sb.git(['status', '--porcelain'], rec.path), '', 'the worktree starts clean against its base');
    assert.deepEqual({ ...sb.userState(), refs: '' }, { ...before, refs: '' }, 'status, index, stash unchanged');

    // The user's own changes are the base, not the agent's work.
    assert.equal(await m.finish('agent-3'), null);
  });

  test('started in a subfolder, the agent works in the same subfolder of the worktree', async () => {
    const sb = sandbox({ 'packages/api/index.ts': 'export {};\n', 'README.md': 'x\n' });
    const m = sb.manager();
    const rec = await m.create({ cwd: path.join(sb.repo, 'packages', 'api'), agentName: 'api', agentId: 'agent-4' });
    assert.equal(rec.cwd, path.join(rec.path, 'packages', 'api'));
    assert.equal(rec.repoRoot, realpathSync(sb.repo));
    assert.ok(existsSync(path.join(rec.cwd, 'index.ts')));
    sb.write('util.ts', 'export const u = 1;\n', rec.cwd);
    const info = await m.finish('agent-4');
    assert.equal(info?.filesChanged, 1);
    assert.equal(sb.git(['diff', '--name-only', `${rec.baseCommit}..${rec.branch}`]), 'packages/api/util.ts\n');
  });

  test('diff shows uncommitted and untracked work while the agent runs, and the branch after finish', async () => {
    const sb = sandbox();
    const m = sb.manager();
    const rec = await m.create({ cwd: sb.repo, agentName: 'w', agentId: 'agent-5' });
    sb.write('src/app.ts', 'export const a = 2;\n', rec.path);
    sb.write('src/new.ts', 'export const n = 1;\n', rec.path);
    const running = await m.diff('agent-5');
    assert.match(running, /-export const a = 1;\n\+export const a = 2;/);
    assert.match(running, /\+\+\+ b\/src\/new.ts/);
    assert.equal(sb.git(['status', '--porcelain'], rec.path), ' M src/app.ts\n?? src/new.ts\n', 'diff stages nothing in the worktree');
    await m.finish('agent-5');
    assert.equal(await m.diff('agent-5'), running);
  });

  test('commits the agent made itself count as changes; binary files count as changed files', async () => {
    const sb = sandbox();
    const m = sb.manager();
    const rec = await m.create({ cwd: sb.repo, agentName: 'committer', agentId: 'agent-6' });
    sb.write('logo.bin', Buffer.from([0, 1, 2, 3, 255, 0, 7]), rec.path);
    sb.git(['add', 'logo.bin'], rec.path);
    sb.git(['commit', '-q', '-m', 'agent commit'], rec.path);
    const info = await m.finish('agent-6', { commitMessage: 'unused: nothing left to commit' });
    assert.equal(info?.filesChanged, 1);
    assert.equal(info?.insertions, 0);
    assert.equal(sb.git(['log', '--format=%s', `${rec.baseCommit}..${rec.branch}`]), 'agent commit\n');

    const rec2 = await m.create({ cwd: sb.repo, agentName: 'writer', agentId: 'agent-7' });
    sb.write('README.md', '# changed\nmore\n', rec2.path);
    const info2 = await m.finish('agent-7', { commitMessage: 'Rewrite the README' });
    assert.deepEqual([info2?.filesChanged, info2?.insertions, info2?.deletions], [1, 2, 1]);
    assert.equal(sb.git(['log', '-1', '--format=%s|%an', rec2.branch]), 'Rewrite the README|Test User\n', "the user's identity and the given message");
  });

  test('two agents with the same name and similar ids get distinct branches and folders', async () => {
    const sb = sandbox();
    const m = sb.manager();
    const a = await m.create({ cwd: sb.repo, agentName: 'dup', agentId: 'abcdef12-0000-4000-8000-000000000001' });
    const b = await m.create({ cwd: sb.repo, agentName: 'dup', agentId: 'abcdef12-0000-4000-8000-000000000002' });
    assert.notEqual(a.branch, b.branch);
    assert.notEqual(a.path, b.path);
    await assert.rejects(m.create({ cwd: sb.repo, agentName: 'dup', agentId: a.agentId }), (e: unknown) => e instanceof IsolationError && e.code === 'invalid-state');
    await Promise.all([m.finish(a.agentId), m.finish(b.agentId)]);
  });
});

describe('clear errors', () => {
  test('not a git repository', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'subagents-norepo-'));
    try {
      const sb = sandbox();
      await assert.rejects(sb.manager().create({ cwd: dir, agentName: 'x', agentId: 'e1' }), (e: unknown) => {
        assert.ok(e instanceof IsolationError);
        assert.equal(e.code, 'not-a-repo');
        assert.equal(e.message, `Worktree isolation needs a git repository, but ${dir} is not inside one.`);
        return true;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('inside the .git folder is not a working tree either', async () => {
    const sb = sandbox();
    await assert.rejects(sb.manager().create({ cwd: path.join(sb.repo, '.git'), agentName: 'x', agentId: 'e2' }), /needs a git repository/);
  });

  test('a repository without commits', async () => {
    const sb = sandbox({});
    await assert.rejects(sb.manager().create({ cwd: sb.repo, agentName: 'x', agentId: 'e3' }), (e: unknown) => {
      assert.ok(e instanceof IsolationError);
      assert.equal(e.code, 'no-commits');
      assert.match(e.message, /has no commits yet\. Make a first commit, then try again\./);
      return true;
    });
    assert.equal(existsSync(sb.worktreesRoot), false, 'nothing was created');
  });

  test('a directory that does not exist', async () => {
    const sb = sandbox();
    await assert.rejects(sb.manager().create({ cwd: path.join(sb.root, 'nope'), agentName: 'x', agentId: 'e4' }), /does not exist/);
  });

  test('a worktrees folder inside the repository is refused', async () => {
    const sb = sandbox();
    const inside = path.join(sb.repo, '.worktrees');
    mkdirSync(inside);
    const { WorktreeManager } = await import('../../../../src/core/isolation');
    const m = new WorktreeManager({ stateDir: sb.stateDir, worktreesRoot: inside });
    await assert.rejects(m.create({ cwd: sb.repo, agentName: 'x', agentId: 'e5' }), /is inside the repository/);
    m.dispose();
  });

  test('a failed create undoes itself: no branch, no registration, and the same agent may try again', async () => {
    const sb = sandbox();
    const before = sb.userState();
    writeFileSync(sb.worktreesRoot, 'a file where the worktrees folder should be');
    const { WorktreeManager } = await import('../../../../src/core/isolation');
    const m = new WorktreeManager({ stateDir: sb.stateDir, worktreesRoot: sb.worktreesRoot });
    await assert.rejects(m.create({ cwd: sb.repo, agentName: 'x', agentId: 'e7' }), (e: unknown) => {
      assert.ok(e instanceof IsolationError);
      assert.equal(e.code, 'git-failed');
      assert.match(e.message, /^Could not create an isolated worktree for x: .+\. Your working tree was not changed\.$/);
      return true;
    });
    assert.deepEqual(sb.userState(), before, 'no branch left behind');
    assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 1);
    assert.equal(m.get('e7')?.state, 'discarded');
    rmSync(sb.worktreesRoot);
    const rec = await m.create({ cwd: sb.repo, agentName: 'x', agentId: 'e7' });
    assert.equal(await m.finish(rec.agentId), null);
    m.dispose();
  });

  test('unknown agents and wrong states', async () => {
    const sb = sandbox();
    const m = sb.manager();
    await assert.rejects(m.finish('nobody'), /No isolated worktree is recorded for agent nobody/);
    await m.create({ cwd: sb.repo, agentName: 'busy', agentId: 'e6' });
    await assert.rejects(m.apply('e6'), /still working in its worktree; finish it before applying/);
    await m.discard('e6');
    await assert.rejects(m.apply('e6'), /were discarded/);
  });
});
