import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { backupRef, branchName, isInside, recordFileName, repoFolderName, shortId, slug, worktreeName } from '../../../../src/core/isolation/names';

test('slug keeps names readable and safe for refs and folders', () => {
  assert.equal(slug('Code Reviewer'), 'code-reviewer');
  assert.equal(slug('  ..weird//name.lock  '), 'weird-name-lock');
  assert.equal(slug('Ünïcödé àgent'), 'unicode-agent');
  assert.equal(slug('日本語'), 'agent', 'nothing usable left: a fallback');
  assert.equal(slug('a'.repeat(50)).length, 32);
  assert.doesNotMatch(slug(`${'a'.repeat(31)}-bbbb`), /-$/, 'no trailing dash after truncation');
});

test('shortId: a prefix of random-looking ids, a hash of anything else', () => {
  assert.equal(shortId('3f2a9c1e-1111-4222-8333-444455556666'), '3f2a9c1e');
  assert.equal(shortId('a1b2c3d4e5f6'), 'a1b2c3d4');
  assert.match(shortId('agent-1'), /^[0-9a-f]{8}$/);
  assert.notEqual(shortId('agent-1'), shortId('agent-11'));
  assert.equal(shortId('agent-1'), shortId('agent-1'), 'stable');
});

test('worktree and branch names, with suffixes for taken ones', () => {
  const id = '3f2a9c1e-1111-4222-8333-444455556666';
  assert.equal(worktreeName('Code Reviewer', id), 'code-reviewer-3f2a9c1e');
  assert.equal(worktreeName('Code Reviewer', id, 1), 'code-reviewer-3f2a9c1e-2');
  assert.equal(branchName('x-1'), 'subagents/x-1');
  assert.equal(backupRef('x-1'), 'refs/subagents/before-apply/x-1');
});

test('generated branch names are valid git ref names', () => {
  for (const name of ['Code Reviewer', '..', 'a.lock', 'x@{y}', '-lead', 'ends.', 'sp ace/sl~ash^:?*[']) {
    const branch = branchName(worktreeName(name, 'agent-1'));
    execFileSync('git', ['check-ref-format', '--branch', branch], { stdio: 'ignore' });
  }
});

test('repository folders: readable name plus a hash of the git dir', () => {
  assert.match(repoFolderName('/home/u/src/my-app/.git'), /^my-app-[0-9a-f]{10}$/);
  assert.match(repoFolderName('/srv/git/tool.git'), /^tool-[0-9a-f]{10}$/);
  assert.notEqual(repoFolderName('/a/app/.git'), repoFolderName('/b/app/.git'));
});

test('record file names are safe on case-insensitive file systems', () => {
  assert.equal(recordFileName('agent-1'), 'agent-1.json');
  assert.match(recordFileName('Agent-1'), /^agent-1-[0-9a-f]{12}\.json$/);
  assert.notEqual(recordFileName('Agent-1'), recordFileName('agent-1'));
  assert.match(recordFileName('../../etc/passwd'), /^etc-passwd-[0-9a-f]{12}\.json$/);
});

test('isInside', () => {
  assert.equal(isInside(path.join('/a', 'b', 'c'), path.join('/a', 'b')), true);
  assert.equal(isInside('/a/b', '/a/b'), true);
  assert.equal(isInside('/a/bc', '/a/b'), false);
  assert.equal(isInside('/a', '/a/b'), false);
});
