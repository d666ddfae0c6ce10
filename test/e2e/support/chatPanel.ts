import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
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
    const before = await lastIndex(workbench);
    const editor = page.locator('.interactive-input-editor').last();
    const suggesting = page.locator('.suggest-widget.visible');
    const typeAndSend = async () => {
      await editor.click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Backspace');
      // Inserted as one input, not key by key: a completion list (slash commands, agent names) opens on a typed "@" or "/".
      await page.keyboard.insertText(message);
      if (await suggesting.count()) await page.keyboard.press('Escape');
      await page.keyboard.press('Enter');
    };
    await typeAndSend();
    // Should a completion list still have opened and taken the Enter, it is open now and no request came: closed, and sent again.
    await poll(
      async () => {
        if ((await lastIndex(workbench)) > before) return true;
        if (await suggesting.count()) await typeAndSend();
        return false;
      },
      { timeoutMs: 20_000, message: `the chat did not take "${message}"` },
    );
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

/**
 * Waits until VS Code has saved the chat (the window's chat sessions, in the
 * user-data folder on the server) with every text of `texts` in it: what a
 * reload restores.
 */
export async function chatSaved(userDataDir: string, texts: readonly string[]): Promise<void> {
  const storage = path.join(userDataDir, 'User', 'workspaceStorage');
  const sessions = () =>
    (existsSync(storage) ? readdirSync(storage) : []).flatMap((ws) => {
      const dir = path.join(storage, ws, 'chatSessions');
      return existsSync(dir) ? readdirSync(dir).map((name) => path.join(dir, name)) : [];
    });
  await poll(() => sessions().some((file) => texts.every((text) => readFileSync(file, 'utf8').includes(text))), {
    timeoutMs: 60_000,
    message: `the chat was not saved with ${texts.map((t) => JSON.stringify(t)).join(', ')}`,
  });
}
