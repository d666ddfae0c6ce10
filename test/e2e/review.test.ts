// Reviewing, approving and reading results the way VS Code users expect, in
// real VS Code (code-server) with the packaged extension and the scripted
// model server: an isolated agent's changes in the multi-file diff editor,
// applied file by file; an edit approval that shows its diff on the card and
// one click from the notification; the notification's buttons and what
// closing it does; the Result line; a transcript view that opening another
// Markdown file does not replace; keyboard navigation of the Runs tree;
// `@agent list`; chat links after a window reload. Every step leaves
// screenshots in the light and the dark theme (test/e2e/artifacts/).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Locator } from 'playwright-core';
import { isAgent } from '../support/agents';
import { type Script } from '../support/scriptedServer';
import { chatSaved, finishedText, openChat, sendChat } from './support/chatPanel';
import { poll, withDiagnostics } from './support/diagnostics';
import { codeServerSuite, claudeAgents } from './support/suite';

/** Agents of this test, each with the marker the scripted server routes on. */
export const AGENTS: Record<string, string> = {
  'pair-writer': '---\nname: pair-writer\ndescription: Writes two short notes.\ntools: Write\nisolation: worktree\n---\n[agent:pair-writer] Write the notes.\n',
  'readme-editor': '---\nname: readme-editor\ndescription: Sharpens the README.\ntools: Read, Edit\n---\n[agent:readme-editor] Edit the README.\n',
  'shell-runner': '---\nname: shell-runner\ndescription: Runs a two-line command.\ntools: Bash\n---\n[agent:shell-runner] Run it.\n',
  sleeper: '---\nname: sleeper\ndescription: Thinks for a very long time.\ntools: Read\n---\n[agent:sleeper] Take your time.\n',
};

const README_BEFORE = 'A tiny command-line word counter';
const README_AFTER = 'A tiny, fast command-line word counter';

export function script(): Script {
  return (req) => {
    const done = req.toolResults.size > 0;
    if (isAgent(req.system, 'pair-writer')) {
      if (done) return { text: 'Wrote two notes: notes/a.md and notes/b.md.' };
      // The notes say what they were asked, so a second run changes them again.
      const asked = req.lastUserText.trim();
      return {
        toolUses: [
          { name: 'Write', input: { file_path: 'notes/a.md', content: `# Note A\n\nThe first note: ${asked}.\n` } },
          { name: 'Write', input: { file_path: 'notes/b.md', content: `# Note B\n\nThe second note: ${asked}.\n` } },
        ],
      };
    }
    if (isAgent(req.system, 'readme-editor')) {
      if (done) return { text: 'Edited the README: it now says the counter is fast.\n\nNothing else changed.' };
      return { toolUses: [{ name: 'Edit', input: { file_path: 'README.md', old_string: README_BEFORE, new_string: README_AFTER } }] };
    }
    if (isAgent(req.system, 'shell-runner')) {
      if (done) return { text: `The command result: ${[...req.toolResults.values()][0]!.content.slice(0, 80)}` };
      return { toolUses: [{ name: 'Bash', input: { command: 'echo preparing\nnode --test test/' } }] };
    }
    if (isAgent(req.system, 'sleeper')) return { hang: true };
    return { text: 'ok' };
  };
}

