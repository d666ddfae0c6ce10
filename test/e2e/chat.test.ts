// The chat surface in real VS Code (code-server + Chromium) against the
// scripted model server: @agent runs a three-level tree from the very first
// request after start-up, a follow-up continues the same agent, /list and
// /status, a shell command approved from the chat response, and the stop
// button. Light and dark screenshots of a nested run's response are saved,
// with the chat 300 and 250 px wide.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Locator } from 'playwright-core';
import { type Script } from '../support/scriptedServer';
import { finishedText, openChat, responseText, responseTo, sendChat, setColorTheme } from './support/chatPanel';
import { poll, withDiagnostics } from './support/diagnostics';
import { codeServerSuite, claudeAgents } from './support/suite';

const AGENTS: Record<string, string> = {
  orchestrator: '---\nname: orchestrator\ndescription: Investigates a question with a team.\ntools: Task, Read\nspawns: investigator\n---\nYou orchestrate investigations. [e2e:orchestrator]\n',
  investigator: '---\nname: investigator\ndescription: Digs into the code.\ntools: Task, Read\nspawns: reader\nmodel: haiku\n---\nYou investigate code. [e2e:investigator]\n',
  reader: '---\nname: reader\ndescription: Reads documentation.\ntools: Read\nmodel: haiku\n---\nYou read docs. [e2e:reader]\n',
  slowpoke: '---\nname: slowpoke\ndescription: Takes its time.\ntools: Read\n---\nYou take your time. [e2e:slowpoke]\n',
};

/** A Copilot agent whose file offers a handoff to reader. */
const PLANNER = "---\nname: planner\ndescription: Plans the work.\ntools: ['read']\nhandoffs:\n  - label: Hand to the reader\n    agent: reader\n    prompt: Summarize the README\n---\nYou plan work. [e2e:planner]\n";

const FIRST_ANSWER = 'Words are counted by words() in src/count.js: runs of letters and digits, case-insensitive.';

function script(seen: { followUp?: string[] }): Script {
  return (req) => {
    const is = (name: string) => req.system.includes(`[e2e:${name}]`);
    if (is('orchestrator')) {
      if (req.lastUserText.includes('And the lines?')) {
        seen.followUp = req.messages.map((m) => JSON.stringify(m.content));
        return { text: 'Lines are counted by lineCount(), which ignores a trailing newline.' };
      }
      if (req.toolResults.size === 0) {
        return { text: 'Asking the investigator.', toolUses: [{ name: 'Task', input: { subagent_type: 'investigator', description: 'Find the word counting', prompt: 'Find where words are counted.' } }], delayMs: 200 };
      }
      return { text: FIRST_ANSWER, chunkDelayMs: 10 };
    }
    if (is('investigator')) {
      if (req.toolResults.size === 0) {
        return {
          toolUses: [
            { name: 'Read', input: { file_path: 'src/count.js' } },
            { name: 'Task', input: { subagent_type: 'reader', description: 'Read the README', prompt: 'What does the README say about counting?' } },
          ],
          delayMs: 200,
        };
      }
      return { text: 'count.js defines words(); the README agrees.' };
    }
    if (is('reader')) {
      if (req.toolResults.size === 0) return { toolUses: [{ name: 'Read', input: { file_path: 'README.md' } }], delayMs: 200 };
      return { text: 'The README says Tally counts words.' };
    }
    if (is('slowpoke')) return { hang: true };
    if (is('planner')) return { text: 'Plan: read the README first.' };
    if (req.system.includes('You run tests and report on them')) {
      if (req.toolResults.size === 0) return { toolUses: [{ name: 'Bash', input: { command: 'node --test test/' } }] };
      const result = [...req.toolResults.values()][0]!;
      return { text: result.isError ? `The tests were not run: ${result.content.split('.')[0]}.` : 'All 3 tests pass.' };
    }
    return { text: 'ok' };
  };
}

