import '../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { startLanguageClient } from '../../../src/vscode/languageClient';
import type { LanguageClient } from '../../support/languageClientFake';
import * as vscode from '../../support/vscodeFake';

// How the agent-file server learns of workspace trust, under fakes of the
// vscode API and the language client: at each start, and when trust is
// granted while it runs.

beforeEach(() => vscode.resetFake());

async function start() {
  const logged: string[] = [];
  const log = Object.fromEntries(['info', 'warn', 'error'].map((level) => [level, (message: string) => logged.push(message)]));
  const context = { asAbsolutePath: (p: string) => `/ext/${p}`, globalStorageUri: { fsPath: '/data/User/globalStorage/subagents-dev.subagents' }, subscriptions: [] as Array<{ dispose(): unknown }> };
  const client = (await startLanguageClient(context as never, log as never)) as unknown as LanguageClient;
  return { client, logged, dispose: () => context.subscriptions.forEach((d) => d.dispose()) };
}

test('a server restarted after trust was granted starts trusted; one running is told', async () => {
  vscode.workspace.isTrusted = false;
  const { client, dispose } = await start();
  vscode.grantTrust();
  assert.deepEqual(client.notifications, [['subagents/setTrusted', { trusted: true }]]);
  await client.stop();
  await client.start();
  // The editor's global storage folder goes with it: Roo Code's and Kilo's global modes are kept beside ours.
  const storage = '/data/User/globalStorage';
  assert.deepEqual(client.initialized, [{ trusted: false, editorStorage: storage }, { trusted: true, editorStorage: storage }]);
  dispose();
});

test('trust granted while the server is not running is logged, not an unhandled rejection', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    vscode.workspace.isTrusted = false;
    const { client, logged, dispose } = await start();
    await client.stop();
    vscode.grantTrust();
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(unhandled, []);
    assert.match(logged.join('\n'), /not told of the new trust: Error: Client is not running/);
    dispose();
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
