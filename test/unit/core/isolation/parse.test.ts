import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMergeTree, parseRawDiff } from '../../../../src/core/isolation/apply';
import { heldLock } from '../../../../src/core/isolation/git';
import { parseShortstat } from '../../../../src/core/isolation/repo';

test('parseShortstat', () => {
  assert.deepEqual(parseShortstat(' 3 files changed, 10 insertions(+), 2 deletions(-)'), { filesChanged: 3, insertions: 10, deletions: 2 });
  assert.deepEqual(parseShortstat(' 1 file changed, 1 insertion(+)'), { filesChanged: 1, insertions: 1, deletions: 0 });
  assert.deepEqual(parseShortstat(' 1 file changed, 1 deletion(-)'), { filesChanged: 1, insertions: 0, deletions: 1 });
  assert.deepEqual(parseShortstat(' 2 files changed, 0 insertions(+), 0 deletions(-)'), { filesChanged: 2, insertions: 0, deletions: 0 });
  assert.deepEqual(parseShortstat(''), { filesChanged: 0, insertions: 0, deletions: 0 });
});

test('parseMergeTree: tree, conflicted entries and messages of `merge-tree --write-tree -z`', () => {
  // Recorded from git 2.39 (NUL shown as |).
  const out = [
    '8148c4ad2a07a1e4394035f4acff4d13535a10c2',
    '100644 88768efdf77ec78c9a995f94881793be6a41752b 1\tb.bin',
    '100644 8231097e9d510965936e4c7fd30b6b783262af0d 2\tb.bin',
    '100644 9c9220a3ae0b65ea5becb5524bea8363cf315a2b 3\tb.bin',
    '100644 587be6b4c3f93f93c489c0111bba5596147a26cb 1\tdir with space/del.txt',
    '100644 1a0bbaa84c2850a5aa39e9d74771fe7b0b45383d 2\tdir with space/del.txt',
    '',
    '1', 'b.bin', 'CONFLICT (binary)', 'warning: Cannot merge binary files: b.bin (ours vs. theirs)\n',
    '1', 'b.bin', 'Auto-merging', 'Auto-merging b.bin\n',
    '1', 'dir with space/del.txt', 'CONFLICT (modify/delete)', 'CONFLICT (modify/delete): dir with space/del.txt deleted in theirs and modified in ours.\n',
    '',
  ].join('\0');
  const r = parseMergeTree(out);
  assert.equal(r.tree, '8148c4ad2a07a1e4394035f4acff4d13535a10c2');
  assert.equal(r.entries.length, 5);
  assert.deepEqual(r.entries[3], { mode: '100644', oid: '587be6b4c3f93f93c489c0111bba5596147a26cb', stage: 1, path: 'dir with space/del.txt' });
  assert.deepEqual(r.messages.map((m) => [m.paths, m.type]), [
    [['b.bin'], 'CONFLICT (binary)'],
    [['b.bin'], 'Auto-merging'],
    [['dir with space/del.txt'], 'CONFLICT (modify/delete)'],
  ]);
});

test('parseMergeTree: a clean merge is just the tree', () => {
  assert.deepEqual(parseMergeTree('8148c4ad2a07a1e4394035f4acff4d13535a10c2\0'), {
    tree: '8148c4ad2a07a1e4394035f4acff4d13535a10c2',
    entries: [],
    messages: [],
  });
});

test('parseRawDiff', () => {
  const z = ':100644 100755 aaaa bbbb M\0run.sh\0:000000 100644 0000 cccc A\0new file.txt\0:100644 000000 dddd 0000 D\0gone.txt\0';
  assert.deepEqual(parseRawDiff(z), [
    { srcMode: '100644', dstMode: '100755', path: 'run.sh' },
    { srcMode: '000000', dstMode: '100644', path: 'new file.txt' },
    { srcMode: '100644', dstMode: '000000', path: 'gone.txt' },
  ]);
});

test('heldLock recognises git lock contention, and only that', () => {
  assert.equal(
    heldLock("error: cannot lock ref 'refs/heads/x': Unable to create '/r/.git/refs/heads/x.lock': File exists.\n\nAnother git process seems"),
    '/r/.git/refs/heads/x.lock',
  );
  assert.equal(heldLock("fatal: Unable to create '/r/.git/index.lock': File exists."), '/r/.git/index.lock');
  assert.equal(heldLock("fatal: cannot lock ref 'refs/heads/x': reference already exists"), undefined);
});
