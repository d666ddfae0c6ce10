// Driving the VS Code workbench in Chromium: open it, run palette commands,
// open our view container, reach into webviews, take screenshots and collect
// console errors.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type FrameLocator, type Locator, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../../scripts/code-server.mjs';
import { setColorTheme } from './chatPanel';
import { poll } from './diagnostics';
import { artifactsDir, EXTENSION_ID } from './paths';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

export interface ConsoleEntry {
  type: string;
  text: string;
  /** URL of the script or frame that logged it. */
  url: string;
}

/** How long the workbench may take to appear on a cold, busy 2-core machine. */
const WORKBENCH_TIMEOUT = 60_000;

/** In the page: whether the workbench fills the window and keeps its size over two animation frames. */
const LAID_OUT = `new Promise((resolve) => {
  const shape = () => { const box = document.querySelector('.monaco-workbench')?.getBoundingClientRect(); return box ? Math.round(box.width) + 'x' + Math.round(box.height) : ''; };
  const first = shape();
  requestAnimationFrame(() => requestAnimationFrame(() => resolve(first === innerWidth + 'x' + innerHeight && shape() === first)));
})`;

/** The side bar (our views) or the secondary side bar (the chat). */
export type SidePart = 'sidebar' | 'auxiliarybar';

export class Workbench {
  readonly console: ConsoleEntry[] = [];
  readonly pageErrors: string[] = [];

  private constructor(readonly page: Page) {
    page.on('console', (m: ConsoleMessage) => this.console.push({ type: m.type(), text: m.text(), url: m.location().url }));
    page.on('pageerror', (e) => this.pageErrors.push(String(e.stack ?? e)));
  }

