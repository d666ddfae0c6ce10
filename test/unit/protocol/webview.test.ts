import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_MESSAGE_LENGTH, webviewToHostSchema } from '../../../src/protocol/webview';

test('a message from the Runs view is taken up to exactly the documented 20,000 characters, and refused past it', () => {
  assert.equal(MAX_MESSAGE_LENGTH, 20_000, 'docs/messaging.md promises 20,000 characters');
  const send = (text: string) => webviewToHostSchema.safeParse({ type: 'sendMessage', agentId: 'a1', text }).success;
  assert.equal(send('x'.repeat(20_000)), true);
  assert.equal(send('x'.repeat(20_001)), false);
  assert.equal(send(''), false);
});
