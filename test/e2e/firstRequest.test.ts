// A user's very first @agent request, typed as soon as the chat can take
// it. In VS Code without Copilot a chat request needs a model the chat has
// picked when it is sent (VS Code looks it up before any participant runs),
// and only this extension provides one: so the extension must be active, its
// models offered, before the first request, not activated by it (which made
// the first request fail with "Language model unavailable").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finishedText, openChat, sendChat } from './support/chatPanel';
import { exthostLogEntries } from './support/logs';
import { EXTENSION_ID } from './support/paths';
import { withDiagnostics } from './support/diagnostics';
import { codeServerSuite, claudeAgents } from './support/suite';

const LEAD = '---\nname: lead\ndescription: Finds answers.\ntools: Read\n---\nYou find answers. [e2e:first-lead]\n';

describe('the first @agent request after start-up', () => {
  const { subject, live } = codeServerSuite({
    label: 'first',
    files: claudeAgents({ lead: LEAD }),
    model: (req) => (req.system.includes('[e2e:first-lead]') ? { text: 'The answer is 42.' } : { text: 'ok' }),
  });

  it('answers the first request sent the moment the window is up', { timeout: 180_000 }, () =>
    withDiagnostics('first request', subject, async () => {
      const { workbench, server } = live();
      const started = Date.now();
      // As a user does: open the chat and type as soon as it shows a model (no Copilot here: ours).
      await openChat(workbench);
      const response = await sendChat(workbench, '@agent lead Find the answer');
      console.log(`sent ${Math.round((Date.now() - started) / 100) / 10} s after the workbench was up`);
      // Activated at start-up, not by the request itself (too late for the request to have a model).
      const activation = exthostLogEntries(server!.userDataDir).find((e) => e.text.includes(`_doActivateExtension ${EXTENSION_ID}`));
      assert.ok(activation, 'the extension was activated');
      assert.match(activation.text, /startup: true/, `activated at start-up: ${activation.text}`);
      assert.doesNotMatch(activation.text, /onChatParticipant/, 'not activated by the request itself');
      const text = await finishedText(response, 120_000);
      assert.doesNotMatch(text, /Language model unavailable/i);
      assert.match(text, /The answer is 42\./, `the agent answered: ${text.slice(0, 400)}`);
    }),
  );
});
