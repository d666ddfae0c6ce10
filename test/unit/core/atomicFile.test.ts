import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isTempFile, writeFileAtomic } from '../../../src/core/atomicFile';

/** A file's worth of one repeated letter: a torn or partial write shows as a wrong length or a mix. */
const payload = (letter: string, size: number) => letter.repeat(size);

function wholeOf(text: string, size: number, letters: string): boolean {
  return text.length === size && letters.includes(text[0]!) && text === text[0]!.repeat(size);
}

test('a reader never sees a partial file while it is replaced again and again', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-atomic-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'run.json');
  const size = 4 * 1024 * 1024;
  await writeFileAtomic(file, payload('a', size));
  let writing = true;
  const writer = (async () => {
    for (let i = 0; i < 12; i++) await writeFileAtomic(file, payload(i % 2 ? 'a' : 'b', size));
    writing = false;
  })();
  let reads = 0;
  while (writing) {
    const text = await readFile(file, 'utf8');
    reads++;
    assert.ok(wholeOf(text, size, 'ab'), `read ${reads} saw a partial file: ${text.length} characters`);
  }
  await writer;
  assert.ok(reads > 3, `the reader overlapped the writes (${reads} reads)`);
});

test('SIGKILL during writes: the file always holds one whole version, never a torn one', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-atomic-kill-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'run.json');
  const size = 16 * 1024 * 1024;
  await writeFile(file, payload('a', size));
  const moduleUrl = new URL('../../../src/core/atomicFile.ts', import.meta.url).href;
  // The child writes big versions back to back and says when each write starts.
  const child = `
    const { writeFileAtomic } = await import(${JSON.stringify(moduleUrl)});
    for (let i = 0; ; i++) {
      process.stdout.write('w');
      await writeFileAtomic(${JSON.stringify(file)}, (i % 2 ? 'c' : 'b').repeat(${size}));
    }`;
  for (let round = 0; round < 6; round++) {
    const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child], { stdio: ['ignore', 'pipe', 'inherit'] });
    let starts = 0;
    const target = 2 + (round % 3);
    await new Promise<void>((resolve) => {
      proc.stdout.on('data', (d: Buffer) => {
        starts += d.length;
        // Killed a moment into a write (the write takes far longer than this).
        if (starts >= target) setTimeout(() => proc.kill('SIGKILL'), 2 + round * 3);
      });
      proc.on('exit', () => resolve());
    });
    const text = await readFile(file, 'utf8');
    assert.ok(wholeOf(text, size, 'abc'), `round ${round}: the file was torn (${text.length} characters)`);
  }
  assert.ok((await readdir(dir)).some(isTempFile), 'some kills landed between writing the temp file and the rename');
});

test('a failed rename leaves the old content and no temp file behind', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-atomic-fail-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // A directory where the file should be: the rename cannot replace it.
  const target = path.join(dir, 'occupied');
  await mkdir(target);
  await writeFile(path.join(target, 'inside'), 'old');
  await assert.rejects(writeFileAtomic(target, 'new content'));
  assert.equal(await readFile(path.join(target, 'inside'), 'utf8'), 'old');
  assert.deepEqual((await readdir(dir)).filter(isTempFile), [], 'the temp file was cleaned up');
});

test('a new file is created with owner-only permissions, and the directory is made as needed', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-atomic-new-'));
  t.after(async () => {
    await chmod(dir, 0o700).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  const file = path.join(dir, 'deep', 'er', 'state.json');
  await writeFileAtomic(file, '{}');
  assert.equal(await readFile(file, 'utf8'), '{}');
  const { statSync } = await import('node:fs');
  if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o600);
});

test('a symbolic link is written through: a chain of links stays, the last target is replaced in its own folder, a dangling link creates its target', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-atomic-link-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const { lstat, readlink, stat, symlink } = await import('node:fs/promises');
  await mkdir(path.join(dir, 'real'));
  await writeFile(path.join(dir, 'real', 'file.json'), 'old');
  await chmod(path.join(dir, 'real', 'file.json'), 0o640);
  await symlink('real/file.json', path.join(dir, 'second'));
  await symlink(path.join(dir, 'second'), path.join(dir, 'first'));
  await writeFileAtomic(path.join(dir, 'first'), 'new');
  assert.equal(await readlink(path.join(dir, 'first')), path.join(dir, 'second'));
  assert.equal(await readlink(path.join(dir, 'second')), 'real/file.json');
  assert.equal(await readFile(path.join(dir, 'real', 'file.json'), 'utf8'), 'new');
  if (process.platform !== 'win32') assert.equal((await stat(path.join(dir, 'real', 'file.json'))).mode & 0o777, 0o640);
  assert.deepEqual((await readdir(path.join(dir, 'real'))).filter(isTempFile), []);

  await symlink('later.json', path.join(dir, 'dangling'));
  await writeFileAtomic(path.join(dir, 'dangling'), 'made');
  assert.equal((await lstat(path.join(dir, 'dangling'))).isSymbolicLink(), true);
  assert.equal(await readFile(path.join(dir, 'later.json'), 'utf8'), 'made');

  await symlink('loop-b', path.join(dir, 'loop-a'));
  await symlink('loop-a', path.join(dir, 'loop-b'));
  await assert.rejects(writeFileAtomic(path.join(dir, 'loop-a'), 'x'), /too many levels of symbolic links/);
});
