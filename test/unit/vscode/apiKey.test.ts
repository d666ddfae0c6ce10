import '../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiBaseUrl } from '../../../src/core/engine/loop/client';
import { ApiKeys } from '../../../src/vscode/apiKey';
import * as vscode from '../../support/vscodeFake';

// One rule for where requests go, in VS Code as in the CLI:
// ANTHROPIC_BASE_URL over the apiBaseUrl setting, over the Anthropic API.

/** Secret storage holding no key: the key comes from ANTHROPIC_API_KEY. */
function secrets(): Parameters<typeof ApiKeys.create>[0] {
  const changed = new vscode.EventEmitter<{ key: string }>();
  return { get: async () => undefined, store: async () => undefined, delete: async () => undefined, onDidChange: changed.event } as unknown as Parameters<typeof ApiKeys.create>[0];
}

test('apiBaseUrl(): the environment over the setting, over the Anthropic API', () => {
  assert.equal(apiBaseUrl('http://setting.test', { ANTHROPIC_BASE_URL: 'http://env.test' }), 'http://env.test');
  assert.equal(apiBaseUrl('http://setting.test', {}), 'http://setting.test');
  assert.equal(apiBaseUrl('http://setting.test', { ANTHROPIC_BASE_URL: '' }), 'http://setting.test');
  assert.equal(apiBaseUrl('', {}), undefined);
});

test("the extension's client follows the rule both ways, and a new client is made when the URL in effect changes", async () => {
  let setting = 'http://setting.test';
  const env: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: 'sk-ant-unit', ANTHROPIC_BASE_URL: 'http://env.test' };
  const keys = await ApiKeys.create(secrets(), () => setting, env);
  assert.equal(keys.client().baseURL, 'http://env.test', 'ANTHROPIC_BASE_URL wins over a (trusted) workspace setting');
  setting = 'http://other-setting.test';
  assert.equal(keys.client().baseURL, 'http://env.test');
  delete env.ANTHROPIC_BASE_URL;
  assert.equal(keys.client().baseURL, 'http://other-setting.test', 'without it, the setting applies');
  setting = '';
  assert.equal(keys.client().baseURL, 'https://api.anthropic.com');
  keys.dispose();
});
