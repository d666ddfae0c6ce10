import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

// A command waiting on nothing that can still happen must not end as a silent success.

const MAIN = path.resolve(import.meta.dirname, '../../../src/cli/main.ts');

function run(body: string) {
  const script = `import { endsWithAnAnswer } from ${JSON.stringify(MAIN)};\n${body}`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
}

test('a command left waiting on a timer that does not keep the process alive exits 1 and says so', () => {
  const r = run(`endsWithAnAnswer(new Promise((resolve) => setTimeout(resolve, 60_000).unref()), process.stderr, 'run');`);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^subagents run: stopped before it finished: it was left waiting on nothing that could still happen/);
});

test('a command that answers exits as it chose, with nothing added', () => {
  const r = run(`endsWithAnAnswer(new Promise((resolve) => setTimeout(resolve, 10)), process.stderr, 'run').then(() => { process.exitCode = 0; });`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
});
