// Talking to a running agent in real VS Code (code-server + Chromium)
// against the scripted model server: a message from the Runs view's message
// box (the ✉ button, and the M key), and one from the chat's "Message …"
// button while the response streams. The agent keeps working until it reads
// a message, then says what it heard. Light and dark screenshots of the Runs
// view with the message box open and with the message listed are saved.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Locator } from 'playwright-core';
import { type Script } from '../support/scriptedServer';
import { finishedText, openChat, sendChat, setColorTheme } from './support/chatPanel';
import { poll, withDiagnostics } from './support/diagnostics';
import { codeServerSuite, claudeAgents } from './support/suite';

const LISTENER = '---\nname: listener\ndescription: Works until it is told something.\ntools: Read, LS\n---\nYou work until a message arrives. [e2e:listener]\n';

/** The agent lists files, a turn at a time, until a message has reached it; then it says what it heard. */
const script: Script = (req) => {
  const texts = req.messages.flatMap((m) => (m.role === 'user' && Array.isArray(m.content) ? (m.content as Array<{ type: string; text?: string }>) : [])).map((b) => b.text ?? '');
  const heard = texts.flatMap((t) => [...t.matchAll(/<message from="[^"]*"[^>]*>\n([\s\S]*?)\n<\/message>/g)].map((m) => m[1]!));
  if (heard.length) return { text: `Heard: ${heard.join(' + ')}` };
  return { text: 'Still looking around.', toolUses: [{ name: 'LS', input: {} }], delayMs: 1500 };
};

describe('messages to a running agent', () => {
  const { subject, live } = codeServerSuite({ label: 'messaging', files: claudeAgents({ listener: LISTENER }), model: script, ready: openChat });

  const send = (message: string) => sendChat(live().workbench, message);
  const finished = finishedText;
  const setTheme = (label: 'Dark Modern' | 'Light Modern') => setColorTheme(live().workbench, label);

  /** The newest run's listener item in the Runs view. */
  function listener(): Locator {
    return live().workbench.webview().locator('li[data-agent-name="listener"]').first();
  }

  it('the Runs view’s message box reaches a running agent at its next turn; the message is listed under its row', { timeout: 180_000 }, () =>
    withDiagnostics('messaging runs view', subject, async () => {
      const { workbench, page } = live();
      const response = await send('@agent listener wait for my word');
      await workbench.openViewContainer('Subagents');
      await workbench.byTestId('runs-view-root').waitFor({ timeout: 60_000 });
      await poll(async () => (await listener().getAttribute('data-status')) === 'running', { timeoutMs: 60_000, message: 'listener is not running in the Runs view' });
      const agentId = (await listener().getAttribute('data-agent-id'))!;
      const view = workbench.webview();

      // The M key on the focused item opens the box; Escape closes it again. (A click on the row would open the transcript.)
      await listener().focus();
      await page.keyboard.press('m');
      await view.locator(`[data-testid="message-input-${agentId}"]`).waitFor({ timeout: 10_000 });
      await page.keyboard.press('Escape');
      await view.locator(`[data-testid="message-box-${agentId}"]`).waitFor({ state: 'detached', timeout: 10_000 });

      // The ✉ button opens it too; a draft survives the row's updates while the agent works.
      await listener().hover();
      await view.locator(`[data-testid="action-message-${agentId}"]`).click();
      const input = view.locator(`[data-testid="message-input-${agentId}"]`);
      await input.waitFor({ timeout: 10_000 });
      // The agent keeps working (a tool call every 1.5 s): the draft must survive the row's next update.
      const toolRows = listener().locator('li.tool');
      const rowsBefore = await toolRows.count();
      await input.pressSequentially('Look at the tests', { delay: 20 });
      await poll(async () => (await toolRows.count()) > rowsBefore, { timeoutMs: 30_000, message: 'the row did not update while the draft was open' });
      assert.equal(await input.inputValue(), 'Look at the tests', 'the draft was lost while the row updated');
      await input.pressSequentially(' first.');
      console.log(`screenshot: ${await workbench.screenshot('messaging-runs-box-light')}`);
      await setTheme('Dark Modern');
      console.log(`screenshot: ${await workbench.screenshot('messaging-runs-box-dark')}`);
      await setTheme('Light Modern');
      await listener().hover();
      await view.locator(`[data-testid="message-input-${agentId}"]`).press('Enter');

      const text = await finished(response);
      assert.match(text, /Heard: Look at the tests first\./);
      const line = view.locator(`[data-testid="messages-${agentId}"] .message`).first();
      await line.waitFor({ timeout: 10_000 });
      assert.match((await line.innerText()).replace(/\s+/g, ' '), /You → listener: Look at the tests first\./);
      assert.equal(await line.locator('.message-state').count(), 0, 'read, so not shown as waiting');
      await page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('messaging-runs-sent-light')}`);
      await setTheme('Dark Modern');
      console.log(`screenshot: ${await workbench.screenshot('messaging-runs-sent-dark')}`);
      await setTheme('Light Modern');
    }),
  );

  it('the chat’s “Message …” button reaches the agent while the response streams; the answer shows what it heard', { timeout: 180_000 }, () =>
    withDiagnostics('messaging chat', subject, async () => {
      const { workbench, page } = live();
      const response = await send('@agent /new listener wait again');
      const button = response.locator('.monaco-button', { hasText: 'Message listener…' }).first();
      await button.waitFor({ timeout: 30_000 });
      await button.click();
      const widget = page.locator('.quick-input-widget');
      await widget.locator('.quick-input-title', { hasText: 'Subagents: Message listener' }).waitFor({ timeout: 10_000 });
      await widget.locator('.quick-input-box input').fill('From the chat: count the files.');
      console.log(`screenshot: ${await workbench.screenshot('messaging-chat-input')}`);
      await page.keyboard.press('Enter');
      await widget.waitFor({ state: 'hidden', timeout: 10_000 });
      const text = await finished(response);
      assert.match(text, /Heard: From the chat: count the files\./);
      assert.match(text, /✉ you → listener: “From the chat: count the files\.”/, 'the log tells the message');
      await page.setViewportSize({ width: 1400, height: 1400 });
      await workbench.settled();
      console.log(`screenshot: ${await workbench.screenshot('messaging-chat-light')}`);
      await page.setViewportSize({ width: 1400, height: 900 });
    }),
  );
});
