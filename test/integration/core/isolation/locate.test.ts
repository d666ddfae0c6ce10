import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { IsolationError } from '../../../../src/core/isolation';
import { locateRepo } from '../../../../src/core/isolation/repo';
import { makeSandbox, type Sandbox } from './helpers';

// Where a folder's repository is gets remembered (no git process per spawn);
// these check that what git would answer now is what is answered.
const sandboxes: Sandbox[] = [];
after(() => sandboxes.forEach((sb) => sb.cleanup()));

function sandbox(): Sandbox {
  const sb = makeSandbox();
  sandboxes.push(sb);
  return sb;
}

test('a folder that became a repository of its own is found as that one', async () => {
  const sb = sandbox();
  const sub = path.join(sb.repo, 'vendor', 'lib');
  mkdirSync(sub, { recursive: true });
  const first = await locateRepo(sub);
  assert.equal(first.toplevel, realpathSync(sb.repo));
  assert.equal(first.prefix, 'vendor/lib');
  sb.git(['init', '-q'], path.join(sb.repo, 'vendor'));
  const again = await locateRepo(sub);
  assert.equal(again.toplevel, realpathSync(path.join(sb.repo, 'vendor')));
  assert.equal(again.prefix, 'lib');
});

test('a repository whose .git is gone is no repository any more', async () => {
  const sb = sandbox();
  await locateRepo(sb.repo);
  rmSync(path.join(sb.repo, '.git'), { recursive: true, force: true });
  await assert.rejects(locateRepo(sb.repo), (e: unknown) => e instanceof IsolationError && e.code === 'not-a-repo');
});

test('a linked worktree made again in the same folder is found with its new index', async () => {
  const sb = sandbox();
  const wt = path.join(sb.root, 'linked');
  sb.git(['worktree', 'add', '-q', '--detach', wt, 'HEAD']);
  const before = await locateRepo(wt);
  sb.git(['worktree', 'remove', '--force', wt]);
  // A name taken by another worktree first, so the new one's admin folder (and index) differ.
  sb.git(['worktree', 'add', '-q', '--detach', path.join(sb.root, 'other', 'linked'), 'HEAD']);
  sb.git(['worktree', 'add', '-q', '--detach', wt, 'HEAD']);
  const after = await locateRepo(wt);
  assert.notEqual(after.indexFile, before.indexFile);
  assert.equal(after.indexFile, sb.git(['rev-parse', '--path-format=absolute', '--git-path', 'index'], wt).trim());
});
