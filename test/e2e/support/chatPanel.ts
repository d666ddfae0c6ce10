import type { Locator } from 'playwright-core';
import { poll } from './diagnostics';
import type { Workbench } from './workbench';

/**
 * The chat panel and the colour theme, driven as a user drives them: what
 * the e2e tests of chat responses share.
 */

/** The chat list's rows are virtualized: an item is known by its row's data-index, not by counting. */
async function lastIndex(workbench: Workbench): Promise<number> {
  const indexes = await workbench.page.locator('.interactive-list .monaco-list-row[data-index]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-index'))));
  return Math.max(-1, ...indexes);
}

/** The response of the request sent after `before` was the last row: the next row is the request, the one after its response. */
export function responseAfter(workbench: Workbench, before: number): Locator {
  return workbench.page.locator(`.interactive-list .monaco-list-row[data-index="${before + 2}"] .interactive-item-container.interactive-response`);
}

/** Runs `act` (a click that sends a request) and returns the response it starts. */
export async function responseTo(workbench: Workbench, act: () => Promise<void>): Promise<Locator> {
  const before = await lastIndex(workbench);
  await act();
  const response = responseAfter(workbench, before);
  await response.waitFor({ timeout: 20_000 });
  return response;
}

/** Sends a chat message and returns the response it starts (still streaming). */
/** Opens the chat panel and waits for what a user sees before typing: the input with one of our Claude models picked (there is no Copilot here). */
export async function openChat(workbench: Workbench): Promise<void> {
  await workbench.runCommand('Chat: Open Chat');
  await workbench.page.locator('.interactive-input-part .chat-input-toolbars', { hasText: /Claude/ }).first().waitFor({ timeout: 90_000 });
}

export function sendChat(workbench: Workbench, message: string): Promise<Locator> {
  const { page } = workbench;
  return responseTo(workbench, async () => {
    await page.locator('.interactive-input-editor').last().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(message);
    // A completion list (slash commands, agent names) would take the Enter; it opens a moment after typing.
    await page.waitForTimeout(300);
    if (await page.locator('.suggest-widget.visible').count()) await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
  });
}

/** The response's text, folded parts (VS Code folds the steps of a long response) included. */
export function responseText(response: Locator): Promise<string> {
  return response.evaluate((el) => {
    const walker = el.ownerDocument.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
    const parts: string[] = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) parts.push(n.textContent ?? '');
    return parts.join('').replace(/\s+/g, ' ');
  });
}

/** The response's text once it has finished. */
export async function finishedText(response: Locator, timeoutMs = 60_000): Promise<string> {
  await poll(async () => !/chat-response-loading/.test((await response.getAttribute('class')) ?? ''), { timeoutMs, message: 'the response did not finish' });
  return responseText(response);
}

/** Picks a color theme the way a user does, from "Preferences: Color Theme". */
export async function setColorTheme(workbench: Workbench, label: 'Dark Modern' | 'Light Modern'): Promise<void> {
  const { page } = workbench;
  await workbench.runCommand('Preferences: Color Theme', { opensQuickInput: true });
  // The theme picker has a placeholder, not a title, so Workbench.pick cannot find it.
  const widget = page.locator('.quick-input-widget');
  await widget.locator('.quick-input-box input').fill(label);
  await widget.locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${label}\\s*$`) }) }).first().click();
  await widget.waitFor({ state: 'hidden', timeout: 10_000 });
  const dark = label.startsWith('Dark');
  await poll(async () => ((await page.locator('.monaco-workbench').getAttribute('class')) ?? '').split(/\s+/).includes(dark ? 'vs-dark' : 'vs'), {
    timeoutMs: 15_000,
    message: `the workbench did not switch to ${label}`,
  });
}