describe('review, approvals and results in VS Code', () => {
  const { subject, live } = codeServerSuite({
    label: 'review',
    files: claudeAgents(AGENTS),
    model: script(),
    async ready(workbench) {
      await workbench.openViewContainer('Subagents');
      await workbench.byTestId('runs-view-root').waitFor({ timeout: 30_000 });
    },
  });

  const agentRow = (name: string): Locator => live().workbench.webview().locator(`li[data-agent-name="${name}"]`).first();
  const agentIdOf = async (name: string): Promise<string> => (await agentRow(name).getAttribute('data-testid'))!.replace('run-agent-', '');

  async function runAgent(name: string, task: string): Promise<string> {
    const { workbench } = live();
    await workbench.runCommand('Subagents: Run Agent…', { opensQuickInput: true });
    await workbench.pick('Subagents: Run Agent', name, { opensQuickInput: true });
    await workbench.answer(`Subagents: Run ${name}`, task);
    await agentRow(name).waitFor({ timeout: 30_000 });
    return agentIdOf(name);
  }

  async function status(name: string, wanted: string, timeoutMs = 30_000): Promise<void> {
    await poll(async () => (await agentRow(name).getAttribute('data-status')) === wanted, { timeoutMs, message: `${name} is not ${wanted}` });
  }

  it('reviews an isolated agent’s changes in the multi-file diff editor and applies them file by file', { timeout: 240_000 }, () =>
    withDiagnostics('review', subject, async () => {
      const { workbench, page, workspace: { dir } } = live();
      const id = await runAgent('pair-writer', 'Write the two notes');
      await status('pair-writer', 'completed');
      const line = workbench.byTestId(`worktree-${id}`);
      await poll(async () => /2 files changed/.test(await line.innerText()), { timeoutMs: 15_000, message: 'the worktree line does not say 2 files changed' });
      // Review and Apply are in sight at the default sidebar width, not cut off.
      for (const action of ['reviewWorktree', 'applyWorktree']) {
        const button = workbench.byTestId(`action-${action}-${id}`);
        assert.ok(await button.isVisible(), `${action} is not visible`);
        const [box, lineBox] = [await button.boundingBox(), await line.boundingBox()];
        assert.ok(box && lineBox && box.x + box.width <= lineBox.x + lineBox.width + 1, `${action} is cut off`);
      }
      assert.equal(existsSync(path.join(dir, 'notes')), false, 'the isolated agent wrote into the workspace');
      await workbench.screenshotsAtWidths('review-sidebar');

      await workbench.byTestId(`action-reviewWorktree-${id}`).click();
      const editor = page.locator('.multiDiffEditor');
      await editor.waitFor({ timeout: 20_000 });
      await poll(async () => (await editor.locator('.multiDiffEntry').count()) === 2, { timeoutMs: 15_000, message: 'the review does not show one diff per file' });
      const tab = page.locator('.tabs-container .tab.active');
      assert.match(await tab.innerText(), /pair-writer's changes \(\+6 −0\) · subagents\/pair-writer-/);
      assert.equal(await page.locator('.tabs-container .tab', { hasText: 'Untitled' }).count(), 0, 'an Untitled buffer');
      const titleAction = (label: string) => page.locator(`.editor-actions .action-label[aria-label="${label}"]`);
      await titleAction('Apply Changes').waitFor({ timeout: 10_000 });
      await titleAction('Discard Changes…').waitFor();
      // Each file is named by its place in the repository, not by the worktree's folder in the extension's storage.
      const headers = await editor.locator('.multiDiffEntry .header').allInnerTexts();
      assert.ok(headers.some((h) => /^\s*a\.md\s*notes\b/.test(h)), `a header is "a.md" in "notes": ${headers.join(' | ')}`);
      for (const header of headers) assert.doesNotMatch(header, /worktrees|subagents-dev|globalStorage|\.cache/, `a header names the worktree's folder: ${header}`);
      await workbench.screenshotsAtWidths('review-multidiff');

      // One file: the review's own per-file action (the editor title's overflow has it; the palette too).
      await workbench.runCommand('Subagents: Apply Some Files…', { opensQuickInput: true });
      const picker = page.locator('.quick-input-widget');
      await picker.locator('.quick-input-list .monaco-list-row', { hasText: 'notes/a.md' }).first().click();
      await page.keyboard.press('Enter');
      await poll(() => existsSync(path.join(dir, 'notes/a.md')), { timeoutMs: 15_000, message: 'notes/a.md was not applied' });
      assert.equal(existsSync(path.join(dir, 'notes/b.md')), false, 'notes/b.md was applied with it');
      await poll(async () => (await page.locator('.multiDiffEditor:visible .multiDiffEntry:visible').count()) === 1, { timeoutMs: 15_000, message: 'the review still shows the applied file' });
      assert.match(await page.locator('.tabs-container .tab.active').innerText(), /1 file applied already/);
      await poll(async () => /2 files changed, 1 applied/.test(await line.innerText()), { timeoutMs: 10_000, message: 'the line does not count the applied file' });
      await workbench.screenshotsInBothThemes('review-one-applied');

      // The rest, from the editor's title.
      await titleAction('Apply Changes').click();
      await poll(() => existsSync(path.join(dir, 'notes/b.md')), { timeoutMs: 15_000, message: 'notes/b.md was not applied' });
      assert.equal(readFileSync(path.join(dir, 'notes/a.md'), 'utf8'), '# Note A\n\nThe first note: Write the two notes.\n');
      await poll(async () => /2 files applied/.test(await line.innerText()), { timeoutMs: 10_000, message: 'the line does not say applied' });
      await poll(async () => (await page.locator('.multiDiffEditor:visible').count()) === 0, { timeoutMs: 10_000, message: 'the review stayed open with nothing left' });
    }),
  );

  it('an edit approval shows its diff on the card and in an editor one click from the notification; closing the notification leaves it pending', { timeout: 180_000 }, () =>
    withDiagnostics('edit approval', subject, async () => {
      const { workbench, page, workspace: { dir } } = live();
      const id = await runAgent('readme-editor', 'Say the counter is fast');
      await status('readme-editor', 'waiting');
      const toast = workbench.notification('readme-editor wants to edit README.md');
      await toast.waitFor({ timeout: 15_000 });
      assert.match(await toast.innerText(), /readme-editor wants to edit README\.md \(\+1 −1 lines\)/);
      for (const button of ['Show Change', 'Allow', 'Deny']) await toast.getByRole('button', { name: button, exact: true }).waitFor();
      // The card: the diff itself, and the row says it waits for the user.
      const card = workbench.byTestId(`approval-${id}`);
      const diff = card.locator('[data-testid="approval-diff"]');
      await diff.locator('.diff-del', { hasText: README_BEFORE }).waitFor({ timeout: 10_000 });
      await diff.locator('.diff-add', { hasText: README_AFTER }).waitFor();
      await workbench.byTestId(`state-${id}`).waitFor();
      assert.match((await agentRow('readme-editor').getAttribute('aria-label')) ?? '', /readme-editor, waiting for your approval: wants to edit README\.md/);

      // Closing the notification answers nothing.
      await toast.hover();
      await toast.locator('.codicon-notifications-clear, .codicon-close').first().click();
      await toast.waitFor({ state: 'detached', timeout: 10_000 });
      await card.waitFor();
      // At the default width and at 250 px: name, state and task readable; Stop, Message and ⋯ inside the view on hover.
      const sidebar = page.locator('.part.sidebar');
      for (const width of [300, 250]) {
        await workbench.setSidebarWidth(width);
        const row = agentRow('readme-editor').locator(':scope > .row > .line');
        await row.hover();
        const edge = (await sidebar.boundingBox())!;
        for (const action of ['stop', 'message', 'more']) {
          const button = workbench.byTestId(`action-${action}-${id}`);
          await button.waitFor({ state: 'visible', timeout: 5_000 });
          const box = (await button.boundingBox())!;
          assert.ok(box.x >= edge.x && box.x + box.width <= edge.x + edge.width, `${action} lies outside the ${width} px side bar`);
        }
        const name = await row.locator('.name').boundingBox();
        const task = await row.locator('.description').boundingBox();
        assert.ok(name && name.width > 40, `the name is cut to ${name?.width} px at ${width} px`);
        assert.ok(task && task.width > 20, `the task is cut to ${task?.width} px at ${width} px`);
        assert.equal(await workbench.byTestId(`state-${id}`).innerText(), 'needs approval');
        const tooltip = (await row.getAttribute('title')) ?? '';
        for (const part of ['Task: Say the counter is fast', 'Model:', 'tokens', 'needs approval']) assert.ok(tooltip.includes(part), `the hover lacks "${part}": ${tooltip}`);
      }
      await workbench.setSidebarWidth(300);
      await workbench.screenshotsAtWidths('approval-edit-card', async () => {
        await agentRow('readme-editor').locator(':scope > .row > .line').hover();
      });

      // The change, whole, in a diff editor whose title has the answers. It opens only for a question still open:
      // the click reaches the extension after the closed notification did, so closing it answered nothing.
      await workbench.byTestId(`approve-show-${id}`).click();
      const diffTab = page.locator('.tabs-container .tab.active', { hasText: 'readme-editor wants to edit README.md' });
      await diffTab.waitFor({ timeout: 15_000 });
      assert.equal(await agentRow('readme-editor').getAttribute('data-status'), 'waiting', 'closing the notification denied the edit');
      await card.waitFor();
      const allow = page.locator('.editor-actions .action-label[aria-label="Allow"]');
      await allow.waitFor({ timeout: 10_000 });
      await page.locator('.editor-actions .action-label[aria-label="Deny"]').waitFor();
      await workbench.screenshotsInBothThemes('approval-edit-diff-editor');
      await allow.click();
      await status('readme-editor', 'completed');
      assert.match(readFileSync(path.join(dir, 'README.md'), 'utf8'), new RegExp(README_AFTER));
      await diffTab.waitFor({ state: 'detached', timeout: 10_000 });
    }),
  );

  it('a shell approval’s notification has real buttons and the whole command; Deny there tells the user, not the model’s instructions', { timeout: 180_000 }, () =>
    withDiagnostics('shell approval', subject, async () => {
      const { workbench } = live();
      const id = await runAgent('shell-runner', 'Run the command');
      const toast = workbench.notification('shell-runner wants to run a shell command');
      await toast.waitFor({ timeout: 30_000 });
      assert.match(await toast.innerText(), /shell-runner wants to run a shell command: echo preparing ⏎ node --test test\//);
      assert.equal(await toast.locator('.notification-list-item-message a').count(), 0, 'a link in the notification');
      assert.match(await workbench.byTestId(`approval-${id}`).locator('[data-testid="approval-command"]').innerText(), /^echo preparing\nnode --test test\/$/);
      await workbench.screenshotsInBothThemes('approval-shell-notification');
      await workbench.answerApproval('shell-runner wants to run a shell command', 'Deny');
      await status('shell-runner', 'completed');
      const bash = agentRow('shell-runner').locator('li.tool', { hasText: 'Bash' }).first();
      assert.match(await bash.innerText(), /Denied in VS Code \(notification\)/);
      assert.doesNotMatch(await bash.innerText(), /Do not retry/);
    }),
  );

  it('every finished agent shows its result on a Result line, unfolded where the user looks when a run they started ends', { timeout: 60_000 }, () =>
    withDiagnostics('result line', subject, async () => {
      const { workbench } = live();
      const id = await agentIdOf('readme-editor');
      const toggle = workbench.byTestId(`result-toggle-${id}`);
      const body = workbench.byTestId(`result-${id}`);
      await toggle.waitFor({ timeout: 10_000 });
      // The run was started from the palette and ended with the Runs view in sight: its answer is shown there.
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      assert.equal(await body.innerText(), 'Edited the README: it now says the counter is fast.\n\nNothing else changed.');
      await workbench.screenshotsAtWidths('result-line-open');
      // Folded, it is one line with the answer's first line.
      await toggle.click();
      await body.waitFor({ state: 'hidden' });
      assert.match(await toggle.innerText(), /Result\s*Edited the README: it now says the counter is fast\./);
      await workbench.screenshotsInBothThemes('result-line-folded');
    }),
  );

  it('a transcript opens in its own view, which opening another Markdown file does not replace', { timeout: 90_000 }, () =>
    withDiagnostics('transcript view', subject, async () => {
      const { workbench, page } = live();
      await agentRow('readme-editor').locator('.agent-row .name').first().click();
      const tab = page.locator('.tabs-container .tab', { hasText: 'readme-editor: ' });
      await tab.waitFor({ timeout: 15_000 });
      const view = workbench.transcriptView();
      await view.locator('.tool-call', { hasText: 'Edit' }).locator('.diff-add', { hasText: README_AFTER }).waitFor({ timeout: 15_000 });
      await workbench.screenshotsInBothThemes('transcript-view');
      // Another Markdown file, opened the way users open files.
      await page.keyboard.press('ControlOrMeta+P');
      await page.locator('.quick-input-widget .quick-input-box input').fill('README.md');
      await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'README.md' }).first().click();
      await page.locator('.tabs-container .tab.active', { hasText: 'README.md' }).waitFor({ timeout: 15_000 });
      assert.equal(await tab.count(), 1, 'opening README.md replaced the transcript');
      await tab.click();
      await view.locator('h1', { hasText: 'readme-editor' }).waitFor({ timeout: 15_000 });
      await workbench.screenshotsInBothThemes('transcript-beside-markdown');
      await workbench.runCommand('View: Close All Editors');
    }),
  );

  it('the Runs tree is one keyboard tree: arrows move and fold, Enter opens, Delete stops', { timeout: 120_000 }, () =>
    withDiagnostics('keyboard', subject, async () => {
      const { workbench, page } = live();
      await runAgent('sleeper', 'Think it over');
      await status('sleeper', 'running');
      const wv = workbench.webview();
      const focused = () => wv.locator('li[role="treeitem"]:focus').first();
      // Keys go to the focused item (locator.press focuses it first, inside the view's frames).
      const press = async (key: string) => focused().press(key);
      await workbench.runCommand('View: Close All Editors');
      await agentRow('sleeper').press('Home');
      assert.equal(await focused().getAttribute('data-agent-name'), 'sleeper', 'Home: the first item (active runs come first)');
      await press('ArrowDown');
      assert.notEqual(await focused().getAttribute('data-agent-name'), 'sleeper', 'ArrowDown did not move');
      await press('ArrowUp');
      assert.equal(await focused().getAttribute('data-agent-name'), 'sleeper');
      // The readme-editor run further down: Left folds it, Right opens it again.
      await agentRow('readme-editor').press('ArrowLeft');
      assert.equal(await agentRow('readme-editor').getAttribute('aria-expanded'), 'false');
      await press('ArrowRight');
      assert.equal(await agentRow('readme-editor').getAttribute('aria-expanded'), 'true');
      await workbench.screenshotsInBothThemes('keyboard-focus', async () => {
        await agentRow('readme-editor').press('Shift');
      });
      // Enter opens the transcript; Delete stops the agent at work.
      await agentRow('readme-editor').press('Enter');
      await page.locator('.tabs-container .tab', { hasText: 'readme-editor: ' }).waitFor({ timeout: 15_000 });
      // "Focus on Runs View" from the palette: a row has focus and the arrows work at once, no click first.
      await workbench.runCommand('Subagents: Focus on Runs View');
      await poll(async () => (await wv.locator('li[role="treeitem"]:focus').count()) === 1, { timeoutMs: 10_000, message: 'Focus on Runs View left no row focused' });
      const entered = await focused().getAttribute('data-agent-name');
      await page.keyboard.press('ArrowDown');
      await poll(async () => (await focused().getAttribute('data-agent-name')) !== entered, { timeoutMs: 5_000, message: 'ArrowDown right after Focus on Runs View did nothing' });
      await agentRow('sleeper').press('Delete');
      await status('sleeper', 'cancelled');
      await workbench.runCommand('View: Close All Editors');
    }),
  );

  it('@agent list (no slash) lists the agents; chat links still work after a reload', { timeout: 240_000 }, () =>
    withDiagnostics('chat', subject, async () => {
      const { workbench, page } = live();
      await openChat(workbench);
      const send = async (message: string): Promise<Locator> => {
        const response = await sendChat(workbench, message);
        await finishedText(response, 90_000);
        return response;
      };
      const runsBefore = await workbench.webview().locator('ul.tree.run').count();
      const list = await send('@agent list');
      await list.getByText('pair-writer').first().waitFor({ timeout: 10_000 });
      assert.match(await list.innerText(), /\d+ agents in sample-workspace/);
      assert.equal(await workbench.webview().locator('ul.tree.run').count(), runsBefore, '`list` started a run');
      await workbench.screenshotsInBothThemes('chat-list');

      const run = await send('@agent pair-writer write the notes once more');
      await run.locator('a', { hasText: 'Review Changes' }).first().waitFor({ timeout: 30_000 });
      await run.locator('a', { hasText: 'Show in Sidebar' }).last().waitFor();
      // A reload restores the chat; VS Code disables restored buttons, but these are links.
      // In the browser VS Code cannot hold the window open to save the chat: the reload waits until it is saved.
      await chatSaved(live().server.userDataDir, ['pair-writer write the notes once more', 'Show in Sidebar']);
      await workbench.runCommand('View: Show Explorer');
      await workbench.runCommand('Developer: Reload Window');
      await workbench.ready();
      await workbench.runCommand('Chat: Open Chat');
      const response = page.locator('.interactive-item-container.interactive-response', { hasText: 'Run summary' }).last();
      const show = response.locator('a', { hasText: 'Show in Sidebar' }).last();
      await show.waitFor({ timeout: 30_000 });
      await workbench.screenshotsInBothThemes('chat-after-reload');
      await show.click();
      await workbench.webview().locator('li.selected[data-agent-name="pair-writer"]').waitFor({ timeout: 20_000 });
      await response.locator('a', { hasText: 'Review Changes' }).first().click();
      await page.locator('.multiDiffEditor .multiDiffEntry').first().waitFor({ timeout: 20_000 });
    }),
  );
});
