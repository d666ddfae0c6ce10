import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateTokens, ROLE_ASSISTANT, ROLE_USER, toAnthropicMessages, toAnthropicTools, toolChoice } from '../../../../src/surfaces/lm/messageConversion';

// Parts shaped as VS Code's LanguageModel*Part classes are.
const textPart = (value: string) => ({ value });
const call = (callId: string, name: string, input: object) => ({ callId, name, input });
const result = (callId: string, content: unknown[]) => ({ callId, content });
const data = (bytes: string, mimeType: string) => ({ data: new TextEncoder().encode(bytes), mimeType });

test('roles alternate, tool calls and results map to tool_use / tool_result, results lead their message', () => {
  const messages = toAnthropicMessages([
    { role: ROLE_USER, content: [textPart('What is in src?')] },
    { role: ROLE_USER, content: [textPart('Be brief.')] },
    { role: ROLE_ASSISTANT, content: [textPart('Listing it.'), call('c1', 'list_dir', { path: 'src' })] },
    { role: ROLE_USER, content: [textPart('(and the tests)'), result('c1', [textPart('a.ts\nb.ts')])] },
  ]);
  assert.deepEqual(messages, [
    { role: 'user', content: [{ type: 'text', text: 'What is in src?' }, { type: 'text', text: 'Be brief.' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Listing it.' }, { type: 'tool_use', id: 'c1', name: 'list_dir', input: { path: 'src' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'a.ts\nb.ts' }] }, { type: 'text', text: '(and the tests)' }] },
  ]);
});

test('images become image blocks, JSON data becomes text, empty parts vanish, a leading assistant turn gets a user turn first', () => {
  const messages = toAnthropicMessages([
    { role: ROLE_ASSISTANT, content: [textPart('Hello')] },
    { role: ROLE_USER, content: [textPart(''), { data: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), mimeType: 'image/png' }, data('{"a":1}', 'application/json'), data('x', 'application/octet-stream')] },
  ]);
  assert.equal(messages[0]!.role, 'user');
  assert.equal(messages[1]!.role, 'assistant');
  const blocks = messages[2]!.content as Array<{ type: string; text?: string; source?: { media_type: string; data: string } }>;
  assert.deepEqual(blocks.map((b) => b.type), ['image', 'text']);
  assert.equal(blocks[0]!.source?.media_type, 'image/png');
  assert.deepEqual([...Buffer.from(blocks[0]!.source!.data, 'base64')], [0x89, 0x50, 0x4e, 0x47]);
  assert.equal(blocks[1]!.text, '{"a":1}');
});

test('tools: schema passed through (an empty one becomes an object schema); Required mode forces a tool', () => {
  const tools = toAnthropicTools([
    { name: 'a', description: 'A', inputSchema: { type: 'object', properties: { x: { type: 'string' } } } },
    { name: 'b', description: 'B', inputSchema: {} },
  ]);
  assert.deepEqual(tools?.[1]?.input_schema, { type: 'object', properties: {} });
  assert.deepEqual(toolChoice(2, tools), { type: 'any' });
  assert.deepEqual(toolChoice(1, tools), { type: 'auto' });
  assert.equal(toAnthropicTools([]), undefined);
  assert.equal(toolChoice(2, undefined), undefined);
});

test('token estimates grow with the text', () => {
  assert.equal(estimateTokens('abcd'.repeat(100)), 100);
  const small = estimateTokens({ role: ROLE_USER, content: [textPart('hi')] });
  const large = estimateTokens({ role: ROLE_USER, content: [textPart('hi'.repeat(1000)), call('c', 'tool', { q: 'x'.repeat(400) })] });
  assert.ok(small >= 1 && large > small + 500);
});
