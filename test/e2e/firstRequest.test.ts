// A user's very first @agent request, typed as soon as the chat can take
// it. In VS Code without Copilot a chat request needs a model the chat has
// picked when it is sent (VS Code looks it up before any participant runs),
// and only this extension provides one: so the extension must be active, its
// models offered, before the first request, not activated by it (which made
// the first request fail with "Language model unavailable").
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';
import { finishedText, openChat, sendChat } from './support/chatPanel';
import { exthostLogEntries } from './support/logs';
import { EXTENSION_ID } from './support/paths';
import { withDiagnostics, type Subject } from './support/diagnostics';
import { copySampleWorkspace, ensureCodeServerReady, ensureVsix, type Workspace } from './support/product';
import { closeSession, openSession, scriptedModelSession, type Session } from './support/session';

const LEAD = '---\nname: lead\ndescription: Finds answers.\ntools: Read\n---\nYou find answers. [e2e:first-lead]\n';

describe('the first @agent request after start-up', () => {
  let workspace: Workspace | undefined;
  let model: ScriptedServer | undefined;
  const session: Partial<Session> = {};
  const subject: Subject = {};

  before(
    () =>
      withDiagnostics('first request start', subject, async () => {
        ensureCodeServerReady();
        const vsixPath = ensureVsix();
        workspace = copySampleWorkspace();
        mkdirSync(path.join(workspace.dir, '.claude/agents'), { recursive: true });
        writeFileSync(path.join(workspace.dir, '.claude/agents/lead.md'), LEAD);
        workspace.commit('a lead agent');
        model = await startScriptedServer((req) => (req.system.includes('[e2e:first-lead]') ? { text: 'The answer is 42.' } : { text: 'ok' }));
        await openSession(scriptedModelSession(workspace.dir, vsixPath, model.url, 'first'), subject, session);
      }),
    { timeout: 6 * 60_000 },
  );

  after(async () => {
    await closeSession(session);
    await model?.close();
    workspace?.remove();
  });

  it('answers the first request sent the moment the window is up', { timeout: 180_000 }, () =>
    withDiagnostics('first request', subject, async () => {
      const { workbench } = session;
      assert.ok(workbench, 'the workbench did not start (see the failure of the `before` hook)');
      const { server } = session;
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
