// `npm start` for a new user without an API key: the product starts the way
// scripts/start.mjs starts it (the demo model, then code-server with the
// packaged extension pointed at it), and the demo session runs to the end:
// tech-lead delegates to test-runner (a shell command that asks first) and to
// docs-writer (isolated in a worktree), and every surface says "demo".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { RunningCodeServer } from '../../scripts/code-server.mjs';
import { startDemoModel, startProductInCodeServer, type DemoModel } from '../../scripts/product.mjs';
import { poll, withDiagnostics, type Subject } from './support/diagnostics';
import { copySampleWorkspace, ensureCodeServerReady, ensureVsix, type Workspace } from './support/product';
import { launchBrowser, Workbench } from './support/workbench';

describe('npm start without an API key', () => {
  let workspace: Workspace | undefined;
  let demo: DemoModel | undefined;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench | undefined;
  const subject: Subject = {};

  before(
    () =>
      withDiagnostics('demo start', subject, async () => {
        assert.equal(process.env.ANTHROPIC_API_KEY, undefined, 'this test needs an environment without ANTHROPIC_API_KEY, as a new user has');
        ensureCodeServerReady();
        const vsixPath = ensureVsix();
        workspace = copySampleWorkspace();
        demo = await startDemoModel();
        server = subject.server = await startProductInCodeServer({ workspace: workspace.dir, vsixPath, demoModelUrl: demo.url });
        browser = await launchBrowser();
        workbench = subject.workbench = await Workbench.open(browser, server.folderUrl);
        await workbench.ready();
      }),
    { timeout: 6 * 60_000 },
  );

  after(async () => {
    await workbench?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await server?.stop();
    demo?.stop();
    workspace?.remove();
  });

  it('says it runs on a demo model and plays the demo session to the end', { timeout: 240_000 }, () =>
    withDiagnostics('demo run', subject, async () => {
      assert.ok(workbench);
      const { page } = workbench;
      const status = page.locator('.part.statusbar .statusbar-item', { hasText: 'Subagents: demo model' });
      await status.waitFor({ timeout: 60_000 });

      // The welcome notification offers the demo; it may already sit in the notification centre.
      const runDemo = page.locator('.notifications-toasts .notification-toast a.monaco-button', { hasText: 'Run the Demo' }).first();
      if (!(await runDemo.isVisible().catch(() => false))) {
        await page.locator('.part.statusbar [id="status.notifications"] a, .part.statusbar .codicon-bell, .part.statusbar .codicon-bell-dot').first().click();
      }
      await page.locator('a.monaco-button', { hasText: 'Run the Demo' }).first().click({ timeout: 30_000 });

      // Two questions: test-runner's shell command, docs-writer's file in its worktree.
      for (const question of ['test-runner wants to run: node --test test/', 'docs-writer wants to change: NOTES.md']) {
        const toast = workbench.notification(question);
        await toast.waitFor({ timeout: 60_000 });
        await toast.getByRole('button', { name: 'Allow', exact: true }).click();
      }

      await workbench.openViewContainer('Subagents');
      const lead = workbench.webview().locator('li[data-agent-name="tech-lead"]').first();
      await lead.and(workbench.webview().locator('[data-status="completed"]')).waitFor({ timeout: 90_000 });
      const details = await lead.locator('.details').first().innerText();
      assert.match(details, /demo-sonnet/, 'the run names the demo model');
      assert.doesNotMatch(details, /\$\d/, 'the demo model costs nothing');
      for (const name of ['test-runner', 'docs-writer']) {
        const child = workbench.webview().locator(`li[data-agent-name="${name}"]`).first();
        assert.equal(await child.getAttribute('data-status'), 'completed', `${name} completed`);
      }
      const writer = workbench.webview().locator('li[data-agent-name="docs-writer"]').first();
      const writerId = (await writer.getAttribute('data-testid'))!.replace('run-agent-', '');
      await poll(async () => /1 file/.test(await workbench!.byTestId(`worktree-${writerId}`).innerText()), {
        timeoutMs: 15_000,
        message: 'docs-writer’s worktree with NOTES.md is not shown',
      });
      await page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('demo-run')}`);
    }),
  );
});
