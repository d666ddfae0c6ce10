import { test } from 'node:test';
import assert from 'node:assert/strict';
import { problemLine } from '../../../src/cli/session';

// The worktree manager's and the history's warnings reach the CLI's stderr
// through problemLine: a git error or a corrupt run file can quote what an
// agent wrote, and that can hold the key.

const KEY = 'sk-ant-api03-' + 'Zq7'.repeat(30);

function capture(env: NodeJS.ProcessEnv) {
  let out = '';
  const write = problemLine({ stdout: { write: () => true }, stderr: { write: (t: string) => (out += t) }, env, cwd: '/', signal: new AbortController().signal });
  return { write, out: () => out };
}

test('a CLI problem line never shows the key of the environment, whole or cut', () => {
  const { write, out } = capture({ ANTHROPIC_API_KEY: KEY });
  write(`git commit failed: could not write "${KEY}" to .git/COMMIT_EDITMSG`);
  write(`run file damaged near …${KEY.slice(20, 70)}…`);
  assert.doesNotMatch(out(), /Zq7Zq7Zq7/);
  assert.match(out(), /^subagents: git commit failed: could not write "\[redacted\]" to/m);
  assert.equal(out().split('\n').filter(Boolean).length, 2);
});

test('a CLI problem line shows control characters instead of obeying them', () => {
  const { write, out } = capture({});
  write('branch \u001b[2Jsubagents/x');
  assert.doesNotMatch(out(), /\u001b/);
});
