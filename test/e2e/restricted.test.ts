// Workspace trust in real VS Code: the sample workspace opened in
// Restricted Mode. Project and plugin agents stay unread, nothing can run and
// the view says why; granting trust loads the project's agents without a
// reload. One code-server for the file.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startCodeServer, type RunningCodeServer } from '../../scripts/code-server.mjs';
import { withDiagnostics, type Subject } from './support/diagnostics';
import { copySampleWorkspace, ensureCodeServerReady, ensureVsix, type Workspace } from './support/product';
import { launchBrowser, Workbench } from './support/workbench';

describe('the extension in Restricted Mode', () => {
  let workspace: Workspace | undefined;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench | undefined;
  const subject: Subject = {};

  const live = () => {
    assert.ok(workbench, 'the workbench did not start (see the failure of the `before` hook)');
    return workbench;
  };

  before(
    () =>
      withDiagnostics('restricted start', subject, async () => {
        ensureCodeServerReady();
        const vsixPath = ensureVsix();
        workspace = copySampleWorkspace();
        server = subject.server = await startCodeServer({
          workspace: workspace.dir,
          vsixPath,
          trust: false,
          // Open straight into Restricted Mode instead of the start-up trust dialog.
          settings: { 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.banner': 'never' },
          env: { ANTHROPIC_API_KEY: 'sk-ant-e2e-restricted' },
        });
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
    workspace?.remove();
  });

  it('lists only user and built-in agents, says why, and offers no Run button', { timeout: 60_000 }, () =>
    withDiagnostics('restricted view', subject, async () => {
      const workbench = live();
      await workbench.openViewContainer('Subagents');
      await workbench.byTestId('notice-untrusted').waitFor({ timeout: 30_000 });
      assert.match(await workbench.byTestId('notice-untrusted').innerText(), /Restricted Mode/);
      await workbench.treeRow('Agents', 'Built-in').waitFor({ timeout: 15_000 });
      assert.equal(await workbench.treeRow('Agents', 'Project').count(), 0, 'project agents were loaded in Restricted Mode');
      assert.match(await workbench.pane('Agents').locator('.message').innerText(), /Restricted Mode/);
      const explore = workbench.treeRow('Agents', 'explore');
      await explore.hover();
      assert.equal(await explore.locator('.action-label[aria-label="Run Agent…"]').count(), 0, 'a Run button is offered in Restricted Mode');
      await workbench.page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('restricted-view')}`);
    }),
  );

  it('refuses Run Agent with a message that says why and how to change it', { timeout: 60_000 }, () =>
    withDiagnostics('restricted run', subject, async () => {
      const workbench = live();
      await workbench.runCommand('Subagents: Run Agent…');
      const message = workbench.notification('Agents cannot run in Restricted Mode');
      await message.waitFor({ timeout: 15_000 });
      await message.getByRole('button', { name: 'Manage Workspace Trust' }).waitFor();
    }),
  );

  it('loads the project agents once the workspace is trusted, without a reload', { timeout: 60_000 }, () =>
    withDiagnostics('grant trust', subject, async () => {
      const workbench = live();
      await workbench.byTestId('notice-action-untrusted-manageTrust').click();
      const trust = workbench.page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first();
      await trust.waitFor({ timeout: 15_000 });
      await trust.click();
      const lead = workbench.treeRow('Agents', 'tech-lead');
      await lead.waitFor({ timeout: 30_000 });
      // The trust editor is modal: close it to reach the view again.
      const modal = workbench.page.locator('.monaco-modal-editor-block');
      await workbench.page.keyboard.press('Escape');
      if (await modal.isVisible().catch(() => false)) await modal.locator('.codicon-close').first().click().catch(() => undefined);
      await modal.waitFor({ state: 'detached', timeout: 10_000 }).catch(() => undefined);
      assert.equal(await workbench.byTestId('notice-untrusted').count(), 0);
      await lead.hover();
      assert.equal(await lead.locator('.action-label[aria-label="Run Agent…"]').count(), 1, 'no Run button once trusted');
    }),
  );
});