describe('the @agent chat participant', () => {
  const seen: { followUp?: string[] } = {};
  const { subject, live } = codeServerSuite({
    label: 'chat',
    files: { ...claudeAgents(AGENTS), '.github/agents/planner.agent.md': PLANNER },
    model: script(seen),
    // No request has been sent yet.
    ready: openChat,
  });

  const send = (message: string) => sendChat(live().workbench, message);
  const finished = finishedText;
  const textOf = responseText;
  const setTheme = (label: 'Dark Modern' | 'Light Modern') => setColorTheme(live().workbench, label);

  function sidebarAgent(name: string): Locator {
    return live().workbench.webview().locator(`li[data-agent-name="${name}"]`).first();
  }

  it('runs a three-level tree from the very first request, streams it and sums it up; the run is in the sidebar', { timeout: 180_000 }, () =>
    withDiagnostics('chat nested run', subject, async () => {
      const { workbench, page } = live();
      const response = await send('@agent orchestrator How are words counted?');
      const text = await finished(response);
      for (const name of ['orchestrator', 'investigator', 'reader']) assert.match(text, new RegExp(`▸ ${name}`), `the log shows ${name} starting`);
      assert.match(text, /✓ investigator Read src\/count\.js/);
      assert.match(text, /✓ reader finished/);
      assert.ok(text.includes(FIRST_ANSWER), 'the scripted answer ends the response');
      assert.match(text, /Run summary: 3 agents · 6 turns/);
      for (const name of ['orchestrator', 'investigator', 'reader']) assert.match(text, new RegExp(`✓ ${name} claude-(sonnet|haiku)-5-5 — \\d+ turns?`), `${name} in the summary`);
      // Links, not buttons: VS Code disables the buttons of a response restored after a reload. The run's first
      // "Show in Sidebar" is folded into "Completed N steps" by now; the one under the summary is the one a user sees.
      for (const link of ['Show in Sidebar', 'Open Transcript']) await response.locator('a', { hasText: link }).last().waitFor({ timeout: 5000 });

      await workbench.openViewContainer('Subagents');
      for (const name of ['orchestrator', 'investigator', 'reader']) {
        await poll(async () => (await sidebarAgent(name).getAttribute('data-status')) === 'completed', { timeoutMs: 15_000, message: `${name} is not completed in the sidebar` });
      }
      await page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('chat-nested-light')}`);
      // And the log of the run, which VS Code folds into "Completed N steps" when progress lines came between its parts.
      // The whole response in one picture: a window tall enough for all of it.
      await page.setViewportSize({ width: 1400, height: 1800 });
      const folded = response.getByText(/^Completed \d+ steps?/).first();
      if (await folded.count()) await folded.evaluate((el) => (el as unknown as { click(): void }).click());
      await workbench.settled();
      console.log(`screenshot: ${await workbench.screenshot('chat-nested-whole-light')}`);
      await setTheme('Dark Modern');
      console.log(`screenshot: ${await workbench.screenshot('chat-nested-whole-dark')}`);
      await page.setViewportSize({ width: 1400, height: 900 });
      await workbench.settled();
      console.log(`screenshot: ${await workbench.screenshot('chat-nested-dark')}`);
      await setTheme('Light Modern');
      // The chat at the secondary side bar's usual width and at a narrow one, in both themes.
      for (const file of await workbench.screenshotsAtWidths('chat-nested', async () => undefined, 'auxiliarybar')) console.log(`screenshot: ${file}`);
    }),
  );

  it('a message without an agent name continues the same agent, with its earlier conversation', { timeout: 120_000 }, () =>
    withDiagnostics('chat follow-up', subject, async () => {
      const response = await send('@agent And the lines?');
      const text = await finished(response);
      assert.match(text, /Continuing orchestrator with its earlier conversation/);
      assert.match(text, /▸ orchestrator claude-sonnet-5-5 \(continues\)/);
      assert.doesNotMatch(text, /▸ investigator|▸ reader|reader Read/, 'the earlier round is not told again');
      assert.match(text, /Lines are counted by lineCount\(\)/);
      assert.ok(seen.followUp, 'the follow-up never reached orchestrator');
      assert.ok(seen.followUp.some((m) => m.includes('How are words counted?')), 'the server did not see the first question');
      assert.ok(seen.followUp.some((m) => m.includes(FIRST_ANSWER)), 'the server did not see the first answer');
    }),
  );

  it('/list shows the agents by source, /status the runs', { timeout: 60_000 }, () =>
    withDiagnostics('chat list status', subject, async () => {
      const list = await finished(await send('@agent /list'));
      assert.match(list, /Project/);
      assert.match(list, /orchestrator — Investigates a question with a team\./);
      assert.match(list, /orchestrator — Investigates a question with a team\. · orchestrator\.md/, 'each agent links its file');
      assert.match(list, /Built-in/);
      const status = await finished(await send('@agent /status'));
      assert.match(status, /Recent/);
      assert.match(status, /orchestrator — How are words counted\?/);
    }),
  );

  it('an agent file’s handoffs are offered after its run, and one runs the next agent', { timeout: 120_000 }, () =>
    withDiagnostics('chat handoff', subject, async () => {
      const { page } = live();
      const response = await send('@agent planner plan the docs work');
      assert.match(await finished(response), /Plan: read the README first\./);
      // VS Code shows follow-ups as links above the chat input.
      const handoff = page.getByText('Hand to the reader', { exact: true }).last();
      await handoff.waitFor({ timeout: 15_000 });
      const next = await responseTo(live().workbench, () => handoff.click());
      const text = await finished(next);
      assert.match(text, /▸ reader/);
      assert.match(text, /The README says Tally counts words\./);
    }),
  );

  it('a shell command waits for approval in chat; Allow there lets it run, and the sidebar and notification settle', { timeout: 120_000 }, () =>
    withDiagnostics('chat approval', subject, async () => {
      const { workbench } = live();
      const response = await send('@agent test-runner run the tests');
      await response.getByText('Approval needed').waitFor({ timeout: 30_000 });
      assert.match(await textOf(response), /Approval needed: test-runner wants to run a shell command:[\s\S]*node --test test\//);
      const toast = workbench.notification('test-runner wants to run a shell command: node --test test/');
      await toast.waitFor({ timeout: 15_000 });
      await poll(async () => (await sidebarAgent('test-runner').getAttribute('data-status')) === 'waiting', { timeoutMs: 15_000, message: 'the sidebar does not show test-runner waiting' });
      console.log(`screenshot: ${await workbench.screenshot('chat-approval')}`);
      await response.locator('.monaco-button', { hasText: /^Allow$/ }).first().click();
      const text = await finished(response);
      assert.match(text, /✓ test-runner Bash node --test test\//);
      assert.match(text, /All 3 tests pass\./);
      assert.equal(await sidebarAgent('test-runner').getAttribute('data-status'), 'completed');
      // VS Code cannot close a message notification for us: its buttons now say the question was answered.
      if (await toast.isVisible()) {
        await toast.getByRole('button', { name: 'Allow', exact: true }).click();
        await workbench.notification('That approval was already answered').waitFor({ timeout: 10_000 });
      }
    }),
  );

  it('Deny in the notification: the command never runs and the agent is told why', { timeout: 120_000 }, () =>
    withDiagnostics('chat deny', subject, async () => {
      const { workbench } = live();
      const response = await send('@agent test-runner run them once more');
      await response.getByText('Approval needed').waitFor({ timeout: 30_000 });
      await workbench.answerApproval('test-runner wants to run a shell command: node --test test/', 'Deny');
      const text = await finished(response);
      // The user reads what happened; the model is told what to do next (below, in its answer).
      assert.match(text, /✕ test-runner Bash node --test test\/ — Denied in VS Code \(notification\)/);
      assert.match(text, /The tests were not run: The user denied Bash: denied in VS Code \(notification\)/);
      assert.match(text, /✓ test-runner claude-haiku-5-5/, 'the agent itself completes: a denial is a tool error, not a failure');
    }),
  );

  it('the stop button stops the running tree', { timeout: 120_000 }, () =>
    withDiagnostics('chat stop', subject, async () => {
      const { page } = live();
      // In a thread (the last answer was a run), a name that is an ordinary word is marked to start that agent.
      const response = await send('@agent @slowpoke take your time');
      await response.getByText('slowpoke', { exact: false }).first().waitFor({ timeout: 20_000 });
      await poll(async () => (await sidebarAgent('slowpoke').getAttribute('data-status')) === 'running', { timeoutMs: 15_000, message: 'slowpoke is not running in the sidebar' });
      await page.locator('.interactive-input-part a.action-label[aria-label^="Cancel"]').last().click();
      await poll(async () => (await sidebarAgent('slowpoke').getAttribute('data-status')) === 'cancelled', { timeoutMs: 15_000, message: 'slowpoke was not cancelled' });
      await finished(response, 15_000);
    }),
  );
});
