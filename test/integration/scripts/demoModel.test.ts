// The demo model tells the truth: it says it plays a script before anything
// happens, and its docs-writer and lead say what really happened.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEMO_OPENING, demoScript } from '../../../scripts/demo-model';
import type { Reply, ScriptedRequest } from '../../support/scriptedServer';

function request(system: string, turn: number, toolResults: Array<[string, { content: string; isError: boolean }]> = []): ScriptedRequest {
  return { body: {}, headers: {}, model: 'demo-sonnet', system, toolNames: ['Task', 'Read', 'Write'], tools: [], messages: [], turn, lastUserText: '', toolResults: new Map(toolResults), attempt: 0, stream: true };
}
const text = (reply: Reply) => ('text' in reply ? (reply.text ?? '') : '');

test('the lead says it is a script before it plays, and words its summary by what docs-writer left', async () => {
  const play = demoScript();
  const lead = 'You lead a small team of specialist agents';
  assert.ok(text(await play(request(lead, 0))).startsWith(DEMO_OPENING));
  const withBranch = text(await play(request(lead, 1, [['a', { content: 'All 3 tests pass.', isError: false }], ['b', { content: '{"worktree":{"branch":"subagents/docs-writer-1"}}', isError: false }]])));
  assert.match(withBranch, /drafted on branch `subagents\/docs-writer-1`\. Review it and apply it/);
  const unchanged = text(await play(request(lead, 1, [['a', { content: 'All 3 tests pass.', isError: false }], ['b', { content: 'RELEASE-NOTES.md already has these release notes for 0.0.1: nothing to change.', isError: false }]])));
  assert.match(unchanged, /already had these release notes, so nothing changed and there is nothing to review/);
  assert.doesNotMatch(unchanged, /Review it and apply it/);
});

test('docs-writer writes the notes only where they are not there yet', async () => {
  const play = demoScript();
  const docs = 'You keep the documentation of this project truthful';
  const first = await play(request(docs, 0));
  const readId = 'toolUses' in first ? first.toolUses?.find((t) => (t.input as { file_path?: string }).file_path === 'RELEASE-NOTES.md')?.id : undefined;
  assert.ok(readId, 'it reads the notes first');
  const missing = await play(request(docs, 1, [[readId, { content: 'File does not exist.', isError: true }]]));
  assert.equal('toolUses' in missing ? missing.toolUses?.[0]?.name : undefined, 'Write');
  const there = '# Tally 0.0.1\n\nA tiny command-line word counter.\n\n- `node src/cli.js FILE` prints the words, lines and five most common words of a file.\n- Words are case-insensitive runs of letters and digits; a trailing newline does not start a line.\n- `node --test test/` runs the tests.\n';
  const same = await play(request(docs, 1, [[readId, { content: there, isError: false }]]));
  assert.match(text(same), /already has these release notes/);
  assert.ok(!('toolUses' in same) || !same.toolUses?.length, 'no write that changes nothing');
});
