import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunStore } from '../../../src/core/runs/runStore';
import { capText, SNAPSHOT_TEXT_CAPS } from '../../../src/protocol/runSnapshot';
import { EventScript } from '../../support/runEvents';

test('capText: exactly at the cap stays whole; one more is cut, saying how much; a surrogate pair is never split', () => {
  assert.equal(capText('x'.repeat(2000), 2000), 'x'.repeat(2000));
  assert.equal(capText('x'.repeat(2001), 2000), `${'x'.repeat(2000)}… [1 more characters]`);
  assert.equal(capText(`${'x'.repeat(1998)}😀`, 2000), `${'x'.repeat(1998)}😀`, 'two code units, ending exactly at the cap');
  assert.equal(capText(`${'x'.repeat(1999)}😀`, 2000), `${'x'.repeat(1999)}… [2 more characters]`, 'the pair is left out whole, not split');
});

test('every text the store keeps is capped at its documented limit, and kept whole at exactly that limit', () => {
  const store = new RunStore({ coalesceMs: 0 });
  const script = new EventScript();
  const exactly = (n: number) => 'a'.repeat(n);
  const over = (n: number) => 'b'.repeat(n + 1);
  store.apply({ ...(script.started('a', 'worker') as object), prompt: over(SNAPSHOT_TEXT_CAPS.prompt), description: exactly(SNAPSHOT_TEXT_CAPS.description) } as never);
  store.apply(script.tool('a', 't1', 'Read', over(SNAPSHOT_TEXT_CAPS.line), null)[0]!);
  store.apply({ type: 'notice', ts: script.ts, runId: script.runId, agentId: 'a', message: exactly(SNAPSHOT_TEXT_CAPS.line) } as never);
  store.apply({ type: 'message_queued', ts: script.ts, runId: script.runId, agentId: 'a', messageId: 'm1', kind: 'message', from: null, via: 'cli', text: over(SNAPSHOT_TEXT_CAPS.line) } as never);
  store.apply(script.finished('a', { output: over(SNAPSHOT_TEXT_CAPS.output), error: exactly(SNAPSHOT_TEXT_CAPS.error) }));
  const node = store.agent('a')!;
  assert.equal(node.prompt, `${'b'.repeat(SNAPSHOT_TEXT_CAPS.prompt)}… [1 more characters]`);
  assert.equal(node.description.length, SNAPSHOT_TEXT_CAPS.description);
  assert.equal(node.tools[0]!.inputSummary, `${'b'.repeat(SNAPSHOT_TEXT_CAPS.line)}… [1 more characters]`);
  assert.equal(node.notices![0]!.length, SNAPSHOT_TEXT_CAPS.line);
  assert.equal(node.messages![0]!.text, `${'b'.repeat(SNAPSHOT_TEXT_CAPS.line)}… [1 more characters]`);
  assert.equal(node.output, `${'b'.repeat(SNAPSHOT_TEXT_CAPS.output)}… [1 more characters]`);
  assert.equal(node.error!.length, SNAPSHOT_TEXT_CAPS.error);
});
