import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { currentOwner, ownerAlive, pidAlive, processStart } from '../../../src/core/processOwner';

test('an owner whose pid now belongs to a later process is gone; records without a start time go by the pid', { skip: process.platform !== 'linux' && 'process start times are read from /proc' }, async () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  try {
    await new Promise((resolve) => child.once('spawn', resolve));
    const pid = child.pid!;
    const started = processStart(pid);
    assert.match(started ?? '', /^[0-9a-f-]+:\d+$/);
    assert.equal(currentOwner('me').started, processStart(process.pid), 'this process records its own start');
    const host = os.hostname();
    assert.equal(ownerAlive({ pid, host, instance: 'x', started: started! }), true, 'the process that wrote the record');
    assert.equal(ownerAlive({ pid, host, instance: 'x', started: `${started!.split(':')[0]}:1` }), false, 'the pid reused by another process');
    assert.equal(ownerAlive({ pid, host, instance: 'x' }), true, 'a record without a start time');
  } finally {
    child.kill();
  }
});

test('an owner that exited but was never reaped (a zombie) is gone, though its pid still takes signals', { skip: process.platform !== 'linux' && 'process states are read from /proc' }, async () => {
  // A shell that starts a child, then becomes `sleep`, which never reaps it; the child is killed once it has.
  const parent = spawn('/bin/sh', ['-c', 'sleep 60 & echo $!; exec sleep 61'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
    const stat = (of: number) => readFileSync(`/proc/${of}/stat`, 'utf8');
    while (!readFileSync(`/proc/${parent.pid}/cmdline`, 'utf8').includes('61')) await new Promise((resolve) => setImmediate(resolve));
    process.kill(pid, 'SIGKILL');
    while (stat(pid).split(') ')[1]![0] !== 'Z') await new Promise((resolve) => setImmediate(resolve));
    process.kill(pid, 0); // no throw: the zombie's pid still takes signals
    assert.equal(pidAlive(pid), false);
    const started = processStart(pid);
    assert.equal(ownerAlive({ pid, host: os.hostname(), instance: 'x', ...(started ? { started } : {}) }), false);
  } finally {
    parent.kill('SIGKILL');
  }
});
