// Driving VS Code's chat panel: send a message, wait for its response to finish, read it.
import type { Locator, Page } from 'playwright-core';
import { poll } from './diagnostics';

/** The chat list's rows are virtualized: an item is known by its row's data-index, not by counting. */
export async function lastChatIndex(page: Page): Promise<number> {
  const indexes = await page.locator('.interactive-list .monaco-list-row[data-index]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-index'))));
  return Math.max(-1, ...indexes);
}

/** Sends a chat message and returns the response it starts (still streaming). */
export async function sendChat(page: Page, message: string): Promise<Locator> {
  const before = await lastChatIndex(page);
  await page.locator('.interactive-input-editor').last().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(message);
  // A completion list (slash commands, agent names) would take the Enter; it opens a moment after typing.
  await page.waitForTimeout(300);
  if (await page.locator('.suggest-widget.visible').count()) await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  // The request is the next row, its response the one after.
  const response = page.locator(`.interactive-list .monaco-list-row[data-index="${before + 2}"] .interactive-item-container.interactive-response`);
  await response.waitFor({ timeout: 20_000 });
  return response;
}

/** A response's text, folded parts (VS Code folds the steps of a long response) included. */
export function chatText(response: Locator): Promise<string> {
  return response.evaluate((el) => {
    const walker = el.ownerDocument.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
    const parts: string[] = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) parts.push(n.textContent ?? '');
    return parts.join('').replace(/\s+/g, ' ');
  });
}

/** The response's text once it has finished. */
export async function finishedChat(response: Locator, timeoutMs = 60_000): Promise<string> {
  await poll(async () => !/chat-response-loading/.test((await response.getAttribute('class')) ?? ''), { timeoutMs, message: 'the response did not finish' });
  return chatText(response);
}
