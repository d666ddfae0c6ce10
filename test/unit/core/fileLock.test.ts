import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FileLock } from '../../../src/core/fileLock';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-lock-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A pid that is not running: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

test('another process holding the lock is waited for: its work and ours never overlap', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'history.lock');
  const log = path.join(dir, 'log');
  const moduleUrl = new URL('../../../src/core/fileLock.ts', import.meta.url).href;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
    const { appendFile } = await import('node:fs/promises');
    const { FileLock } = await import(${JSON.stringify(moduleUrl)});
    await new FileLock(${JSON.stringify(file)}).run(async () => {
      await appendFile(${JSON.stringify(log)}, 'child in\\n');
      process.stdout.write('in');
      await new Promise((r) => setTimeout(r, 400));
      await appendFile(${JSON.stringify(log)}, 'child out\\n');
    });`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await new Promise((resolve) => child.stdout.once('data', resolve));
  await new FileLock(file).run(async () => writeFile(log, `${await readFile(log, 'utf8')}parent in\n`));
  await exited;
  assert.equal(await readFile(log, 'utf8'), 'child in\nchild out\nparent in\n');
});

test('a lock left by a process that died is taken over at once', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'history.lock');
  await writeFile(file, JSON.stringify({ pid: await deadPid(), host: os.hostname(), instance: 'gone' }));
  const ran = await new FileLock(file).run(async () => 'ran');
  assert.equal(ran, 'ran');
});

test('a lock whose holder\'s pid now belongs to another process is taken over at once', { skip: process.platform !== 'linux' && 'process start times are read from /proc' }, async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'history.lock');
  // A live process with the holder's pid, but not the one that took the lock (it started at another time).
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  t.after(() => void other.kill());
  await new Promise((resolve) => other.once('spawn', resolve));
  await writeFile(file, JSON.stringify({ pid: other.pid, host: os.hostname(), instance: 'gone', started: 'an-earlier-boot:1' }));
  const ran = await new FileLock(file).run(async () => 'ran');
  assert.equal(ran, 'ran');
});

test('a lock file naming no holder is waited for while fresh, and taken over once stale', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'history.lock');
  await writeFile(file, '');
  const old = new Date(Date.now() - 10_000);
  await utimes(file, old, old);
  assert.equal(await new FileLock(file).run(async () => 'stale taken'), 'stale taken');

  await writeFile(file, '');
  let done = false;
  const waiting = new FileLock(file).run(async () => (done = true));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(done, false, 'a fresh unreadable lock may be one being written: it is waited for');
  await rm(file);
  await waiting;
  assert.equal(done, true);
});

test('processes racing to take over a dead holder\'s lock never both hold it', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'history.lock');
  const dead = JSON.stringify({ pid: await deadPid(), host: os.hostname(), instance: 'gone' });
  const moduleUrl = new URL('../../../src/core/fileLock.ts', import.meta.url).href;
  const processes = 3;
  const rounds = 40;
  // Every round starts at the same moment in each process, on a lock a dead process left.
  const startAt = Date.now() + 1500;
  const worker = `
    const { open, rm, writeFile } = await import('node:fs/promises');
    const { FileLock } = await import(${JSON.stringify(moduleUrl)});
    const lock = new FileLock(${JSON.stringify(file)});
    let overlaps = 0;
    for (let round = 0; round < ${rounds}; round++) {
      const at = ${startAt} + round * 150;
      while (Date.now() < at) await new Promise((r) => setTimeout(r, 1));
      await writeFile(${JSON.stringify(file)}, ${JSON.stringify(dead)}, { flag: 'wx' }).catch(() => undefined);
      await lock.run(async () => {
        try {
          await (await open(${JSON.stringify(path.join(dir, 'inside'))}, 'wx')).close();
        } catch {
          overlaps++;
          return;
        }
        await new Promise((r) => setTimeout(r, 20));
        await rm(${JSON.stringify(path.join(dir, 'inside'))});
      });
    }
    process.stdout.write(String(overlaps));`;
  const results = await Promise.all(
    Array.from({ length: processes }, async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', worker], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const code = await new Promise((resolve) => child.on('exit', resolve));
      return { code, out };
    }),
  );
  assert.deepEqual(results, Array.from({ length: processes }, () => ({ code: 0, out: '0' })));
});

test('a holder whose lock was taken over (judged abandoned) leaves the new holder\'s lock in place', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'history.lock');
  const other = JSON.stringify({ pid: process.pid, host: os.hostname(), instance: 'other', token: 'theirs' });
  await new FileLock(file).run(async () => {
    await rm(file);
    await writeFile(file, other);
  });
  assert.equal(await readFile(file, 'utf8'), other);
});

test('a waiter behind a queue of short holders waits its turn; a holder that keeps the lock too long fails it clearly', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'queue.lock');
  // Other "processes" (live owners, other instances) holding the lock one after the other, 150 ms each: 600 ms in all.
  const holder = (token: string) => JSON.stringify({ pid: process.pid, host: os.hostname(), instance: `other-${token}`, token });
  const { liveInstances } = await import('../../../src/core/processOwner');
  for (const token of ['a', 'b', 'c', 'd']) liveInstances.add(`other-${token}`);
  t.after(() => ['a', 'b', 'c', 'd'].forEach((token) => liveInstances.delete(`other-${token}`)));
  await writeFile(file, holder('a'));
  const relay = (async () => {
    for (const next of ['b', 'c', 'd', null]) {
      await new Promise((r) => setTimeout(r, 150));
      if (next) await writeFile(file, holder(next));
      else await rm(file);
    }
  })();
  assert.equal(await new FileLock(file, 'The queue', 400).run(async () => 'my turn'), 'my turn');
  await relay;

  await writeFile(file, holder('a'));
  await assert.rejects(new FileLock(file, 'The queue', 400).run(async () => 'never'), /^Error: The queue is locked by process \d+ on .+, which has held it for over 0 s/);
});
