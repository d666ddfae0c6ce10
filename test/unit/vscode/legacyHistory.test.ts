import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { adoptWindowHistory } from '../../../src/vscode/legacyHistory';

// The runs an earlier version kept in VS Code's own storage join the history
// shared with the CLI, once, without overwriting anything already there.

test('runs, transcripts and waiting messages are copied once; what the shared history has wins; consents are merged', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'subagents-adopt-'));
  try {
    const storage = path.join(root, 'globalStorage');
    const data = path.join(root, 'data', 'subagents');
    await mkdir(path.join(storage, 'history', 'runs'), { recursive: true });
    await mkdir(path.join(storage, 'history', 'transcripts'), { recursive: true });
    await mkdir(path.join(data, 'runs'), { recursive: true });
    await writeFile(path.join(storage, 'history', 'runs', 'r1.json'), '{"old":1}');
    await writeFile(path.join(storage, 'history', 'runs', 'r2.json'), '{"old":2}');
    await writeFile(path.join(storage, 'history', 'transcripts', 'a1.ndjson'), '{}\n');
    await writeFile(path.join(data, 'runs', 'r2.json'), '{"shared":2}');
    await writeFile(path.join(storage, 'mode-consents.json'), JSON.stringify([{ digest: 'd1', mode: 'acceptEdits' }, { digest: 'd2', mode: 'acceptEdits' }]));
    await writeFile(path.join(data, 'mode-consents.json'), JSON.stringify([{ digest: 'd2', mode: 'bypassPermissions' }]));

    assert.equal(await adoptWindowHistory(storage, data), 1);
    assert.equal(await readFile(path.join(data, 'runs', 'r1.json'), 'utf8'), '{"old":1}');
    assert.equal(await readFile(path.join(data, 'runs', 'r2.json'), 'utf8'), '{"shared":2}', 'the shared history was overwritten');
    assert.deepEqual(await readdir(path.join(data, 'transcripts')), ['a1.ndjson']);
    const consents = JSON.parse(await readFile(path.join(data, 'mode-consents.json'), 'utf8')) as Array<{ digest: string; mode: string }>;
    assert.deepEqual(consents.map((c) => `${c.digest}:${c.mode}`).sort(), ['d1:acceptEdits', 'd2:bypassPermissions']);
    assert.match(await readFile(path.join(storage, 'history', 'MOVED.txt'), 'utf8'), new RegExp(data.replace(/[/\\]/g, '.')));

    // Once: a run added to the old folder later is not copied again.
    await writeFile(path.join(storage, 'history', 'runs', 'r3.json'), '{"old":3}');
    assert.equal(await adoptWindowHistory(storage, data), 0);
    assert.equal((await readdir(path.join(data, 'runs'))).includes('r3.json'), false);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('without an old history there is nothing to do', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'subagents-adopt-'));
  try {
    assert.equal(await adoptWindowHistory(path.join(root, 'none'), path.join(root, 'data')), 0);
    assert.deepEqual(await readdir(root), []);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
