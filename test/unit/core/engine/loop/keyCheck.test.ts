import assert from 'node:assert/strict';
import { test } from 'node:test';
import { APIError } from '@anthropic-ai/sdk';
import { createClient } from '../../../../../src/core/engine/loop/client';
import { checkKey, isKeyRejection, keyFormatProblem } from '../../../../../src/core/engine/loop/keyCheck';
import { describeApiError } from '../../../../../src/core/engine/loop/turnStream';
import { startScriptedServer } from '../../../../support/scriptedServer';

const GOOD = 'sk-ant-api03-0123456789abcdefghij_KLMNOP';

test('the form of a key: what was typed is named, and a compatible endpoint takes any key without spaces', () => {
  assert.match(keyFormatProblem('hello-this-is-not-a-key', true)!, /not an Anthropic API key: those start with "sk-ant-"/);
  assert.match(keyFormatProblem('sk-ant-short', true)!, /cut short/);
  assert.match(keyFormatProblem(`${GOOD} ${GOOD}`, true)!, /no spaces/);
  assert.match(keyFormatProblem('   ', true)!, /Enter a key/);
  assert.equal(keyFormatProblem(GOOD, true), null);
  assert.equal(keyFormatProblem(`  ${GOOD}\n`, true), null, 'the spaces around a pasted key do not count');
  assert.equal(keyFormatProblem('hello-this-is-not-a-key', false), null, 'another endpoint decides what its keys look like');
});

test('a key is checked with one free request: accepted, refused with the API’s words, or not checkable', async () => {
  const server = await startScriptedServer(() => ({ text: 'never asked' }), { acceptKeys: [GOOD] });
  try {
    const client = (apiKey: string) => createClient({ apiKey, baseUrl: server.url, env: {} });
    assert.deepEqual(await checkKey(client(GOOD)), { kind: 'valid' });
    const refused = await checkKey(client('hello-this-is-not-a-key'));
    assert.equal(refused.kind, 'refused');
    assert.match(refused.kind === 'refused' ? refused.message : '', /refused this key \(401\): invalid x-api-key/);
    assert.equal(server.requests.length, 0, 'no message was sent: no tokens spent');
  } finally {
    await server.close();
  }
  const offline = await checkKey(createClient({ apiKey: GOOD, baseUrl: server.url, env: {} }));
  assert.equal(offline.kind, 'unchecked', 'a server that is gone cannot say the key is bad');
});

test('a run that ended on a refused key is known by its message', () => {
  const message = describeApiError(new APIError(401, { error: { message: 'invalid x-api-key' } }, 'invalid x-api-key', new Headers()));
  assert.ok(isKeyRejection(message), message);
  assert.equal(isKeyRejection('The API failed (500) even after retrying: boom.'), false);
});
