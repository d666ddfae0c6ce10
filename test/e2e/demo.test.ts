// `npm start` for a new user without an API key: the product starts the way
// scripts/start.mjs starts it (the demo model, then code-server with the
// packaged extension pointed at it), and the demo session runs to the end:
// tech-lead delegates to test-runner (a shell command that asks first) and to
// docs-writer (isolated in a worktree, so its write needs no approval), and
// every surface says "demo".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { productServerOptions, startDemoModel, type DemoModel } from '../../scripts/product.mjs';
import { poll, withDiagnostics } from './support/diagnostics';
import { codeServerSuite } from './support/suite';

describe('npm start without an API key', () => {
  let demo: DemoModel | undefined;
  const { subject, live } = codeServerSuite({
    label: 'demo',
    async start(workspace, vsixPath) {
      assert.equal(process.env.ANTHROPIC_API_KEY, undefined, 'this test needs an environment without ANTHROPIC_API_KEY, as a new user has');
      demo = await startDemoModel();
      return productServerOptions({ workspace: workspace.dir, vsixPath, demoModelUrl: demo.url, userDirs: 'isolated' });
    },
    cleanup: () => demo?.stop(),
  });

  it('says it runs on a demo model and plays the demo session to the end', { timeout: 240_000 }, () =>
    withDiagnostics('demo run', subject, async () => {
      const { workbench, page } = live();
      const status = page.locator('.part.statusbar .statusbar-item', { hasText: 'Subagents: demo model' });
      await status.waitFor({ timeout: 60_000 });

      // Nothing to apply yet: the palette does not offer it, and Run Agent… is among the first entries.
      await workbench.openViewContainer('Subagents');
      const before = await workbench.paletteEntries('Subagents: ');
      for (const idle of ['Subagents: Apply Changes', 'Subagents: Discard Changes…', 'Subagents: Stop All', 'Subagents: Review Changes']) {
        assert.ok(!before.includes(idle), `the palette offers "${idle}" with nothing to act on: ${before.join(', ')}`);
      }
      assert.ok(before.includes('Subagents: Run Agent…') && before.indexOf('Subagents: Run Agent…') < 10, `Run Agent… is entry ${before.indexOf('Subagents: Run Agent…') + 1} of ${before.length}: ${before.join(', ')}`);

      // The welcome notification offers the demo; once it has gone by (the palette above hides toasts), the Runs view's empty state does.
      const runDemo = page.locator('.notifications-toasts .notification-toast a.monaco-button', { hasText: 'Run the Demo' }).first();
      if (await runDemo.isVisible().catch(() => false)) await runDemo.click();
      else await workbench.byTestId('runs-empty-demo').click({ timeout: 30_000 });

      // One question: test-runner's shell command. docs-writer's file goes to its worktree unasked, to be reviewed.
      await workbench.answerApproval('test-runner wants to run a shell command: node --test test/', 'Allow');

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
      await poll(async () => /1 file/.test(await workbench.byTestId(`worktree-${writerId}`).innerText()), {
        timeoutMs: 15_000,
        message: 'docs-writer’s worktree with RELEASE-NOTES.md is not shown',
      });
      // The notification of the changes to review quotes the lead's summary by its first point, not by its heading.
      await workbench.notification(/tech-lead finished with 1 changed file from docs-writer on subagents\/docs-writer-\w+ to review: Tests \(test-runner\): All 3 tests pass\./).waitFor({ timeout: 15_000 });
      await page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('demo-run')}`);
      assert.ok((await workbench.paletteEntries('Subagents: Apply')).includes('Subagents: Apply Changes'), 'with changes to apply, the palette offers Apply Changes');

      // The user applies the notes, then plays the demo again: its docs-writer finds them there and says so.
      await workbench.byTestId(`action-applyWorktree-${writerId}`).click();
      await poll(async () => /applied/.test(await workbench.byTestId(`worktree-${writerId}`).innerText()), { timeoutMs: 30_000, message: 'the notes were not applied' });
      await workbench.runCommand('Subagents: Run the Demo');
      await workbench.answerApproval('test-runner wants to run a shell command: node --test test/', 'Allow');
      const leads = workbench.webview().locator('li[data-agent-name="tech-lead"]');
      await poll(async () => (await leads.count()) === 2, { timeoutMs: 30_000, message: 'the second demo run is not shown' });
      const second = leads.first();
      await second.and(workbench.webview().locator('[data-status="completed"]')).waitFor({ timeout: 90_000 });
      const secondId = (await second.getAttribute('data-testid'))!.replace('run-agent-', '');
      const writer2 = second.locator('li[data-agent-name="docs-writer"]').first();
      const writer2Id = (await writer2.getAttribute('data-testid'))!.replace('run-agent-', '');
      await workbench.byTestId(`result-toggle-${writer2Id}`).click();
      assert.match(await workbench.byTestId(`result-${writer2Id}`).innerText(), /already has these release notes/);
      assert.equal(await workbench.byTestId(`worktree-${writer2Id}`).count(), 0, 'no changes are offered for review');
      const summary = await workbench.byTestId(`result-${secondId}`).innerText();
      assert.match(summary, /already had these release notes, so nothing changed/);
      assert.doesNotMatch(summary, /Review it and apply it/);
      assert.match(summary, /^Summary/, 'the result reads as formatted text, not Markdown marks');
    }),
  );
});
