import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { appendLog, decodeJson, encodeJson, NewerVersion, parseLog, readLog, UnreadableFile, withRetries, WriteFailed, type JsonFormat, type LogFormat } from '../../../src/core/persistence';

// The persistence layer every stored file goes through: versions with a reader per version kept,
// newer files left alone, failed writes retried then named, unreadable parts named.

const NOTE: JsonFormat<{ text: string }> = {
  what: 'note',
  version: 2,
  readers: {
    0: (data) => ({ text: String((data as { note?: unknown }).note) }),
    2: (data) => {
      if (typeof data.text !== 'string') throw new Error('text is missing');
      return { text: data.text };
    },
  },
  fields: (note) => ({ text: note.text }),
};

test('a JSON file carries its version; each kept version has its reader; a newer one is left alone, never taken for broken', () => {
  assert.equal(encodeJson(NOTE, { text: 'hi' }), '{"version":2,"text":"hi"}');
  assert.deepEqual(decodeJson(NOTE, '{"version":2,"text":"hi"}'), { text: 'hi' });
  assert.deepEqual(decodeJson(NOTE, '{"note":"from before versions"}'), { text: 'from before versions' }, 'the reader of the oldest version is kept');
  assert.throws(() => decodeJson(NOTE, '{"version":3,"text":"hi"}'), (e: unknown) => e instanceof NewerVersion && /a note of version 3, written by a newer version of subagents \(this one reads up to version 2\); it was left as it is/.test(e.message));
  assert.throws(() => decodeJson(NOTE, '{"version":1,"text":"hi"}'), (e: unknown) => e instanceof UnreadableFile && /version 1, which this version of subagents no longer reads/.test(e.message));
  assert.throws(() => decodeJson(NOTE, '{"version":2}'), (e: unknown) => e instanceof UnreadableFile && /not a valid note \(text is missing\)/.test(e.message));
  assert.throws(() => decodeJson(NOTE, '{"version":2,"te'), (e: unknown) => e instanceof UnreadableFile && /not JSON/.test(e.message));
  assert.throws(() => decodeJson(NOTE, '{"version":"2"}'), UnreadableFile);
});

const LOG: LogFormat<{ n: number }> = {
  what: 'log',
  kind: 'test-log',
  version: 1,
  readers: {
    0: (v) => v as { n: number },
    1: (v) => {
      if (typeof (v as { n?: unknown }).n !== 'number') throw new Error('no n');
      return v as { n: number };
    },
  },
};

test('a log starts with its header; an older log without one stays readable and is appended to as it is', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-persist-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'new.ndjson');
  await appendLog(LOG, file, [{ n: 1 }, { n: 2 }]);
  await appendLog(LOG, file, [{ n: 3 }]);
  assert.equal(await readFile(file, 'utf8'), '{"subagents":"test-log","version":1}\n{"n":1}\n{"n":2}\n{"n":3}\n');
  assert.deepEqual(await readLog(LOG, file), { entries: [{ n: 1 }, { n: 2 }, { n: 3 }], problems: [] });
  const old = path.join(dir, 'old.ndjson');
  await writeFile(old, '{"n":1}\n');
  await appendLog(LOG, old, [{ n: 2 }]);
  assert.equal(await readFile(old, 'utf8'), '{"n":1}\n{"n":2}\n', 'no header is slipped into an older log');
  assert.deepEqual((await readLog(LOG, old))!.entries, [{ n: 1 }, { n: 2 }]);
  assert.equal(await readLog(LOG, path.join(dir, 'none.ndjson')), null);
});

test('reading a log names every part it cannot read, and keeps every entry after it', () => {
  const read = parseLog(LOG, '{"subagents":"test-log","version":1}\n{"n":1}\n{"n":\n{"m":2}\n{"n":3}\n{"n":4');
  assert.deepEqual(read.entries, [{ n: 1 }, { n: 3 }]);
  assert.equal(read.problems.length, 3);
  assert.match(read.problems[0]!, /^line 3 is not JSON/);
  assert.equal(read.problems[1], 'line 4 is not a valid entry (no n)');
  assert.equal(read.problems[2], 'line 6 was cut short while it was being written (6 characters kept of it)');
  assert.throws(() => parseLog(LOG, '{"subagents":"test-log","version":2}\n{"n":1}\n'), NewerVersion);
});

test('a write that fails for a passing reason is tried again; one that keeps failing, or fails for good, names the file', async () => {
  let calls = 0;
  const flaky = (failures: number, code: string) => async () => {
    calls++;
    if (calls <= failures) throw Object.assign(new Error(`${code}: no space left on device, write`), { code });
  };
  await withRetries('note', '/x/note.json', flaky(2, 'ENOSPC'), [0, 0, 0]);
  assert.equal(calls, 3, 'two failures, then it went through');
  calls = 0;
  await assert.rejects(withRetries('note', '/x/note.json', flaky(9, 'ENOSPC'), [0, 0, 0]), (e: unknown) => e instanceof WriteFailed && e.code === 'ENOSPC' && e.message === 'Could not save the note /x/note.json: ENOSPC: no space left on device, write');
  assert.equal(calls, 4, 'tried once and retried three times');
  calls = 0;
  await assert.rejects(withRetries('note', '/x/note.json', flaky(9, 'EACCES'), [0, 0, 0]), WriteFailed);
  assert.equal(calls, 1, 'a lasting error is not retried');
});

test('an append that fails half-way is cut back: the log keeps only whole lines, and a later append reads back whole', { skip: process.platform === 'win32' ? 'needs a shell with ulimit' : false }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-persist-torn-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'log.ndjson');
  const persistence = path.resolve(import.meta.dirname, '../../../src/core/persistence.ts');
  // A file size limit of 2 KiB makes the second append fail after writing part of it (EFBIG), as a full disk would.
  const script = `
    import { appendLog } from ${JSON.stringify(persistence)};
    const LOG = { what: 'log', kind: 'test-log', version: 1, readers: { 1: (v) => v } };
    const file = ${JSON.stringify(file)};
    await appendLog(LOG, file, [{ n: 1 }]);
    try { await appendLog(LOG, file, [{ n: 2, pad: 'x'.repeat(4000) }], { retryDelaysMs: [] }); console.log('appended'); }
    catch (e) { console.log(e.name, e.code); }
    await appendLog(LOG, file, [{ n: 3 }]);
  `;
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('bash', ['-c', `ulimit -f 2; exec "$0" --import tsx --input-type=module -e "$1"`, process.execPath, script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'WriteFailed EFBIG');
  assert.equal(await readFile(file, 'utf8'), '{"subagents":"test-log","version":1}\n{"n":1}\n{"n":3}\n');
});
