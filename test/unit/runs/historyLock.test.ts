import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HistoryLock } from '../../../src/core/runs/historyLock';

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
  const moduleUrl = new URL('../../../src/core/runs/historyLock.ts', import.meta.url).href;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
    const { appendFile } = await import('node:fs/promises');
    const { HistoryLock } = await import(${JSON.stringify(moduleUrl)});
    await new HistoryLock(${JSON.stringify(file)}).run(async () => {
      await appendFile(${JSON.stringify(log)}, 'child in\\n');
      process.stdout.write('in');
      await new Promise((r) => setTimeout(r, 400));
      await appendFile(${JSON.stringify(log)}, 'child out\\n');
    });`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await new Promise((resolve) => child.stdout.once('data', resolve));
  await new HistoryLock(file).run(async () => writeFile(log, `${await readFile(log, 'utf8')}parent in\n`));
  await exited;
  assert.equal(await readFile(log, 'utf8'), 'child in\nchild out\nparent in\n');
});

test('a lock left by a process that died is taken over at once', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'history.lock');
  await writeFile(file, JSON.stringify({ pid: await deadPid(), host: os.hostname(), instance: 'gone' }));
  const ran = await new HistoryLock(file).run(async () => 'ran');
  assert.equal(ran, 'ran');
});

test('a lock file naming no holder is waited for while fresh, and taken over once stale', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'history.lock');
  await writeFile(file, '');
  const old = new Date(Date.now() - 10_000);
  await utimes(file, old, old);
  assert.equal(await new HistoryLock(file).run(async () => 'stale taken'), 'stale taken');

  await writeFile(file, '');
  let done = false;
  const waiting = new HistoryLock(file).run(async () => (done = true));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(done, false, 'a fresh unreadable lock may be one being written: it is waited for');
  await rm(file);
  await waiting;
  assert.equal(done, true);
});