  /** Opens `url` in a new page of `browser` (1400×900). Does not wait for the workbench; see ready(). */
  static async open(browser: Browser, url: string): Promise<Workbench> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const workbench = new Workbench(page);
    await page.goto(url);
    return workbench;
  }

  /** Waits for the workbench to be laid out and the remote extension host to be connected. */
  async ready(): Promise<void> {
    await this.page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: WORKBENCH_TIMEOUT });
    await this.page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: WORKBENCH_TIMEOUT });
    // The explorer shows the folder once the remote file system answers.
    await this.page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: WORKBENCH_TIMEOUT });
  }

  /**
   * Runs a command from the command palette by its full title, e.g.
   * "Subagents: Refresh Agents": F1, type, wait for that exact entry, Enter.
   * With `opensQuickInput`, the command asks something next (see pick() and
   * answer()), so the widget is not expected to close.
   */
  async runCommand(title: string, opts: { opensQuickInput?: boolean } = {}): Promise<void> {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    // Keyboard focus may sit inside a webview iframe after an earlier click;
    // a click on the (empty) editor area gives it back to the workbench. On a
    // busy machine the palette can close again as it opens (a view or a
    // notification taking focus while the window settles): then it is opened again.
    await poll(
      async () => {
        await this.page.locator('.monaco-workbench').click({ position: { x: 700, y: 450 }, force: true }).catch(() => undefined);
        await this.page.keyboard.press('F1');
        const filled = await input
          .waitFor({ state: 'visible', timeout: 10_000 })
          .then(() => input.fill(`>${title}`, { timeout: 5_000 }))
          .then(
            () => true,
            () => false,
          );
        if (!filled) await this.page.keyboard.press('Escape');
        return filled;
      },
      { timeoutMs: 40_000, message: `the command palette did not open to run "${title}"` },
    );
    const rows = this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    const exact = new RegExp(`^\\s*${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
    const entry = rows.filter({ has: this.page.locator('.label-name', { hasText: exact }) }).first();
    try {
      await entry.waitFor({ state: 'visible', timeout: 10_000 });
    } catch (e) {
      const shown = await rows.locator('.label-name').allInnerTexts().catch(() => []);
      await this.page.keyboard.press('Escape');
      throw new Error(`The command palette has no entry "${title}"; it shows: ${JSON.stringify(shown)}`, { cause: e });
    }
    await entry.click();
    if (!opts.opensQuickInput) await input.waitFor({ state: 'hidden', timeout: 10_000 });
  }

  /** The command palette's entries for `filter`, in the order it lists them (then closes it). */
  async paletteEntries(filter: string): Promise<string[]> {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    // Something passing (a dialog while the window settles) can make the workbench inert for a moment: try again.
    await poll(
      async () => {
        await this.page.keyboard.press('Escape');
        await this.page.locator('.monaco-workbench').click({ position: { x: 700, y: 450 }, force: true }).catch(() => undefined);
        await this.page.keyboard.press('F1');
        return input.fill(`>${filter}`, { timeout: 5_000 }).then(
          () => true,
          () => false,
        );
      },
      { timeoutMs: 40_000, message: 'the command palette did not take input' },
    );
    const rows = this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row .label-name');
    await rows.first().waitFor({ timeout: 10_000 });
    const labels = await rows.allInnerTexts();
    await this.page.keyboard.press('Escape');
    await input.waitFor({ state: 'hidden', timeout: 10_000 });
    return labels.map((l) => l.trim());
  }

  /** The open quick input, once its title contains `title`. */
  private async quickInput(title: string): Promise<Locator> {
    const widget = this.page.locator('.quick-input-widget');
    await widget.locator('.quick-input-title', { hasText: title }).waitFor({ state: 'visible', timeout: 10_000 });
    return widget;
  }

  /** In the open quick pick titled `title`: types `label` to filter and clicks that exact entry. */
  async pick(title: string, label: string, opts: { opensQuickInput?: boolean } = {}): Promise<void> {
    const widget = await this.quickInput(title);
    const input = widget.locator('.quick-input-box input');
    await input.fill(label);
    const exact = new RegExp(`^\\s*${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
    await widget.locator('.quick-input-list .monaco-list-row').filter({ has: this.page.locator('.label-name', { hasText: exact }) }).first().click();
    if (!opts.opensQuickInput) await widget.waitFor({ state: 'hidden', timeout: 10_000 });
  }

  /** In the open input box titled `title`: types `text` and presses Enter. */
  async answer(title: string, text: string): Promise<void> {
    const widget = await this.quickInput(title);
    await widget.locator('.quick-input-box input').fill(text);
    await this.page.keyboard.press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: 10_000 });
  }

  /** A notification toast that contains `text`. */
  notification(text: string | RegExp): Locator {
    return this.page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
  }

  /**
   * Answers an approval notification (`test-runner wants to run a shell
   * command: …`) with one of its buttons; the toast closes on the click.
   */
  async answerApproval(question: string | RegExp, answer: 'Allow' | 'Deny'): Promise<void> {
    const toast = this.notification(question);
    await toast.waitFor({ timeout: 60_000 });
    await toast.getByRole('button', { name: answer, exact: true }).click();
    await toast.waitFor({ state: 'detached', timeout: 15_000 });
  }

  /** The activity-bar entry of a view container, by its title. */
  activityBarItem(title: string): Locator {
    return this.page.locator(`.part.activitybar .action-item a[aria-label^="${title}"]`).first();
  }

  /** Opens a view container from the activity bar (unless it is open already: a click would close it) and waits for its side bar. */
  async openViewContainer(title: string): Promise<Locator> {
    const sidebar = this.page.locator('.part.sidebar');
    const heading = sidebar.locator('.composite.title', { hasText: title }).first();
    // Forced: the container's badge sits over its icon and takes the pointer.
    if (!(await heading.isVisible().catch(() => false))) await this.activityBarItem(title).click({ force: true });
    await heading.waitFor({ timeout: 15_000 });
    return sidebar;
  }

  /** A view of the side bar by its title ("Runs", "Agents"): its pane, header and body. */
  pane(title: string): Locator {
    const exact = new RegExp(`^\\s*${title}\\s*$`, 'i');
    return this.page.locator('.part.sidebar .pane', { has: this.page.locator('.pane-header h3.title', { hasText: exact }) }).first();
  }

  /** A row of a native tree view, by the exact text of its label. */
  treeRow(paneTitle: string, label: string): Locator {
    const exact = new RegExp(`^\\s*${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
    return this.pane(paneTitle).locator('.monaco-list-row', { has: this.page.locator('.label-name', { hasText: exact }) });
  }

  /** The labels of a tree view's rendered rows, with their nesting level. */
  async treeRows(paneTitle: string): Promise<Array<{ level: number; label: string; description: string }>> {
    return this.pane(paneTitle)
      .locator('.monaco-list-row')
      .evaluateAll((rows) =>
        rows
          .map((row) => ({
            top: parseFloat(row.getAttribute('style')?.match(/top:\s*([\d.-]+)px/)?.[1] ?? '0'),
            level: Number(row.getAttribute('aria-level') ?? '0'),
            label: row.querySelector('.label-name')?.textContent?.trim() ?? '',
            description: row.querySelector('.label-description')?.textContent?.trim() ?? '',
          }))
          .sort((a, b) => a.top - b.top)
          .map(({ level, label, description }) => ({ level, label, description })),
      );
  }

  /** The number on a view container's activity-bar badge, or null without one. */
  async activityBadge(title: string): Promise<string | null> {
    const badge = this.page.locator('.part.activitybar .action-item', { has: this.page.locator(`a[aria-label^="${title}"]`) }).locator('.badge-content');
    return (await badge.count()) && (await badge.first().isVisible()) ? (await badge.first().innerText()).trim() : null;
  }

  /**
   * The content document of our extension's webview view. VS Code nests it:
   * the outer iframe (`iframe.webview.ready`, owned by the workbench) hosts
   * `#active-frame`, which holds the extension's HTML.
   */
  webview(extensionId = EXTENSION_ID): FrameLocator {
    // The first of ours: the Runs view's is made before any transcript view
    // (a test that hides the Runs view while a transcript is open must not rely on this).
    return this.page
      .frameLocator(`iframe.webview.ready[src*="extensionId=${extensionId}"] >> nth=0`)
      .frameLocator('#active-frame');
  }

  /** The newest webview panel of ours: the transcript view opened last. */
  transcriptView(extensionId = EXTENSION_ID): FrameLocator {
    return this.page
      .frameLocator(`iframe.webview.ready[src*="extensionId=${extensionId}"] >> nth=-1`)
      .frameLocator('#active-frame');
  }

  /**
   * Waits until what a screenshot shows has settled: the workbench laid out
   * at the window's size and unchanged over two animation frames, and every
   * visible webview of ours styled with the workbench's theme (webviews
   * restyle a moment after the workbench).
   */
  async settled(extensionId = EXTENSION_ID): Promise<void> {
    await poll(() => this.page.evaluate(LAID_OUT) as Promise<boolean>, { timeoutMs: 15_000, message: 'the workbench did not settle at the window size' });
    const want = (await this.page.evaluate(`getComputedStyle(document.querySelector('.monaco-workbench')).getPropertyValue('--vscode-editor-background').trim()`)) as string;
    const selector = `iframe.webview.ready[src*="extensionId=${extensionId}"]`;
    const frames = this.page.locator(selector);
    for (let i = 0; i < (await frames.count()); i++) {
      if (!(await frames.nth(i).isVisible())) continue;
      const root = this.page.frameLocator(`${selector} >> nth=${i}`).frameLocator('#active-frame').locator('html');
      const color = () => root.evaluate((html) => (html as unknown as { style: { getPropertyValue(name: string): string } }).style.getPropertyValue('--vscode-editor-background').trim());
      await poll(async () => (await color().catch(() => want)) === want, { timeoutMs: 15_000, message: 'a webview did not take the theme' });
    }
  }

  /** An element of our webview by its data-testid. */
  byTestId(testId: string, extensionId = EXTENSION_ID): Locator {
    return this.webview(extensionId).locator(`[data-testid="${testId}"]`);
  }

  /**
   * Screenshots in the light and the dark theme (`<name>-light.png`,
   * `<name>-dark.png`), the pointer out of the way, ending in the light theme.
   * `prepare` runs before each (to reopen what a theme switch closed, such as a menu).
   */
  async screenshotsInBothThemes(name: string, prepare: () => Promise<void> = async () => undefined): Promise<string[]> {
    const files: string[] = [];
    for (const [theme, suffix] of [['Light Modern', 'light'], ['Dark Modern', 'dark']] as const) {
      await setColorTheme(this, theme);
      await this.settled();
      await prepare();
      await this.page.mouse.move(1390, 890);
      files.push(await this.screenshot(`${name}-${suffix}`));
    }
    await setColorTheme(this, 'Light Modern');
    return files;
  }

  /**
   * Sets the width of the side bar (or of the secondary side bar, where the
   * chat is) by dragging its edge, as a user does (the default is 300 px;
   * 250 px is a narrow one), and returns the width it got.
   */
  async setSidebarWidth(width: number, part: SidePart = 'sidebar'): Promise<number> {
    const bar = this.page.locator(`.part.${part}`);
    const box = await bar.boundingBox();
    if (!box) throw new Error(`the ${part} is not shown`);
    if (Math.abs(box.width - width) <= 1) return box.width;
    const sash = part === 'sidebar' ? await this.page.locator('.monaco-sash.vertical.primary-sidebar-sash').boundingBox() : await this.sashAt(box.x);
    if (!sash) throw new Error(`the ${part} has no sash to drag`);
    // The side bar's edge is its right one, the secondary side bar's its left one: the drag moves it by as much as the pointer.
    const by = part === 'sidebar' ? width - box.width : box.width - width;
    const x = sash.x + sash.width / 2;
    const y = sash.y + sash.height / 2;
    await this.page.mouse.move(x, y);
    await this.page.mouse.down();
    await this.page.mouse.move(x + by / 2, y, { steps: 4 });
    await this.page.mouse.move(x + by, y, { steps: 4 });
    await this.page.mouse.up();
    await poll(async () => Math.abs(((await bar.boundingBox())?.width ?? 0) - width) <= 2, { timeoutMs: 10_000, message: `the ${part} did not become ${width} px wide` });
    return (await bar.boundingBox())!.width;
  }

  /** The workbench's vertical sash on the line x (the secondary side bar's has no class of its own). */
  private async sashAt(x: number): Promise<{ x: number; y: number; width: number; height: number } | null> {
    for (const sash of await this.page.locator('.monaco-sash.vertical').all()) {
      const box = await sash.boundingBox().catch(() => null);
      if (box && box.height > 100 && Math.abs(box.x + box.width / 2 - x) <= 6) return box;
    }
    return null;
  }

  /**
   * Screenshots at the default side bar width (300 px) and at 250 px, each in
   * the light and the dark theme: `<name>-300-light.png` … `<name>-250-dark.png`.
   * The bar is left at 300 px.
   */
  async screenshotsAtWidths(name: string, prepare: () => Promise<void> = async () => undefined, part: SidePart = 'sidebar'): Promise<string[]> {
    const files: string[] = [];
    for (const width of [300, 250]) {
      await this.setSidebarWidth(width, part);
      files.push(...(await this.screenshotsInBothThemes(`${name}-${width}`, prepare)));
    }
    await this.setSidebarWidth(300, part);
    return files;
  }

  /** Saves a full-page screenshot as test/e2e/artifacts/<name>.png and returns its path. */
  async screenshot(name: string): Promise<string> {
    mkdirSync(artifactsDir, { recursive: true });
    const file = path.join(artifactsDir, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /** Console errors and uncaught page errors so far, optionally only those matching `filter`. */
  errors(filter?: (entry: ConsoleEntry) => boolean): ConsoleEntry[] {
    const all = [
      ...this.console.filter((c) => c.type === 'error'),
      ...this.pageErrors.map((text) => ({ type: 'pageerror', text, url: '' })),
    ];
    return filter ? all.filter(filter) : all;
  }

  /** Writes the collected console to test/e2e/artifacts/<name>.console.log. */
  saveConsole(name: string): string {
    mkdirSync(artifactsDir, { recursive: true });
    const file = path.join(artifactsDir, `${name}.console.log`);
    const lines = this.console.map((c) => `[${c.type}] ${c.text}${c.url ? `  (${c.url})` : ''}`);
    writeFileSync(file, [...lines, ...this.pageErrors.map((e) => `[pageerror] ${e}`)].join('\n') + '\n');
    return file;
  }

  async close(): Promise<void> {
    if (!this.page.isClosed()) await this.page.close();
  }
}
