import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { moveCheckout, SMALL_CHANGE_PATHS } from '../../../../src/core/isolation/move';
import { makeSandbox, type Sandbox } from './helpers';

/**
 * Moving a pooled worktree to another commit: whichever way it is done (path
 * by path for a small change, read-tree for a big one), the worktree must end
 * exactly at the new commit — index, files, modes, symlinks, no leftover
 * folders — and files the change does not name must not be rewritten.
 */

const sandboxes: Sandbox[] = [];
after(() => sandboxes.forEach((sb) => sb.cleanup()));

function commitAll(sb: Sandbox, message: string): string {
  sb.git(['add', '-A']);
  sb.git(['commit', '-q', '-m', message]);
  return sb.git(['rev-parse', 'HEAD']).trim();
}

/** A linked worktree with a detached HEAD at `commit`, as the pool keeps them. */
function worktreeAt(sb: Sandbox, commit: string): string {
  const wt = path.join(sb.root, 'wt');
  sb.git(['worktree', 'add', '-q', '--detach', wt, commit]);
  return wt;
}

/** The worktree holds exactly `commit`: index, files (stat data current, so nothing to re-hash), nothing extra. */
function assertExactlyAt(sb: Sandbox, wt: string, commit: string): void {
  sb.git(['update-ref', '--no-deref', 'HEAD', commit], wt);
  assert.equal(sb.git(['diff-index', '--cached', '--name-status', commit], wt), '', 'the index is the commit');
  assert.equal(sb.git(['diff-files', '--name-status'], wt), '', 'the files are the index');
  assert.equal(sb.git(['ls-files', '--others', '--directory', '--no-empty-directory'], wt), '', 'nothing left over');
  assert.equal(sb.git(['status', '--porcelain', '--untracked-files=all'], wt), '');
}

test('a small change moves a worktree path by path: files go, change, appear, change mode and kind; the rest is left alone', async () => {
  const sb = makeSandbox({ 'keep.txt': 'same\n', 'mod.txt': 'one\n', 'gone/deep/only.txt': 'bye\n', 'run.sh': 'echo\n', 'becomes-file/inner.txt': 'x\n', 'was-file': 'y\n', 'target.txt': 't\n' });
  sandboxes.push(sb);
  symlinkSync('target.txt', path.join(sb.repo, 'link'));
  const from = commitAll(sb, 'add link');
  sb.write('mod.txt', 'two\n');
  rmSync(path.join(sb.repo, 'gone'), { recursive: true });
  chmodSync(path.join(sb.repo, 'run.sh'), 0o755);
  sb.write('new/deep/file.txt', 'hello\n');
  rmSync(path.join(sb.repo, 'becomes-file'), { recursive: true });
  sb.write('becomes-file', 'now a file\n');
  rmSync(path.join(sb.repo, 'was-file'));
  sb.write('was-file/inner.txt', 'now a folder\n');
  const to = commitAll(sb, 'change');

  const wt = worktreeAt(sb, from);
  const untouched = statSync(path.join(wt, 'keep.txt'));
  const changed = await moveCheckout(wt, from, to);

  assert.equal(typeof changed, 'number', 'moved path by path, not checked out afresh');
  assertExactlyAt(sb, wt, to);
  assert.equal(sb.read('mod.txt', wt), 'two\n');
  assert.equal(existsSync(path.join(wt, 'gone')), false, 'folders the change emptied are deleted, as git does');
  assert.equal(statSync(path.join(wt, 'run.sh')).mode & 0o111, 0o111);
  assert.equal(sb.read('becomes-file', wt), 'now a file\n');
  assert.equal(sb.read('was-file/inner.txt', wt), 'now a folder\n');
  assert.equal(readlinkSync(path.join(wt, 'link')), 'target.txt', 'a link the change does not name stays');
  const after = statSync(path.join(wt, 'keep.txt'));
  assert.equal(after.ino, untouched.ino, 'an unchanged file is not rewritten');
  assert.equal(after.mtimeMs, untouched.mtimeMs);

  // And back: the reverse of every kind of change.
  assert.equal(typeof (await moveCheckout(wt, to, from)), 'number');
  assertExactlyAt(sb, wt, from);
  assert.equal(existsSync(path.join(wt, 'new')), false);
});

