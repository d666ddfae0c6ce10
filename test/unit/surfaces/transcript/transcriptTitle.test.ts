import assert from 'node:assert/strict';
import { test } from 'node:test';
import { transcriptTitle } from '../../../../src/surfaces/transcript/transcriptTitle';

test('a transcript tab names the agent and the start of its task; the same agent twice is told apart', () => {
  const first = { agentName: 'tech-lead', description: 'Check that the tests pass, and draft release notes', startedAt: new Date(2026, 0, 1, 9, 5, 7).getTime() };
  const second = { ...first, description: 'Review the README' };
  const a = transcriptTitle(first, new Set());
  assert.equal(a, 'tech-lead: Check that the tests pass,…');
  assert.equal(transcriptTitle(second, new Set([a])), 'tech-lead: Review the README');
  assert.equal(transcriptTitle({ ...first, startedAt: new Date(2026, 0, 1, 10, 0, 0).getTime() }, new Set([a])), 'tech-lead: Check that the tests pass,… (10:00:00)');
  assert.equal(transcriptTitle({ ...first, description: '' }, new Set()), 'tech-lead · transcript');
});
