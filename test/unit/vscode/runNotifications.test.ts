import '../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endNotice, gist } from '../../../src/vscode/runNotifications';

// A run's end notification quotes the answer's first line that says
// something: never a bare heading, never Markdown's marks shown raw.

test('a heading is passed over for the first line of prose after it', () => {
  const demo = '## Summary\n\n- **Tests** (test-runner): All 3 tests pass.\n- **Release notes** (docs-writer): drafted.';
  assert.equal(gist(demo), 'Tests (test-runner): All 3 tests pass.');
  assert.equal(gist('# Report\n\nSee `src/count.js`: words are __runs of letters__.'), 'See src/count.js: words are runs of letters.');
});

test('an answer that is only a heading, or plain text, is quoted as it is', () => {
  assert.equal(gist('## Done'), 'Done');
  assert.equal(gist('All good.\nMore below.'), 'All good.');
  assert.equal(gist('1. First step taken'), 'First step taken');
  assert.equal(gist(null), '');
  assert.equal(gist('x'.repeat(200)).length, 160);
});

test("the demo's end notification quotes its summary's first point, not the word Summary", () => {
  const ended = { runId: 'r', agentId: 'a', agentName: 'tech-lead', status: 'completed', output: '## Summary\n\n- **Tests** (test-runner): All 3 tests pass.', error: null, worktree: null } as unknown as Parameters<typeof endNotice>[0];
  const left = [{ agentId: 'w', agentName: 'docs-writer', filesChanged: 1, branch: 'subagents/docs-writer-1' }];
  assert.equal(endNotice(ended, true, left)?.text, 'tech-lead finished with 1 changed file from docs-writer on subagents/docs-writer-1 to review: Tests (test-runner): All 3 tests pass.');
  assert.equal(endNotice({ ...ended, output: '## Summary\n\nAll [3](command:x) tests pass.' }, false)?.text, 'docs finished: All [3]\u200b(command:x) tests pass.'.replace('docs', 'tech-lead'));
});
