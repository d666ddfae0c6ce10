import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import os from 'node:os';
import { currentOwner, ownerAlive, processStart } from '../../../src/core/processOwner';

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
