// The packaged extension (subagents.vsix) installed into real VS Code
// (code-server) and driven through Chromium, the way a user meets it. One
// code-server and one browser serve every test of this file; the last test
// shuts them down and checks that nothing survives. The model is the scripted
// Messages API server, started here and reached through ANTHROPIC_BASE_URL.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { processGroupAlive, startCodeServer, type RunningCodeServer } from '../../scripts/code-server.mjs';
import { poll, withDiagnostics, type Subject } from './support/diagnostics';
import { ourExthostEntries, ourOutputChannel, exthostLogEntries } from './support/logs';
import { EXTENSION_ID } from './support/paths';
import { descendantsOf, describeProcesses, livingProcesses } from './support/processes';
import { copySampleWorkspace, ensureCodeServerReady, ensureVsix, type Workspace } from './support/product';
import { launchBrowser, Workbench } from './support/workbench';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';
import { samplePlugin, sampleScript } from './support/sampleModel';

const API_KEY = 'sk-ant-e2e-0123456789-not-a-real-key';

describe('the packaged extension in code-server', () => {
  let workspace: Workspace | undefined;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench | undefined;
  let model: ScriptedServer | undefined;
  let finishChild: () => void = () => undefined;
  const subject: Subject = {};

  const live = () => {
    assert.ok(server && workbench, 'the workbench did not start (see the failure of the `before` hook)');
    return { server, workbench };
  };
  const workspaceDir = () => {
    assert.ok(workspace);
    return workspace.dir;
  };

  before(
    () =>
      withDiagnostics('start', subject, async () => {
        ensureCodeServerReady();
        const vsixPath = ensureVsix();
        workspace = copySampleWorkspace();
        writeFileSync(path.join(workspace.dir, '.claude/agents/broken.md'), '---\nname: broken\n---\nThis file has no description.\n');
        model = await startScriptedServer(sampleScript(new Promise<void>((resolve) => (finishChild = resolve))));
        // node --test marks its children with NODE_TEST_CONTEXT; the agents' own
        // `node --test` (through code-server) must not inherit it, or it skips the tests.
        const testContext = process.env.NODE_TEST_CONTEXT;
        delete process.env.NODE_TEST_CONTEXT;
        try {
          server = subject.server = await startCodeServer({
            workspace: workspace.dir,
            vsixPath,
            trust: true,
            env: { ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: model.url },
            settings: { 'subagents.pluginDirs': [samplePlugin(path.join(path.dirname(workspace.dir), 'plugin'))], 'subagents.disabledAgents': ['helper'] },
          });
        } finally {
          if (testContext !== undefined) process.env.NODE_TEST_CONTEXT = testContext;
        }
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
    finishChild();
    await model?.close();
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

  it('lists the sample agents grouped by source, with problems in agent files', { timeout: 30_000 }, () =>
    withDiagnostics('agents list', subject, async () => {
      const { workbench } = live();
      const project = workbench.byTestId('agent-group-project');
      await project.waitFor({ timeout: 15_000 });
      const names = async (group: string) =>
        (await workbench.byTestId(group).locator('li[role="treeitem"]').evaluateAll((items) => items.map((i) => i.getAttribute('data-testid'))));
      assert.deepEqual(
        (await names('agent-group-project')).sort(),
        ['agent-code-reviewer', 'agent-docs-writer', 'agent-explainer', 'agent-helper', 'agent-tech-lead', 'agent-test-runner'],
      );
      assert.deepEqual((await names('agent-group-bundled')).sort(), ['agent-explore', 'agent-general-purpose', 'agent-plan', 'agent-reviewer']);
      // A plugin's own agent, and its code-reviewer that the project's shadows.
      const plugin = workbench.byTestId('agent-group-plugin');
      await plugin.locator('[data-testid="agent-release-notes"]').waitFor();
      assert.match(await plugin.locator('li.shadowed').innerText(), /code-reviewer\s+shadowed by project agent \.claude\/agents\/code-reviewer\.md/);
      // subagents.disabledAgents: listed, marked, not runnable.
      const helper = workbench.byTestId('agent-helper');
      assert.match((await helper.getAttribute('class')) ?? '', /disabled/);
      assert.equal(await workbench.byTestId('run-helper').count(), 0);
      // Groups fold from their header (and stay folded across re-renders).
      await workbench.byTestId('agent-group-bundled-header').click();
      await workbench.byTestId('agent-explore').waitFor({ state: 'hidden' });
      assert.equal(await workbench.byTestId('agent-group-bundled-header').getAttribute('aria-expanded'), 'false');
      await workbench.byTestId('agent-group-bundled-header').click();
      await workbench.byTestId('agent-explore').waitFor();
      // A file that cannot be an agent is a problem that names the file, not a crash.
      assert.match(await workbench.byTestId('agent-group-problems').innerText(), /\.claude\/agents\/broken\.md/);
      // With ANTHROPIC_API_KEY in the environment there is nothing to set up.
      assert.equal(await workbench.byTestId('notice-no-key').count(), 0);
    }),
  );

  it('moves between agents with the arrow keys', { timeout: 30_000 }, () =>
    withDiagnostics('keyboard', subject, async () => {
      const { workbench } = live();
      const first = workbench.byTestId('agent-code-reviewer');
      await first.click();
      // document.activeElement, not `:focus`: the latter only matches while the frame itself has focus.
      const focused = () => workbench.webview().locator('body').evaluate((body) => body.ownerDocument.activeElement?.getAttribute('data-testid') ?? null);
      const expectFocus = (testId: string) => poll(async () => (await focused()) === testId, { timeoutMs: 5000, message: `focus did not reach ${testId}` });
      await expectFocus('agent-code-reviewer');
      await workbench.page.keyboard.press('ArrowDown');
      await expectFocus('agent-docs-writer');
      await workbench.page.keyboard.press('Tab');
      // Tab reaches the focused row's own buttons: Run first.
      await expectFocus('run-docs-writer');
    }),
  );

  it('runs an agent from the command palette and shows the run tree live', { timeout: 120_000 }, () =>
    withDiagnostics('run agent', subject, async () => {
      const { workbench } = live();
      await workbench.runCommand('Subagents: Run Agent…', { opensQuickInput: true });
      await workbench.pick('Subagents: Run Agent', 'tech-lead', { opensQuickInput: true });
      await workbench.answer('Subagents: Run tech-lead', 'Check that the tests pass');

      // test-runner asks before it runs a shell command; the question names the agent and the command.
      const approval = workbench.notification('test-runner wants to run: node --test test/');
      await approval.waitFor({ timeout: 30_000 });
      await workbench.webview().locator('[data-testid^="notice-approval-"]').first().waitFor({ timeout: 10_000 });
      console.log(`screenshot: ${await workbench.screenshot('run-approval')}`);
      await approval.getByRole('button', { name: 'Allow', exact: true }).click();

      const lead = workbench.webview().locator('li[data-agent-name="tech-lead"]').first();
      const spawnRow = lead.locator('li.tool', { hasText: 'Task' }).first();
      const child = spawnRow.locator('li[data-agent-name="test-runner"]');
      const bash = child.locator('li.tool', { hasText: 'Bash' });
      // While test-runner waits for its last turn: both agents run, the spawn row runs, the shell command is done.
      await bash.and(workbench.webview().locator('[data-status="ok"]')).waitFor({ timeout: 30_000 });
      assert.equal(await lead.getAttribute('data-status'), 'running');
      assert.equal(await child.getAttribute('data-status'), 'running');
      assert.equal(await spawnRow.getAttribute('data-status'), 'running');
      assert.match(await bash.innerText(), /node --test test\//);
      await workbench.page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('run-live')}`);

      finishChild();
      await lead.and(workbench.webview().locator('[data-status="completed"]')).waitFor({ timeout: 30_000 });
      assert.equal(await child.getAttribute('data-status'), 'completed');
      assert.equal(await spawnRow.getAttribute('data-status'), 'ok');
      // Tokens and the model show on every agent.
      assert.match(await lead.locator('.details').first().innerText(), /claude-sonnet-5-5[\s\S]*tok/);
      await workbench.page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('run-done')}`);
    }),
  );

  it('opens the transcript of a nested agent from its row', { timeout: 60_000 }, () =>
    withDiagnostics('transcript', subject, async () => {
      const { workbench } = live();
      const child = workbench.webview().locator('li[data-agent-name="test-runner"]').first();
      const agentId = (await child.getAttribute('data-testid'))!.replace('run-agent-', '');
      await child.locator('.agent-row').first().hover();
      await workbench.byTestId(`action-transcript-${agentId}`).click();
      const tab = workbench.page.locator('.tabs-container .tab', { hasText: 'test-runner transcript.md' });
      await tab.waitFor({ timeout: 15_000 });
      const editor = workbench.page.locator('.editor-instance .view-lines');
      await editor.getByText('calls `Bash`').first().waitFor({ timeout: 10_000 });
      console.log(`screenshot: ${await workbench.screenshot('transcript')}`);
    }),
  );

  it('runs an isolated agent from its Run button and applies its worktree', { timeout: 120_000 }, () =>
    withDiagnostics('isolated run', subject, async () => {
      const { workbench } = live();
      await workbench.byTestId('agent-docs-writer').hover();
      await workbench.byTestId('run-docs-writer').click();
      const widget = workbench.page.locator('.quick-input-widget');
      await widget.locator('.quick-input-title', { hasText: 'Subagents: Run docs-writer' }).waitFor({ timeout: 10_000 });
      // The title-bar toggle switches the run into a worktree of its own.
      await widget.locator('a.action-label[aria-label^="Works in the workspace"]').click();
      await widget.getByText('in an isolated git worktree').waitFor();
      console.log(`screenshot: ${await workbench.screenshot('run-input-isolated')}`);
      await workbench.answer('Subagents: Run docs-writer', 'Write NOTES.md');

      const approval = workbench.notification('docs-writer wants to change: NOTES.md');
      await approval.waitFor({ timeout: 30_000 });
      await approval.getByRole('button', { name: 'Allow for this agent' }).click();

      const writer = workbench.webview().locator('li[data-agent-name="docs-writer"]').first();
      await writer.and(workbench.webview().locator('[data-status="completed"]')).waitFor({ timeout: 30_000 });
      const agentId = (await writer.getAttribute('data-testid'))!.replace('run-agent-', '');
      const line = workbench.byTestId(`worktree-${agentId}`);
      assert.match(await line.innerText(), /subagents\/docs-writer[\s\S]*1 file · \+3 −0/);
      const notes = path.join(workspaceDir(), 'NOTES.md');
      assert.equal(existsSync(notes), false, 'the isolated agent wrote into the workspace');
      await workbench.page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('run-worktree')}`);

      await writer.locator('.agent-row').first().hover();
      await workbench.byTestId(`action-applyWorktree-${agentId}`).click();
      await poll(() => existsSync(notes), { timeoutMs: 15_000, message: 'Apply did not write NOTES.md into the workspace' });
      assert.match(readFileSync(notes, 'utf8'), /Tally counts words/);
      await poll(async () => /applied/.test(await line.innerText()), { timeoutMs: 10_000, message: 'the worktree line does not say "applied"' });
    }),
  );

  it('shows a failed agent with the reason', { timeout: 60_000 }, () =>
    withDiagnostics('failed run', subject, async () => {
      const { workbench } = live();
      await workbench.runCommand('Subagents: Run Agent…', { opensQuickInput: true });
      await workbench.pick('Subagents: Run Agent', 'explainer', { opensQuickInput: true });
      await workbench.answer('Subagents: Run explainer', 'Explain src/count.js');
      const explainer = workbench.webview().locator('li[data-agent-name="explainer"]').first();
      await explainer.and(workbench.webview().locator('[data-status="failed"]')).waitFor({ timeout: 30_000 });
      assert.match(await explainer.locator('.error-text').innerText(), /rejected the request \(400\): model: [\w.-]+ is not available/);
      await workbench.notification(/explainer failed/).waitFor({ timeout: 10_000 });
      await workbench.page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('run-failed')}`);
    }),
  );

  it('never writes the API key to its log', () => {
    const { server } = live();
    assert.equal(ourOutputChannel(server.userDataDir).includes(API_KEY), false);
  });

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
