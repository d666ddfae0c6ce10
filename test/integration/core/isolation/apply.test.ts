import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { WorktreeManager, WorktreeRecord } from '../../../../src/core/isolation';
import { branchExists, makeSandbox, type Sandbox } from './helpers';

const sandboxes: Sandbox[] = [];
after(() => sandboxes.forEach((sb) => sb.cleanup()));

const LINES = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
const text = (lines: string[]) => `${lines.join('\n')}\n`;
const edit = (i: number, value: string) => text(LINES.map((l, j) => (j === i ? value : l)));

/** A finished agent whose worktree changes were made by `work`. */
async function agent(
  sb: Sandbox,
  m: WorktreeManager,
  agentId: string,
  work: (rec: WorktreeRecord) => void,
): Promise<WorktreeRecord> {
  const rec = await m.create({ cwd: sb.repo, agentName: 'fixer', agentId });
  work(rec);
  assert.ok(await m.finish(agentId), 'the agent changed something');
  return rec;
}

test('a conflicting user edit: reported, conflict markers written, both versions recoverable, index untouched', async () => {
  const sb = makeSandbox({ 'doc.txt': text(LINES) });
  sandboxes.push(sb);
  const m = sb.manager();
  const rec = await agent(sb, m, 'c1', (r) => sb.write('doc.txt', edit(4, 'line 5, as the agent wrote it'), r.path));
  // Meanwhile the user changed the same line.
  sb.write('doc.txt', edit(4, 'line 5, as the user wrote it'));
  const before = sb.userState();

  const outcome = await m.apply('c1');
  assert.equal(outcome.applied, true);
  assert.deepEqual(outcome.conflicts, ['doc.txt']);
  assert.equal(outcome.conflictDetails[0]?.resolution, 'markers');
  assert.match(outcome.message, /1 conflict: doc\.txt \(conflict markers written\)/);

  const merged = sb.read('doc.txt');
  assert.match(merged, /^<<<<<<< refs\/subagents\/before-apply\/.+\nline 5, as the user wrote it\n=======\nline 5, as the agent wrote it\n>>>>>>> subagents\//m);
  // The user's version: in the file (ours side) and, whole, in the backup ref.
  assert.ok(outcome.backupRef);
  assert.equal(sb.git(['show', `${outcome.backupRef}:doc.txt`]), edit(4, 'line 5, as the user wrote it'));
  // The agent's version: on its branch.
  assert.equal(sb.git(['show', `${rec.branch}:doc.txt`]), edit(4, 'line 5, as the agent wrote it'));
  const afterApply = sb.userState();
  assert.equal(afterApply.index, before.index, 'no conflict stages in the index: it is untouched');
  assert.equal(afterApply.head, before.head, 'no commit on the user branch');
  assert.equal(afterApply.status, ' M doc.txt\n');

  // Restoring the user's file works as the message says.
  sb.git(['restore', `--source=${outcome.backupRef}`, '--', 'doc.txt']);
  assert.equal(sb.read('doc.txt'), edit(4, 'line 5, as the user wrote it'));
});

test('edits to different parts of one file merge cleanly; the user’s other work stays', async () => {
  const sb = makeSandbox({ 'doc.txt': text(LINES), 'other.txt': 'other\n' });
  sandboxes.push(sb);
  const m = sb.manager();
  await agent(sb, m, 'c2', (r) => sb.write('doc.txt', edit(10, 'line 11 by agent'), r.path));
  sb.write('doc.txt', edit(1, 'line 2 by user'));
  sb.write('other.txt', 'other, edited by the user\n');
  sb.write('mine.txt', 'untracked user file\n');

  const outcome = await m.apply('c2');
  assert.deepEqual([outcome.applied, outcome.conflicts, outcome.updated], [true, [], ['doc.txt']]);
  assert.equal(sb.read('doc.txt'), text(LINES.map((l, j) => (j === 1 ? 'line 2 by user' : j === 10 ? 'line 11 by agent' : l))));
  assert.equal(sb.read('other.txt'), 'other, edited by the user\n');
  assert.equal(sb.read('mine.txt'), 'untracked user file\n');
});

test('added, deleted, renamed, mode-changed and binary files come through; the user may have committed since', async () => {
  const sb = makeSandbox({ 'old/name.txt': 'moving\n', 'remove-me.txt': 'bye\n', 'run.sh': 'echo hi\n', 'keep.txt': 'k\n' });
  sandboxes.push(sb);
  const m = sb.manager();
  await agent(sb, m, 'c3', (r) => {
    mkdirSync(path.join(r.path, 'new'));
    sb.git(['mv', 'old/name.txt', 'new/name.txt'], r.path);
    rmSync(path.join(r.path, 'remove-me.txt'));
    sb.write('img/pixel.bin', Buffer.from([137, 80, 78, 71, 0, 0, 0, 13, 255]), r.path);
    chmodSync(path.join(r.path, 'run.sh'), 0o755);
    sb.write('deep/er/file.ts', 'export {};\n', r.path);
  });
  // The user commits unrelated work before applying.
  sb.write('keep.txt', 'k2\n');
  sb.git(['commit', '-q', '-am', 'user work']);
  const head = sb.userState().head;

  const outcome = await m.apply('c3');
  assert.deepEqual(outcome.conflicts, []);
  assert.equal(sb.exists('old/name.txt'), false);
  assert.equal(sb.exists('old'), false, 'emptied folders go too');
  assert.equal(sb.read('new/name.txt'), 'moving\n');
  assert.equal(sb.exists('remove-me.txt'), false);
  assert.equal(sb.read('keep.txt'), 'k2\n');
  assert.equal(sb.read('deep/er/file.ts'), 'export {};\n');
  assert.deepEqual(readFileSync(path.join(sb.repo, 'img/pixel.bin')), Buffer.from([137, 80, 78, 71, 0, 0, 0, 13, 255]));
  if (process.platform !== 'win32') {
    assert.equal(sb.git(['diff', '--summary', '--', 'run.sh']).trim(), 'mode change 100644 => 100755 run.sh');
  }
  assert.equal(sb.userState().head, head);
});

test('conflicts that cannot be marked in a file keep the user’s file as it is', async () => {
  const sb = makeSandbox({ 'pic.bin': '\0one', 'edited-by-user.txt': 'a\n', 'deleted-by-user.txt': 'b\n', 'both.txt': 'c\n' });
  sandboxes.push(sb);
  const m = sb.manager();
  const rec = await agent(sb, m, 'c4', (r) => {
    sb.write('pic.bin', '\0agent', r.path);
    rmSync(path.join(r.path, 'edited-by-user.txt'));
    sb.write('deleted-by-user.txt', 'b, agent\n', r.path);
    sb.write('both.txt', 'c, agent\n', r.path);
    sb.write('ignored.log', 'agent log\n', r.path);
    sb.git(['add', '-f', 'ignored.log'], r.path);
  });
  sb.write('pic.bin', '\0user');
  sb.write('edited-by-user.txt', 'a, user\n');
  rmSync(path.join(sb.repo, 'deleted-by-user.txt'));
  sb.write('.git/info/exclude', 'ignored.log\n');
  sb.write('ignored.log', 'user log\n');

  const outcome = await m.apply('c4');
  const byPath = Object.fromEntries(outcome.conflictDetails.map((c) => [c.path, c]));
  assert.deepEqual(Object.keys(byPath).sort(), ['deleted-by-user.txt', 'edited-by-user.txt', 'ignored.log', 'pic.bin']);
  for (const c of Object.values(byPath)) assert.equal(c.resolution, 'kept-yours', c.path);
  assert.match(byPath['edited-by-user.txt']!.reason, /you changed it and the agent deleted it/);
  assert.match(byPath['deleted-by-user.txt']!.reason, /you deleted it and the agent changed it/);
  assert.equal(sb.read('pic.bin'), '\0user');
  assert.equal(sb.read('edited-by-user.txt'), 'a, user\n');
  assert.equal(sb.exists('deleted-by-user.txt'), false);
  assert.equal(sb.read('ignored.log'), 'user log\n');
  assert.equal(sb.read('both.txt'), 'c, agent\n', 'the clean part still applies');
  assert.equal(sb.git(['show', `${rec.branch}:pic.bin`]), '\0agent');
  assert.match(outcome.message, /The agent's version of every file stays on subagents\//);
});

test('applying twice changes nothing the second time; discard then removes branch and backup', async () => {
  const sb = makeSandbox();
  sandboxes.push(sb);
  const m = sb.manager();
  const rec = await agent(sb, m, 'c5', (r) => sb.write('src/app.ts', 'export const a = 42;\n', r.path));
  assert.equal((await m.apply('c5')).applied, true);
  const second = await m.apply('c5');
  assert.deepEqual([second.applied, second.conflicts, second.updated], [false, [], []]);
  assert.match(second.message, /already has every change/);
  assert.equal(sb.read('src/app.ts'), 'export const a = 42;\n');
  // The branch survives the apply, the worktree folder does not.
  assert.equal(sb.git(['rev-parse', '--verify', '-q', rec.branch]).trim().length, 40);
  await m.discard('c5');
  assert.equal(sb.git(['for-each-ref', 'refs/subagents', 'refs/heads/subagents']), '');
});

test('a renamed file the user edited meanwhile: the edit follows the rename', async () => {
  const sb = makeSandbox({ 'a.txt': text(LINES) });
  sandboxes.push(sb);
  const m = sb.manager();
  await agent(sb, m, 'c6', (r) => renameSync(path.join(r.path, 'a.txt'), path.join(r.path, 'b.txt')));
  sb.write('a.txt', edit(0, 'first line by user'));
  const outcome = await m.apply('c6');
  assert.deepEqual(outcome.conflicts, []);
  assert.equal(sb.exists('a.txt'), false);
  assert.equal(sb.read('b.txt'), edit(0, 'first line by user'));
});

test('a second apply over conflict markers is refused, leaving the file and the first backup as they are', async () => {
  const sb = makeSandbox({ 'doc.txt': text(LINES) });
  sandboxes.push(sb);
  const m = sb.manager();
  await agent(sb, m, 'twice', (r) => sb.write('doc.txt', edit(4, 'line 5, as the agent wrote it'), r.path));
  sb.write('doc.txt', edit(4, 'line 5, as the user wrote it'));
  const first = await m.apply('twice');
  assert.deepEqual(first.conflicts, ['doc.txt']);
  const afterFirst = sb.read('doc.txt');
  const backup = sb.git(['rev-parse', first.backupRef!]).trim();

  await assert.rejects(m.apply('twice'), /applied already.*would merge them a second time.*doc\.txt.*refs\/subagents\/before-apply\//s);
  assert.equal(sb.read('doc.txt'), afterFirst, 'no nested conflict markers');
  assert.equal((afterFirst.match(/^<<<<<<< /gm) ?? []).length, 1);
  assert.equal(sb.git(['rev-parse', first.backupRef!]).trim(), backup, 'the first backup still holds the tree from before the first apply');
});

test('applying again after a follow-up keeps both backups; discard removes them all', async () => {
  const sb = makeSandbox({ 'doc.txt': text(LINES), 'other.txt': 'other\n' });
  sandboxes.push(sb);
  const m = sb.manager();
  await agent(sb, m, 'again', (r) => sb.write('doc.txt', edit(0, 'first change'), r.path));
  const first = await m.apply('again');
  const reopened = await m.reopen('again');
  sb.write('other.txt', 'second change\n', reopened.path);
  assert.ok(await m.finish('again'));
  sb.write('doc.txt', edit(11, 'the user meanwhile'));
  const second = await m.apply('again');
  assert.equal(second.applied, true);
  assert.notEqual(second.backupRef, first.backupRef, 'a new backup for the second apply');
  assert.match(sb.git(['show', `${first.backupRef}:doc.txt`]), /^line 1$/m, 'the first backup is the tree before the first apply');
  assert.match(sb.git(['show', `${second.backupRef}:doc.txt`]), /the user meanwhile/);
  assert.equal(sb.read('other.txt'), 'second change\n');
  await m.discard('again');
  assert.equal(sb.git(['for-each-ref', 'refs/subagents', 'refs/heads/subagents']), '');
});

test('apply after the agent\'s branch was deleted by hand: the changes come from the commit the agent finished on', async () => {
  const sb = makeSandbox();
  sandboxes.push(sb);
  const m = sb.manager();
  const rec = await agent(sb, m, 'c9', (r) => sb.write('src/app.ts', 'export const fixed = true;\n', r.path));
  // The user cleans up by hand: the worktree first (git refuses to delete a checked-out branch), then the branch.
  sb.git(['worktree', 'remove', '--force', rec.path]);
  sb.git(['branch', '-D', rec.branch]);
  assert.equal(branchExists(sb, rec.branch), false);
  const outcome = await m.apply('c9');
  assert.deepEqual([outcome.applied, outcome.conflicts], [true, []], outcome.message);
  assert.equal(sb.read('src/app.ts'), 'export const fixed = true;\n');
});

test('a symbolic link (or a file) where the agent needs a folder is a conflict: the link stays, nothing is written through it or outside', async () => {
  const sb = makeSandbox({ 'a.txt': 'a\n' });
  sandboxes.push(sb);
  const outside = path.join(path.dirname(sb.repo), `outside-${path.basename(sb.repo)}`);
  mkdirSync(outside, { recursive: true });
  const m = sb.manager();
  // The agent force-adds files under folders that are ignored links (or a file) in the user's tree, and one ordinary change.
  await agent(sb, m, 'l1', (r) => {
    sb.write('out/pwn.txt', 'planted\n', r.path);
    sb.write('gone/old.txt', 'old\n', r.path);
    sb.write('notes/x.txt', 'x\n', r.path);
    sb.write('a.txt', 'a, changed\n', r.path);
    sb.git(['add', '-f', 'out/pwn.txt', 'gone/old.txt', 'notes/x.txt', 'a.txt'], r.path);
  });
  sb.write('.git/info/exclude', 'out\ngone\nnotes\n');
  symlinkSync(outside, path.join(sb.repo, 'out'));
  sb.write('notes', 'a file of mine\n');
  const outcome = await m.apply('l1');
  assert.equal(outcome.applied, true);
  assert.deepEqual(outcome.updated, ['a.txt', 'gone/old.txt']);
  const byPath = Object.fromEntries(outcome.conflictDetails.map((d) => [d.path, d]));
  assert.deepEqual(Object.keys(byPath).sort(), ['notes/x.txt', 'out/pwn.txt']);
  assert.equal(byPath['out/pwn.txt']!.resolution, 'kept-yours');
  assert.match(byPath['out/pwn.txt']!.reason, /you have a symbolic link at out where the agent's file needs a folder/);
  assert.match(byPath['notes/x.txt']!.reason, /you have a file at notes where the agent's file needs a folder/);
  assert.equal(lstatSync(path.join(sb.repo, 'out')).isSymbolicLink(), true, 'the link is still a link');
  assert.equal(readlinkSync(path.join(sb.repo, 'out')), outside);
  assert.deepEqual(readdirSync(outside), [], 'nothing written outside the repository');
  assert.equal(sb.read('notes'), 'a file of mine\n');
  assert.equal(sb.read('a.txt'), 'a, changed\n');
});
