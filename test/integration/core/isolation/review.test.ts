import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, test } from 'node:test';
import { IsolationError, type WorktreeManager, type WorktreeRecord } from '../../../../src/core/isolation';
import { branchExists, makeSandbox, type Sandbox } from './helpers';

// Reviewing an agent's worktree file by file: apply some files, discard others,
// the user's own edits in the review, and nothing lost on the way.

const sandboxes: Sandbox[] = [];
after(() => sandboxes.forEach((sb) => sb.cleanup()));

const FILES = { 'a.txt': 'a\n', 'b.txt': 'b\n', 'keep.txt': 'k\n' };

/** A finished agent that changed a.txt and b.txt and added c.txt. */
async function threeFiles(sb: Sandbox, m: WorktreeManager, agentId: string): Promise<WorktreeRecord> {
  const rec = await m.create({ cwd: sb.repo, agentName: 'fixer', agentId });
  sb.write('a.txt', 'a, by the agent\n', rec.path);
  sb.write('b.txt', 'b, by the agent\n', rec.path);
  sb.write('c.txt', 'new file\n', rec.path);
  assert.ok(await m.finish(agentId));
  return rec;
}

function setup(): { sb: Sandbox; m: WorktreeManager } {
  const sb = makeSandbox(FILES);
  sandboxes.push(sb);
  return { sb, m: sb.manager() };
}

test('the review lists each changed file with its kind and line counts, on the live worktree', async () => {
  const { sb, m } = setup();
  const rec = await threeFiles(sb, m, 'r1');
  const review = await m.review('r1');
  assert.equal(review.worktreePath, rec.path);
  assert.equal(review.baseCommit, rec.baseCommit);
  assert.deepEqual(
    review.files.map((f) => [f.path, f.kind, f.insertions, f.deletions, f.applied]),
    [
      ['a.txt', 'modified', 1, 1, false],
      ['b.txt', 'modified', 1, 1, false],
      ['c.txt', 'added', 1, 0, false],
    ],
  );
  assert.equal(await m.fileAt('r1', review.baseCommit, 'a.txt'), 'a\n');
  assert.equal(await m.fileAt('r1', review.headCommit, 'a.txt'), 'a, by the agent\n');
  assert.equal(await m.fileAt('r1', review.baseCommit, 'c.txt'), null, 'an added file has no base version');
});

test('a per-file apply writes only that file; the rest waits on the branch, and applying it twice is refused', async () => {
  const { sb, m } = setup();
  const rec = await threeFiles(sb, m, 'r2');
  const before = sb.userState();

  const first = await m.apply('r2', { paths: ['a.txt'] });
  assert.deepEqual(first.updated, ['a.txt']);
  assert.equal(sb.read('a.txt'), 'a, by the agent\n');
  assert.equal(sb.read('b.txt'), 'b\n', 'b.txt was not chosen');
  assert.equal(sb.exists('c.txt'), false);
  assert.equal(sb.userState().index, before.index, 'the index is untouched');
  assert.equal(m.get('r2')?.state, 'finished', 'files are left to review');
  assert.ok(existsSync(rec.path), 'the worktree stays while files are left');
  assert.deepEqual(
    (await m.review('r2')).files.map((f) => [f.path, f.applied]),
    [
      ['a.txt', true],
      ['b.txt', false],
      ['c.txt', false],
    ],
  );

  const again = await m.apply('r2', { paths: ['a.txt'] });
  assert.equal(again.applied, false, 'the working tree has that change already');
  // The user changes a.txt after applying it: merging it again would nest the change, so it is refused…
  sb.write('a.txt', 'a, by the agent, then the user\n');
  await assert.rejects(m.apply('r2', { paths: ['a.txt'] }), (e: unknown) => e instanceof IsolationError && /applied already.*a second time.* in a\.txt\./.test(e.message));
  assert.equal(sb.read('a.txt'), 'a, by the agent, then the user\n');

  // …and the whole apply brings only the rest.
  const rest = await m.apply('r2');
  assert.deepEqual(rest.updated, ['b.txt', 'c.txt']);
  assert.equal(sb.read('a.txt'), 'a, by the agent, then the user\n', 'the applied file is not merged a second time');
  assert.equal(sb.read('c.txt'), 'new file\n');
  assert.equal(m.get('r2')?.state, 'applied');
  assert.equal(existsSync(rec.path), false, 'everything applied: the worktree folder goes');
  assert.ok(branchExists(sb, rec.branch), 'the branch stays until discarded');
});

