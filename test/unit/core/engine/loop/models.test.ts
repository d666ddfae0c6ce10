import { test } from 'node:test';
import assert from 'node:assert/strict';
import { costOf, requestedModel, resolveModel } from '../../../../../src/core/engine/loop/models';

test('model resolution and cost', () => {
  const aliases = { sonnet: 'claude-sonnet-5-5', haiku: 'claude-haiku-5-5' };
  assert.equal(resolveModel({ requested: ' haiku ', definition: 'sonnet', defaultModel: 'sonnet', aliases }), 'claude-haiku-5-5');
  assert.equal(resolveModel({ definition: 'inherit', parent: 'x-parent', defaultModel: 'sonnet', aliases }), 'x-parent');
  assert.equal(resolveModel({ defaultModel: 'Sonnet', aliases }), 'claude-sonnet-5-5');
  const oneMillion = { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  assert.equal(costOf('claude-sonnet-5-5', oneMillion), 3);
  assert.ok(Math.abs(costOf('claude-sonnet-5-5', { ...oneMillion, inputTokens: 0, cacheReadTokens: 1_000_000 }) - 0.3) < 1e-9);
  assert.equal(costOf('unknown-model', oneMillion), 0);
});

test('a model asked for by name is read as a model field is: dotted ids and display names become API ids', () => {
  const aliases = { sonnet: 'claude-sonnet-5-5', fast: 'claude-haiku-5-5' };
  assert.equal(requestedModel('claude-sonnet-4.5', aliases), 'claude-sonnet-4-5');
  assert.equal(requestedModel('Claude Opus 4.5 (copilot)', aliases), 'claude-opus-4-5');
  assert.equal(requestedModel('sonnet', aliases), 'sonnet');
  assert.equal(requestedModel('fast', aliases), 'fast');
  assert.equal(requestedModel('my-endpoint-model', aliases), 'my-endpoint-model', 'an unknown name is sent as a full id');
  assert.equal(requestedModel('  ', aliases), null);
  assert.equal(resolveModel({ requested: 'claude-haiku-4.5', definition: 'sonnet', defaultModel: 'sonnet', aliases }), 'claude-haiku-4-5');
});

test("another provider's model in an agent file counts as inherit, unless an alias maps it", () => {
  const aliases = { sonnet: 'claude-sonnet-5-5', haiku: 'claude-haiku-5-5' };
  assert.equal(resolveModel({ definition: 'gemini-2.5-flash', parent: 'claude-opus-5-5', defaultModel: 'sonnet', aliases }), 'claude-opus-5-5');
  assert.equal(resolveModel({ definition: 'gpt-5', defaultModel: 'sonnet', aliases }), 'claude-sonnet-5-5');
  assert.equal(resolveModel({ requested: 'o3', definition: 'haiku', defaultModel: 'sonnet', aliases }), 'claude-haiku-5-5');
  assert.equal(resolveModel({ definition: 'gemini-2.5-flash', defaultModel: 'sonnet', aliases: { ...aliases, 'gemini-2.5-flash': 'claude-haiku-5-5' } }), 'claude-haiku-5-5');
  assert.equal(resolveModel({ definition: 'claude-opus-4-8', defaultModel: 'sonnet', aliases }), 'claude-opus-4-8');
});
