import '../../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiKeys } from '../../../../src/vscode/apiKey';
import { ClaudeChatProvider, type ClaudeModelInfo } from '../../../../src/vscode/lm/chatProvider';
import * as vscode from '../../../support/vscodeFake';

// The model picker's Claude models take their limits from the models
// endpoint: a request whose max_tokens exceeds the model's own is refused.

const LISTED = [
  { id: 'claude-sonnet-5-5', display_name: 'Claude Sonnet 5.5', lifecycle: 'active', max_tokens: 64_000, max_input_tokens: 1_000_000 },
  { id: 'claude-3-5-haiku-20241022', display_name: 'Claude Haiku 3.5', lifecycle: 'deprecated', max_tokens: 8192, max_input_tokens: 200_000 },
  { id: 'claude-2-1', display_name: 'Claude 2.1', lifecycle: 'retired', max_tokens: 4096, max_input_tokens: 200_000 },
  // An Anthropic-compatible endpoint that does not say.
  { id: 'claude-opus-5-5', display_name: 'Claude Opus 5.5' },
];

function provider() {
  const sent: Array<Record<string, unknown>> = [];
  const changed = new vscode.EventEmitter<void>();
  const client = {
    models: {
      list: async function* () {
        yield* LISTED;
      },
    },
    messages: {
      stream: (params: Record<string, unknown>) => {
        sent.push(params);
        return { on: () => undefined, finalMessage: () => Promise.resolve({}) };
      },
    },
  };
  const keys = { key: 'sk-ant-test', demo: false, isLoaded: true, loaded: Promise.resolve(), onDidChange: new vscode.EventEmitter<void>().event, client: () => client } as unknown as ApiKeys;
  const log = { info: () => undefined } as unknown as ConstructorParameters<typeof ClaudeChatProvider>[2];
  const models = new ClaudeChatProvider(keys, () => ({ sonnet: 'claude-sonnet-5-5' }), log);
  models.onDidChangeLanguageModelChatInformation(() => changed.fire());
  const listed = new Promise<void>((resolve) => changed.event(() => resolve()));
  return { models, sent, listed };
}

test('models from the API carry the API’s token limits (defaults where it gives none); retired ones are left out', async () => {
  const { models, sent, listed } = provider();
  assert.deepEqual((await models.provideLanguageModelChatInformation()).map((m) => m.id), ['claude-sonnet-5-5'], 'the aliases until the list arrives');
  await listed;
  const byId = new Map((await models.provideLanguageModelChatInformation()).map((m) => [m.id, m]));
  assert.deepEqual([...byId.keys()], ['claude-sonnet-5-5', 'claude-3-5-haiku-20241022', 'claude-opus-5-5']);
  assert.deepEqual([byId.get('claude-3-5-haiku-20241022')!.maxOutputTokens, byId.get('claude-3-5-haiku-20241022')!.maxInputTokens], [8192, 200_000]);
  assert.deepEqual([byId.get('claude-sonnet-5-5')!.maxOutputTokens, byId.get('claude-sonnet-5-5')!.maxInputTokens], [64_000, 1_000_000]);
  assert.deepEqual([byId.get('claude-opus-5-5')!.maxOutputTokens, byId.get('claude-opus-5-5')!.maxInputTokens], [32_000, 200_000]);
  assert.match(byId.get('claude-3-5-haiku-20241022')!.detail ?? '', /deprecated/);

  const haiku = byId.get('claude-3-5-haiku-20241022') as ClaudeModelInfo;
  const token = new vscode.CancellationTokenSource().token;
  await models.provideLanguageModelChatResponse(haiku, [], {} as never, { report: () => undefined }, token as never);
  assert.equal(sent[0]?.max_tokens, 8192, 'the request asks for no more than the model allows');
});

test('offered before the stored key is read: the list waits for it, so the names say demo or not rightly', async () => {
  let read!: () => void;
  const loaded = new Promise<void>((resolve) => (read = resolve));
  const keys = { key: undefined, demo: true, isLoaded: false, loaded, onDidChange: new vscode.EventEmitter<void>().event } as unknown as ApiKeys;
  const log = { info: () => undefined } as unknown as ConstructorParameters<typeof ClaudeChatProvider>[2];
  const models = new ClaudeChatProvider(keys, () => ({ sonnet: 'claude-sonnet-5-5' }), log);
  const answer = models.provideLanguageModelChatInformation();
  assert.ok(answer instanceof Promise, 'not answered from a key not read yet');
  read();
  assert.deepEqual((await answer).map((m) => m.id), ['demo-sonnet']);
});
