// The packaged extension (subagents.vsix) installed into real VS Code
// (code-server) and driven through Chromium, the way a user meets it. One
// code-server and one browser serve every test of this file; the last test
// shuts them down and checks that nothing survives.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { processGroupAlive, startCodeServer, type RunningCodeServer } from '../../scripts/code-server.mjs';
import { poll, withDiagnostics, type Subject } from './support/diagnostics';
import { ourExthostEntries, ourOutputChannel, exthostLogEntries } from './support/logs';
import { EXTENSION_ID } from './support/paths';
import { descendantsOf, describeProcesses, livingProcesses } from './support/processes';
import { copySampleWorkspace, ensureCodeServerReady, ensureVsix, type Workspace } from './support/product';
import { launchBrowser, Workbench } from './support/workbench';

describe('the packaged extension in code-server', () => {
  let workspace: Workspace | undefined;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench | undefined;
  const subject: Subject = {};

  const live = () => {
    assert.ok(server && workbench, 'the workbench did not start (see the failure of the `before` hook)');
    return { server, workbench };
  };

  before(
    () =>
      withDiagnostics('start', subject, async () => {
        ensureCodeServerReady();
        const vsixPath = ensureVsix();
        workspace = copySampleWorkspace();
        server = subject.server = await startCodeServer({ workspace: workspace.dir, vsixPath, trust: true });
        browser = await launchBrowser();
        workbench = subject.workbench = await Workbench.open(browser, server.folderUrl);
        await workbench.ready();
      }),
    // The first run on a machine installs code-server (about two minutes).
    { timeout: 6 * 60_000 },
  );

  after(async () => {
    await workbench?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await server?.stop();
    workspace?.remove();
  });

  it('activates without errors in the extension-host log', { timeout: 60_000 }, () =>
    withDiagnostics('activation', subject, async () => {
      const { server } = live();
      await poll(() => ourOutputChannel(server.userDataDir).includes('Subagents activated'), {
        timeoutMs: 30_000,
        message: 'our output channel never logged "Subagents activated"',
      });
      const activation = exthostLogEntries(server.userDataDir).find((e) =>
        e.text.startsWith(`ExtensionService#_doActivateExtension ${EXTENSION_ID}`),
      );
      assert.ok(activation, 'the extension-host log does not record our activation');
      const errors = ourExthostEntries(server.userDataDir, ['error', 'critical']);
      assert.deepEqual(errors.map((e) => e.text), [], 'extension-host errors mentioning our extension');
      // Warnings (e.g. deprecations) do not fail the test but should be seen.
      for (const w of ourExthostEntries(server.userDataDir, ['warning'])) {
        console.log(`extension-host warning: ${w.text.split('\n')[0]}`);
      }
    }),
  );

  it('opens the Subagents container and renders the Agents view', { timeout: 60_000 }, () =>
    withDiagnostics('agents view', subject, async () => {
      const { workbench } = live();
      const sidebar = await workbench.openViewContainer('Subagents');
      // "Subagents: Agents" while it is the container's only view; a pane
      // header once the container holds more views.
      const heading = sidebar.locator('.composite.title', { hasText: 'Agents' });
      await heading.or(sidebar.locator('.pane-header', { hasText: 'Agents' })).first().waitFor();
      const root = workbench.byTestId('agents-view-root');
      await root.waitFor({ timeout: 30_000 });
      // The host sends the state after the webview says it is ready; the
      // section headings appear with the first render, whatever the content.
      const agents = workbench.byTestId('agents-section');
      const runs = workbench.byTestId('runs-section');
      await agents.waitFor({ timeout: 15_000 });
      assert.equal((await agents.locator('h2').first().innerText()).toLowerCase(), 'agents');
      assert.equal((await runs.locator('h2').first().innerText()).toLowerCase(), 'runs');
      await workbench.page.mouse.move(700, 450); // no activity-bar hover in the picture
      const shot = await workbench.screenshot('agents-view');
      console.log(`screenshot: ${shot}`);
    }),
  );

  it('runs "Subagents: Refresh Agents" from the command palette', { timeout: 60_000 }, () =>
    withDiagnostics('refresh command', subject, async () => {
      const { server, workbench } = live();
      const count = () => ourOutputChannel(server.userDataDir).split('Agents refreshed').length - 1;
      const before = count();
      await workbench.runCommand('Subagents: Refresh Agents');
      await poll(() => count() > before, {
        timeoutMs: 15_000,
        message: 'the output channel did not log "Agents refreshed" after the command',
      });
      // The view survives a refresh.
      await workbench.byTestId('agents-view-root').waitFor({ timeout: 10_000 });
    }),
  );

  it('logs no console errors from its webview or about the extension', { timeout: 30_000 }, () =>
    withDiagnostics('console errors', subject, () => {
      const { workbench } = live();
      const ours = workbench.errors(
        (e) => e.url.includes(`extensionId=${EXTENSION_ID}`) || e.url.includes('vscode-resource') || e.text.includes(EXTENSION_ID),
      );
      assert.deepEqual(ours.map((e) => `${e.text} (${e.url})`), []);
    }),
  );

  it('stops code-server and Chromium without leaving a process behind', { timeout: 60_000 }, async () => {
    const { server } = live();
    const ours = descendantsOf(process.pid);
    const browserPids = new Set(ours.filter((p) => /chrom/i.test(p.cmdline)).map((p) => p.pid));
    assert.ok(browserPids.size > 0, `no Chromium process among ours:\n${describeProcesses(ours)}`);
    assert.ok(processGroupAlive(server.pid), 'code-server is not running before the stop');

    await workbench?.close();
    await browser?.close();
    await server.stop();

    const left = livingProcesses().filter(
      (p) => p.pgid === server.pid || browserPids.has(p.pid) || p.cmdline.includes(server.userDataDir),
    );
    assert.equal(left.length, 0, `still running:\n${describeProcesses(left)}`);
    assert.equal(existsSync(server.userDataDir), false, 'the temporary user-data dir was not removed');
    const strays = descendantsOf(process.pid).filter((p) => /chrom|code-server|entry\.js/.test(p.cmdline));
    assert.equal(strays.length, 0, `still running:\n${describeProcesses(strays)}`);
  });
});