test('a change that involves a symbolic link never deletes through it: not the files it pointed to, not outside the worktree', async () => {
  const sb = makeSandbox({ 'lib/f': 'library\n', 'plain.txt': 'p\n' });
  sandboxes.push(sb);
  const outside = path.join(sb.root, 'outside');
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'f'), 'not the repository\'s\n');
  symlinkSync('lib', path.join(sb.repo, 'latest'));
  symlinkSync(outside, path.join(sb.repo, 'ext'));
  const from = commitAll(sb, 'links to a folder inside and one outside');
  for (const link of ['latest', 'ext']) {
    rmSync(path.join(sb.repo, link));
    sb.write(`${link}/f`, `now a real folder: ${link}\n`);
  }
  sb.write('plain.txt', 'changed\n');
  const to = commitAll(sb, 'the links become folders');

  const wt = worktreeAt(sb, from);
  assert.equal(typeof (await moveCheckout(wt, from, to)), 'number');
  assertExactlyAt(sb, wt, to);
  assert.equal(readFileSync(path.join(outside, 'f'), 'utf8'), 'not the repository\'s\n', 'nothing outside the worktree is touched');
  assert.equal(sb.read('lib/f', wt), 'library\n', 'the folder the link pointed to keeps its file');
  assert.equal(sb.read('latest/f', wt), 'now a real folder: latest\n');

  // And back: the folders become links again.
  assert.equal(typeof (await moveCheckout(wt, to, from)), 'number');
  assertExactlyAt(sb, wt, from);
  assert.ok(lstatSync(path.join(wt, 'ext')).isSymbolicLink());
  assert.equal(readFileSync(path.join(outside, 'f'), 'utf8'), 'not the repository\'s\n');
});

test('the same tree moves nothing: the index is not even rewritten', async () => {
  const sb = makeSandbox();
  sandboxes.push(sb);
  const from = sb.git(['rev-parse', 'HEAD']).trim();
  // Another commit with the same tree (a snapshot of a clean working tree is one).
  const to = sb.git(['commit-tree', `${from}^{tree}`, '-p', from, '-m', 'same tree']).trim();
  const wt = worktreeAt(sb, from);
  const index = sb.git(['rev-parse', '--path-format=absolute', '--git-path', 'index'], wt).trim();
  const before = statSync(index).mtimeMs;
  assert.equal(await moveCheckout(wt, from, from), 0);
  assert.equal(await moveCheckout(wt, from, to), 0);
  assert.equal(statSync(index).mtimeMs, before);
  assertExactlyAt(sb, wt, to);
});

test(`a change of more than ${SMALL_CHANGE_PATHS} paths, or one of .gitattributes, still ends exactly at the new commit`, async () => {
  const sb = makeSandbox();
  sandboxes.push(sb);
  const from = sb.git(['rev-parse', 'HEAD']).trim();
  for (let i = 0; i <= SMALL_CHANGE_PATHS; i++) sb.write(`many/f${i}.txt`, `${i}\n`);
  const big = commitAll(sb, 'many files');
  sb.write('.gitattributes', '*.txt text eol=crlf\n');
  const attrs = commitAll(sb, 'attributes');

  const wt = worktreeAt(sb, from);
  assert.equal(await moveCheckout(wt, from, big), SMALL_CHANGE_PATHS + 1);
  assertExactlyAt(sb, wt, big);
  assert.equal(await moveCheckout(wt, big, attrs), 'all', 'new attributes: everything is checked out again');
  assertExactlyAt(sb, wt, attrs);
  assert.equal(sb.read('many/f0.txt', wt), '0\r\n');
});