test('a per-file discard takes that change off the branch and out of the worktree; the discarded version stays in the history', async () => {
  const { sb, m } = setup();
  const rec = await threeFiles(sb, m, 'r3');
  const tip = sb.git(['rev-parse', rec.branch]).trim();

  const outcome = await m.discardFiles('r3', ['a.txt', 'c.txt']);
  assert.deepEqual(outcome.discarded, ['a.txt', 'c.txt']);
  assert.equal(outcome.remaining, 1);
  assert.equal(outcome.finished, false);
  assert.equal(sb.read('a.txt', rec.path), 'a\n', 'the worktree has the base version again');
  assert.equal(sb.exists('c.txt', rec.path), false, 'an added file is gone from the worktree');
  assert.equal(sb.git(['status', '--porcelain'], rec.path), '', 'the worktree is clean: nothing for a later commit to bring back');
  assert.equal(sb.git(['show', `${tip}:a.txt`]), 'a, by the agent\n', 'the agent’s version is still in the branch history');
  assert.equal(sb.git(['rev-parse', `${rec.branch}~1`]).trim(), tip);
  assert.deepEqual((await m.review('r3')).files.map((f) => f.path), ['b.txt']);
  assert.equal(m.get('r3')?.info?.filesChanged, 1, 'the counts follow');

  const applied = await m.apply('r3');
  assert.deepEqual(applied.updated, ['b.txt']);
  assert.equal(sb.read('a.txt'), 'a\n');
  assert.equal(sb.exists('c.txt'), false);
});

test('discarding every file one by one removes the worktree and the branch', async () => {
  const { sb, m } = setup();
  const rec = await threeFiles(sb, m, 'r4');
  await m.discardFiles('r4', ['a.txt']);
  const last = await m.discardFiles('r4', ['b.txt', 'c.txt']);
  assert.equal(last.finished, true);
  assert.match(last.message, /nothing is left/);
  assert.equal(m.get('r4')?.state, 'discarded');
  assert.equal(existsSync(rec.path), false);
  assert.equal(branchExists(sb, rec.branch), false);
});

test('after some files were applied, discarding the others finishes the review as applied, branch kept', async () => {
  const { sb, m } = setup();
  const rec = await threeFiles(sb, m, 'r5');
  await m.apply('r5', { paths: ['a.txt', 'b.txt'] });
  await assert.rejects(m.discardFiles('r5', ['a.txt']), (e: unknown) => e instanceof IsolationError && /applied to your working tree already/.test(e.message) && /git restore --source=refs\/subagents\/before-apply\//.test(e.message));
  const outcome = await m.discardFiles('r5', ['c.txt']);
  assert.equal(outcome.finished, true);
  assert.equal(m.get('r5')?.state, 'applied');
  assert.equal(existsSync(rec.path), false);
  assert.ok(branchExists(sb, rec.branch));
  assert.equal(sb.exists('c.txt'), false);
  assert.equal(sb.read('b.txt'), 'b, by the agent\n');
});

test('edits the user makes in the worktree while reviewing are what gets applied', async () => {
  const { sb, m } = setup();
  const rec = await threeFiles(sb, m, 'r6');
  // In the review, the user takes back the agent's line in b.txt and fixes c.txt.
  sb.write('b.txt', 'b\n', rec.path);
  sb.write('c.txt', 'new file, fixed by the user\n', rec.path);
  assert.deepEqual((await m.review('r6')).files.map((f) => f.path), ['a.txt', 'c.txt'], 'the list follows the worktree as it is now');

  const outcome = await m.apply('r6');
  assert.deepEqual(outcome.updated, ['a.txt', 'c.txt']);
  assert.equal(sb.read('b.txt'), 'b\n');
  assert.equal(sb.read('c.txt'), 'new file, fixed by the user\n');
  assert.equal(sb.git(['show', `${rec.branch}:c.txt`]), 'new file, fixed by the user\n', 'the review edits are committed on the branch');
});

test('a per-file discard refuses files the agent did not change, and an applied worktree', async () => {
  const { sb, m } = setup();
  await threeFiles(sb, m, 'r7');
  await assert.rejects(m.discardFiles('r7', ['keep.txt']), /did not change keep\.txt/);
  await m.apply('r7');
  await assert.rejects(m.discardFiles('r7', ['a.txt']), /applied already/);
});
