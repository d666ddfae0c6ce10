// A key is checked when it is set, and a key the API refuses during a run is
// said plainly: a window whose ANTHROPIC_API_KEY the (scripted) API refuses,
// a run that fails on it, the notification's Set API Key, a made-up key
// refused with the API's words and nothing stored, then a working key
// accepted, and the run going through on it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withDiagnostics } from './support/diagnostics';
import { codeServerSuite, claudeAgents } from './support/suite';

const GOOD = 'sk-ant-e2e-0123456789abcdefghij-works';
const ASKER = '---\nname: asker\ndescription: Answers one question.\ntools: Read\n---\nYou answer. [e2e:asker]\n';

describe('the API key: checked when set, a refusal said plainly', () => {
  const { subject, live, model } = codeServerSuite({
    label: 'api-key',
    files: claudeAgents({ asker: ASKER }),
    // The environment's key is one the API refuses (revoked, say).
    model: () => ({ text: 'Forty-two.' }),
    modelOptions: { acceptKeys: [GOOD] },
  });

  it('a 401 in a run raises Set API Key; a made-up key is refused and not stored; a working key is taken', { timeout: 240_000 }, () =>
    withDiagnostics('api key', subject, async () => {
      const { workbench } = live();
      // The extension's commands are in the palette once its view is there.
      await workbench.openViewContainer('Subagents');
      const run = async () => {
        await workbench.runCommand('Subagents: Run Agent…', { opensQuickInput: true });
        await workbench.pick('Subagents: Run Agent', 'asker', { opensQuickInput: true });
        await workbench.answer('Subagents: Run asker', 'What is the answer?');
      };
      await run();
      const rejected = workbench.notification(/The Anthropic API rejected the API key from ANTHROPIC_API_KEY \(401\)/);
      await rejected.waitFor({ timeout: 60_000 });
      assert.equal(await workbench.notification(/rejected the API key/).count(), 1, 'one notification for the run, not one per agent');
      await rejected.getByRole('button', { name: 'Set API Key', exact: true }).click();

      // The key a user typed by mistake: checked with the API, refused with its words, not stored.
      await workbench.answer('Subagents: Set API Key', 'hello-this-is-not-a-key');
      const refused = workbench.notification(/The API refused this key \(401\): invalid x-api-key\. Nothing was stored\. The key you had is still in use\./);
      await refused.waitFor({ timeout: 30_000 });
      assert.equal(model().requests.length, 0, 'checking a key sends no message (the failed run’s was refused before the model)');

      await workbench.runCommand('Subagents: Set API Key', { opensQuickInput: true });
      await workbench.answer('Subagents: Set API Key', GOOD);
      await workbench.notification(/The API accepted the key; it is stored in VS Code's secret storage/).waitFor({ timeout: 30_000 });

      await run();
      await workbench.webview().locator('li[data-agent-name="asker"][data-status="completed"]').first().waitFor({ timeout: 60_000 });
      assert.equal(model().requests.at(-1)!.headers.authorization, `Bearer ${GOOD}`);
    }),
  );
});
