// The packaged extension (subagents.vsix) installed into real VS Code
// (code-server) and driven through Chromium, the way a user meets it, in the
// sample workspace with 210 generated agents in every format beside its own. One
// code-server and one browser serve every test of this file; the last test
// shuts them down and checks that nothing survives. The model is the scripted
// Messages API server, started here and reached through ANTHROPIC_BASE_URL.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
import { GENERATED_AGENT_COUNT, writeGeneratedAgents, type GeneratedWorkspace } from '../support/generatedAgents';

const API_KEY = 'sk-ant-e2e-0123456789-not-a-real-key';

/** Files under `roots` whose bytes contain `secret` (binary files and databases included). */
function filesContaining(roots: string[], secret: string): string[] {
  const needle = Buffer.from(secret);
  const found: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && !entry.name.endsWith('.sock')) {
        try {
          if (readFileSync(full).includes(needle)) found.push(full);
        } catch {
          // gone meanwhile, or a socket
        }
      }
    }
  };
  for (const root of roots) walk(root);
  return found;
}

describe('the packaged extension in code-server', () => {
  let workspace: Workspace | undefined;
  let generated: GeneratedWorkspace | undefined;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench | undefined;
  let model: ScriptedServer | undefined;
  let finishChild: () => void = () => undefined;
  let finishReview: () => void = () => undefined;
  const subject: Subject = {};

  const live = () => {
    assert.ok(server && workbench, 'the workbench did not start (see the failure of the `before` hook)');
    return { server, workbench };
  };
  /** The Agents view's title-bar button that shows while a filter is on. */
  const clearAgentsFilter = async () => {
    const { workbench } = live();
    const header = workbench.pane('Agents').locator('.pane-header');
    await header.hover();
    await header.locator('.action-label[aria-label="Clear Agents Filter"]').click();
    await poll(async () => (await workbench.pane('Agents').locator('.message', { hasText: 'agents match' }).count()) === 0, { timeoutMs: 5000, message: 'the filter did not clear' });
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
        // The views at real scale: 210 agents in every format beside the sample's (which win on equal names).
        generated = writeGeneratedAgents(workspace.dir);
        workspace.commit('generated agents and a broken one');
        model = await startScriptedServer(
          sampleScript(new Promise<void>((resolve) => (finishChild = resolve)), new Promise<void>((resolve) => (finishReview = resolve))),
        );
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
    finishReview();
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

  it('shows Runs and Agents as two views of the Subagents container', { timeout: 60_000 }, () =>
    withDiagnostics('two views', subject, async () => {
      const { workbench } = live();
      await workbench.openViewContainer('Subagents');
      await workbench.pane('Runs').waitFor({ timeout: 15_000 });
      await workbench.pane('Agents').waitFor({ timeout: 15_000 });
      await workbench.byTestId('runs-view-root').waitFor({ timeout: 30_000 });
      // The host sends the runs once the webview says it is ready: with none yet, the empty state offers a run.
      await workbench.byTestId('runs-empty').waitFor({ timeout: 15_000 });
      await workbench.byTestId('runs-empty-run').waitFor();
      await workbench.treeRow('Agents', 'Project').waitFor({ timeout: 30_000 });
      await workbench.page.mouse.move(700, 450); // no activity-bar hover in the picture
      console.log(`screenshot: ${await workbench.screenshot('views')}`);
    }),
  );

  it('lists 210+ agents by source and family, problems on top, and filters them to one in under a second', { timeout: 60_000 }, () =>
    withDiagnostics('agents list', subject, async () => {
      const { workbench } = live();
      await workbench.pane('Agents').locator('.pane-header').hover();
      await workbench.pane('Agents').locator('.pane-header .action-label[aria-label="Collapse All"]').click();
      const top = (await workbench.treeRows('Agents')).filter((r) => r.level === 1);
      assert.deepEqual(top.map((r) => r.label), ['Problems', 'Project', 'Plugins', 'Built-in', 'Search Order']);
      // The folders in the order discovery searched them, family by family: Cursor's before Claude Code's, the sample's .claude before its .gemini and .github, the later families after them.
      await workbench.treeRow('Agents', 'Search Order').click();
      const searched = async () => (await workbench.treeRows('Agents')).filter((r) => /^\d+\. /.test(r.label)).map((r) => r.label);
      await poll(async () => (await searched()).length > 0, { timeoutMs: 5000, message: 'the Search Order folders' });
      // The tree renders only the rows in sight: read them, go to the last row (End) and read again.
      const seen = new Map<number, string>();
      const collect = async () => {
        for (const label of await searched()) seen.set(Number(label.split('.')[0]), label);
      };
      await collect();
      await workbench.page.keyboard.press('End');
      await workbench.pane('Agents').locator('.monaco-list-row.focused', { hasText: /\d+\. / }).waitFor({ timeout: 5000 });
      await collect();
      await workbench.page.keyboard.press('Home');
      const order = [...seen.entries()].sort(([a], [b]) => a - b).map(([, label]) => label);
      // (User folders of the machine's home may sit between them, each after its family's project folder.)
      const projectDirs = order.filter((label) => /^\d+\. \./.test(label));
      assert.deepEqual(
        projectDirs.map((label) => label.replace(/^\d+\. /, '')),
        ['.omp/agents', '.cursor/agents', '.claude/agents', '.codex/agents', '.gemini/agents', '.github/agents', '.github/chatmodes', '.opencode/agents', '.kilo/agents', '.roomodes', '.qwen/agents', '.kiro/agents', '.factory/droids'],
        order.join(' | '),
      );
      assert.deepEqual(order.map((label) => Number(label.split('.')[0])), order.map((_, i) => i + 1));
      await workbench.treeRow('Agents', 'Search Order').click();
      const project = Number(top.find((r) => r.label === 'Project')!.description);
      assert.ok(project >= GENERATED_AGENT_COUNT + 6, `the Project group counts ${project} agents`);
      // A file that cannot be an agent is a problem naming the file; it opens on click.
      await workbench.treeRow('Agents', 'Problems').click();
      const broken = workbench.treeRow('Agents', '.claude/agents/broken.md');
      await broken.waitFor({ timeout: 10_000 });
      await broken.click();
      await workbench.page.locator('.tabs-container .tab', { hasText: 'broken.md' }).waitFor({ timeout: 10_000 });
      await workbench.treeRow('Agents', 'Problems').click();

      await workbench.runCommand('Subagents: Filter Agents…', { opensQuickInput: true });
      const input = workbench.page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor();
      // An agent far down the list (not rendered before): it shows as soon as the name is in the box.
      assert.ok(generated);
      const target = generated.agents.at(-1)!.expect.name;
      assert.equal(await workbench.treeRow('Agents', target).count(), 0, `${target} is already in view`);
      await input.fill(target);
      const typed = Date.now();
      await workbench.treeRow('Agents', target).waitFor({ timeout: 5_000 });
      const elapsed = Date.now() - typed;
      console.log(`filter: ${target} visible ${elapsed} ms after it was entered`);
      assert.ok(elapsed < 1000, `the filtered agent took ${elapsed} ms to show`);
      await workbench.page.keyboard.press('Enter');
      await workbench.pane('Agents').locator('.message', { hasText: new RegExp(`^1 of \\d+ agents match "${target}"\\.$`) }).waitFor({ timeout: 5000 });
      const rows = await workbench.treeRows('Agents');
      assert.deepEqual(rows.filter((r) => r.level > 1 && !r.label.endsWith('.md')).map((r) => r.label), [target]);
      console.log(`screenshot: ${await workbench.screenshot('agents-filtered')}`);

      // The sample's code-reviewer wins over the generated one, listed as shadowed. A plugin's agents are
      // `plugin:agent`: its code-reviewer is listed beside the project's, not shadowed by it.
      await workbench.runCommand('Subagents: Filter Agents…', { opensQuickInput: true });
      await input.fill('code-reviewer');
      await workbench.page.keyboard.press('Enter');
      await poll(async () => (await workbench.treeRow('Agents', 'code-reviewer').count()) === 2, { timeoutMs: 5000, message: 'two code-reviewer rows' });
      const reviewers = (await workbench.treeRows('Agents')).filter((r) => r.label.endsWith('code-reviewer'));
      assert.deepEqual(reviewers.map((r) => r.label).sort(), ['code-reviewer', 'code-reviewer', 'plugin:code-reviewer']);
      const shadowed = reviewers.filter((r) => r.description.startsWith('shadowed by project agent .claude/agents/code-reviewer.md'));
      assert.deepEqual(shadowed.map((r) => r.label), ['code-reviewer'], reviewers.map((r) => `${r.label}: ${r.description}`).join(' | '));
      await workbench.runCommand('Subagents: Filter Agents…', { opensQuickInput: true });
      await input.fill('plugin:');
      await workbench.page.keyboard.press('Enter');
      await poll(async () => (await workbench.treeRow('Agents', 'plugin:release-notes').count()) === 1, { timeoutMs: 5000, message: 'the plugin’s release-notes agent' });

      // subagents.disabledAgents: listed, marked, not runnable.
      await workbench.runCommand('Subagents: Filter Agents…', { opensQuickInput: true });
      await input.fill('helper');
      await workbench.page.keyboard.press('Enter');
      const helper = workbench.treeRow('Agents', 'helper');
      await helper.waitFor();
      assert.match(await helper.locator('.label-description').innerText(), /^disabled/);
      await helper.hover();
      assert.equal(await helper.locator('.action-label[aria-label="Run Agent…"]').count(), 0, 'a disabled agent offers Run');
      await clearAgentsFilter();
    }),
  );

  it('runs an agent from the command palette and shows the run tree live, in sight', { timeout: 120_000 }, () =>
    withDiagnostics('run agent', subject, async () => {
      const { workbench } = live();
      await workbench.runCommand('Subagents: Run Agent…', { opensQuickInput: true });
      await workbench.pick('Subagents: Run Agent', 'tech-lead', { opensQuickInput: true });
      await workbench.answer('Subagents: Run tech-lead', 'Check that the tests pass');

      // test-runner asks before it runs a shell command: a notification, and in the Runs view the
      // agent waits with the question and its answers; the first answer settles it everywhere.
      const toast = workbench.notification('test-runner wants to run a shell command: node --test test/');
      await toast.waitFor({ timeout: 30_000 });
      const waiting = workbench.webview().locator('li[data-agent-name="test-runner"][data-status="waiting"]').first();
      await waiting.waitFor({ timeout: 15_000 });
      const waitingId = (await waiting.getAttribute('data-agent-id'))!;
      assert.match(await workbench.byTestId(`approval-${waitingId}`).innerText(), /Wants to run a shell command:\s*node --test test\//);
      assert.equal(await workbench.activityBadge('Subagents'), '2', 'the badge counts the running lead and the waiting test-runner');
      await workbench.page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('run-approval')}`);
      await workbench.byTestId(`approve-allow-${waitingId}`).click();
      await workbench.byTestId(`approval-${waitingId}`).waitFor({ state: 'detached', timeout: 15_000 });
      // Answered here: the notification's buttons (VS Code cannot close it for us) say so.
      if (await toast.isVisible()) {
        await toast.getByRole('button', { name: 'Allow', exact: true }).click();
        await workbench.notification('That approval was already answered').waitFor({ timeout: 10_000 });
      }

      const lead = workbench.webview().locator('li[data-agent-name="tech-lead"]').first();
      // The agent a spawn started stands in the place of its Task row.
      assert.equal(await lead.locator('li.tool', { hasText: 'Task' }).count(), 0, 'a Task row above its agent');
      const child = lead.locator('li[data-agent-name="test-runner"]');
      const bash = child.locator('li.tool', { hasText: 'Bash' });
      // While test-runner waits for its last turn: both agents run, the spawn row runs, the shell command is done.
      await bash.and(workbench.webview().locator('[data-status="ok"]')).waitFor({ timeout: 30_000 });
      assert.equal(await lead.getAttribute('data-status'), 'running');
      assert.equal(await child.getAttribute('data-status'), 'running');
      assert.match(await bash.innerText(), /node --test test\//);
      // In sight without scrolling or folding: the rows lie inside the Runs view's visible body.
      const body = await workbench.pane('Runs').locator('.pane-body').boundingBox();
      for (const row of [lead.locator('.agent-row').first(), child.locator('.agent-row').first()]) {
        const box = await row.boundingBox();
        assert.ok(body && box && box.y >= body.y && box.y + box.height <= body.y + body.height, `a row is out of sight: ${JSON.stringify({ body, box })}`);
      }
      assert.equal(await workbench.activityBadge('Subagents'), '2', 'the container badge counts the two running agents');
      await workbench.page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('run-live')}`);

      // Hidden and shown again mid-run: the whole tree comes back, and keeps updating.
      await workbench.activityBarItem('Explorer').click({ force: true });
      await workbench.byTestId('runs-view-root').waitFor({ state: 'detached', timeout: 15_000 }).catch(() => undefined);
      await workbench.openViewContainer('Subagents');
      await bash.and(workbench.webview().locator('[data-status="ok"]')).waitFor({ timeout: 15_000 });
      assert.equal(await child.getAttribute('data-status'), 'running');
      finishChild();
      await lead.and(workbench.webview().locator('[data-status="completed"]')).waitFor({ timeout: 30_000 });
      assert.equal(await child.getAttribute('data-status'), 'completed');
      await poll(async () => (await workbench.activityBadge('Subagents')) === null, { timeoutMs: 10_000, message: 'the badge stayed after the run ended' });
      // Tokens and the model show on every agent.
      assert.match(await lead.locator('.details').first().innerText(), /claude-sonnet-5-5[\s\S]*tok/);
      // The run ended in sight: no notification about it.
      assert.equal(await workbench.notification('tech-lead finished').count(), 0);
      await workbench.page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('run-done')}`);
    }),
  );

  it('opens the transcript of a nested agent in its own view when its row is clicked', { timeout: 60_000 }, () =>
    withDiagnostics('transcript', subject, async () => {
      const { workbench } = live();
      const child = workbench.webview().locator('li[data-agent-name="test-runner"]').first();
      await child.locator('.agent-row .name').first().click();
      const tab = workbench.page.locator('.tabs-container .tab', { hasText: 'test-runner: ' });
      await tab.waitFor({ timeout: 15_000 });
      const view = workbench.transcriptView();
      await view.locator('.tool-call .tool-head', { hasText: 'Bash' }).first().waitFor({ timeout: 15_000 });
      await view.locator('h2', { hasText: 'test-runner' }).first().waitFor();
      console.log(`screenshot: ${await workbench.screenshot('transcript')}`);
      // Later tests click the editor area to reach the command palette: not into a webview.
      await workbench.runCommand('View: Close All Editors');
    }),
  );

  it('runs an isolated agent from its Run button in the Agents view and applies its worktree', { timeout: 120_000 }, () =>
    withDiagnostics('isolated run', subject, async () => {
      const { workbench } = live();
      await workbench.runCommand('Subagents: Filter Agents…', { opensQuickInput: true });
      await workbench.page.locator('.quick-input-widget .quick-input-box input').fill('docs-writer');
      await workbench.page.keyboard.press('Enter');
      await workbench.pane('Agents').locator('.message', { hasText: /agents match "docs-writer"/ }).waitFor({ timeout: 5000 });
      const row = workbench.treeRow('Agents', 'docs-writer');
      await row.waitFor({ timeout: 5000 });
      const runButton = row.locator('.action-label[aria-label="Run Agent…"]');
      // The row re-renders once the filter applies; hover until its inline actions show.
      await poll(async () => (await row.hover().then(() => runButton.isVisible())) === true, { timeoutMs: 10_000, message: 'no Run button on docs-writer' });
      // Forced: hovering resolves the row's tooltip, which re-renders it while the pointer rests there.
      await runButton.click({ force: true });
      const widget = workbench.page.locator('.quick-input-widget');
      await widget.locator('.quick-input-title', { hasText: 'Subagents: Run docs-writer' }).waitFor({ timeout: 10_000 });
      // The title-bar toggle switches the run into a worktree of its own.
      await widget.locator('a.action-label[aria-label^="Works in the workspace"]').click();
      await widget.getByText('in an isolated git worktree').waitFor();
      console.log(`screenshot: ${await workbench.screenshot('run-input-isolated')}`);
      await workbench.answer('Subagents: Run docs-writer', 'Write RELEASE-NOTES.md');
      await clearAgentsFilter();

      // Its write stays in its worktree until applied: it runs unasked (subagents.isolation.autoApproveEdits).
      const writer = workbench.webview().locator('li[data-agent-name="docs-writer"]').first();
      await writer.and(workbench.webview().locator('[data-status="completed"]')).waitFor({ timeout: 30_000 });
      const agentId = (await writer.getAttribute('data-testid'))!.replace('run-agent-', '');
      const line = workbench.byTestId(`worktree-${agentId}`);
      assert.match(await line.innerText(), /1 file changed[\s\S]*Review[\s\S]*Apply/);
      assert.match((await line.getAttribute('aria-label')) ?? '', /1 file changed \(\+3 −0\) on branch subagents\/docs-writer/);
      const notes = path.join(workspaceDir(), 'RELEASE-NOTES.md');
      assert.equal(existsSync(notes), false, 'the isolated agent wrote into the workspace');
      // Changes to review need the user even with the view in sight.
      await workbench.notification(/docs-writer finished with 1 changed file on subagents\/docs-writer.* to review/).waitFor({ timeout: 10_000 });
      await workbench.page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('run-worktree')}`);

      await writer.locator('.agent-row').first().hover();
      await workbench.byTestId(`action-applyWorktree-${agentId}`).click();
      // The merge may create the file before it writes it: wait for the content.
      await poll(() => existsSync(notes) && /Tally counts words/.test(readFileSync(notes, 'utf8')), { timeoutMs: 15_000, message: 'Apply did not write RELEASE-NOTES.md into the workspace' });
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
      const reason = await explainer.locator('.error-text').innerText();
      assert.match(reason, /rejected the request \(400\): model: [\w.-]+ is not available/);
      assert.match(reason, /\(key \[redacted\]\)/, 'the server echoed the key; the view shows it redacted');
      await workbench.page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('run-failed')}`);
    }),
  );

  it('tells about a run that ends out of sight, with its answer, and Show Result selects it with the answer unfolded', { timeout: 90_000 }, () =>
    withDiagnostics('out of sight', subject, async () => {
      const { workbench } = live();
      await workbench.runCommand('Subagents: Run Agent…', { opensQuickInput: true });
      await workbench.pick('Subagents: Run Agent', 'code-reviewer', { opensQuickInput: true });
      await workbench.answer('Subagents: Run code-reviewer', 'Review the last change');
      const reviewer = workbench.webview().locator('li[data-agent-name="code-reviewer"]').first();
      await reviewer.waitFor({ timeout: 30_000 });
      // Active runs come first.
      const firstRun = workbench.byTestId('runs-list').locator(':scope > ul').first();
      assert.equal(await firstRun.locator('li[data-agent-name]').first().getAttribute('data-agent-name'), 'code-reviewer');
      await workbench.activityBarItem('Explorer').click({ force: true });
      // Out of sight for the extension too: the view's document goes when it is hidden.
      await workbench.byTestId('runs-view-root').waitFor({ state: 'detached', timeout: 15_000 }).catch(() => undefined);
      await workbench.page.waitForTimeout(500);
      finishReview();
      const notice = workbench.notification('code-reviewer finished: Looks good to me.');
      await notice.waitFor({ timeout: 30_000 });
      await notice.getByRole('button', { name: 'Show Result' }).click();
      const selected = workbench.webview().locator('li.selected[data-agent-name="code-reviewer"]');
      await selected.waitFor({ timeout: 15_000 });
      const id = (await selected.getAttribute('data-agent-id'))!;
      assert.equal(await workbench.byTestId(`result-${id}`).innerText(), 'Looks good to me.');
    }),
  );

  it('clears finished runs from the view, and brings them back', { timeout: 60_000 }, () =>
    withDiagnostics('clear finished', subject, async () => {
      const { workbench } = live();
      await workbench.runCommand('Subagents: Clear Finished Runs');
      await workbench.byTestId('runs-empty').waitFor({ timeout: 10_000 });
      assert.match(await workbench.byTestId('runs-cleared').innerText(), /\d+ finished runs? cleared from view/);
      await workbench.byTestId('runs-show-cleared').click();
      await workbench.webview().locator('li[data-agent-name="tech-lead"]').first().waitFor({ timeout: 10_000 });
    }),
  );

  it('looks native in light, dark and high-contrast themes, agent colours following the theme', { timeout: 120_000 }, () =>
    withDiagnostics('themes', subject, async () => {
      const { workbench } = live();
      // The Agents view shows tech-lead (color: purple) beside the Runs view in each picture.
      await workbench.runCommand('Subagents: Filter Agents…', { opensQuickInput: true });
      await workbench.page.locator('.quick-input-widget .quick-input-box input').fill('tech-lead');
      await workbench.page.keyboard.press('Enter');
      /** An element's colour (`prop`) and the theme's charts.purple, both as the browser resolves them. */
      const againstPurple = (target: ReturnType<typeof workbench.page.locator>, prop: 'color' | 'backgroundColor') =>
        target.evaluate((el, p) => {
          // No helper functions in here: the bundler's name-keeping wrapper does not exist in the page.
          const view = el.ownerDocument.defaultView!;
          const probe = el.ownerDocument.createElement('span');
          probe.style.color = 'var(--vscode-charts-purple)';
          // Beside the element: the workbench defines its colour variables below <body>.
          el.parentElement!.append(probe);
          const purple = view.getComputedStyle(probe).color;
          probe.remove();
          return { shown: view.getComputedStyle(el)[p], purple };
        }, prop);
      const purples: string[] = [];
      for (const [theme, file] of [
        ['Light Modern', 'theme-light'],
        ['Dark High Contrast', 'theme-high-contrast'],
        ['Dark Modern', 'theme-dark'],
      ] as const) {
        await workbench.runCommand('Preferences: Color Theme', { opensQuickInput: true });
        const picker = workbench.page.locator('.quick-input-widget');
        await picker.locator('.quick-input-box input').fill(theme);
        const exact = new RegExp(`^\\s*${theme}\\s*$`);
        await picker.locator('.quick-input-list .monaco-list-row').filter({ has: workbench.page.locator('.label-name', { hasText: exact }) }).first().click();
        await picker.waitFor({ state: 'hidden', timeout: 10_000 });
        await workbench.openViewContainer('Subagents');
        await workbench.webview().locator('li[data-agent-name="tech-lead"]').first().waitFor({ timeout: 15_000 });
        const lead = workbench.webview().locator('li[data-agent-name="tech-lead"]').first();
        await lead.focus();
        await workbench.page.mouse.move(700, 450);
        await workbench.page.waitForTimeout(500);
        console.log(`screenshot: ${await workbench.screenshot(file)}`);
        const dot = await againstPurple(lead.locator('.accent').first(), 'backgroundColor');
        assert.equal(dot.shown, dot.purple, `${theme}: tech-lead's dot in the Runs view is the theme's charts.purple`);
        assert.notEqual(dot.shown, 'rgba(0, 0, 0, 0)', `${theme}: the theme defines charts.purple`);
        const icon = workbench.treeRow('Agents', 'tech-lead').first().locator('.custom-view-tree-node-item-icon, .codicon').first();
        const tree = await againstPurple(icon, 'color');
        assert.equal(tree.shown, tree.purple, `${theme}: tech-lead's icon in the Agents view is the theme's charts.purple`);
        purples.push(dot.shown);
      }
      assert.notEqual(purples[0], purples[2], 'the accent follows the theme: light and dark purples differ');
      await clearAgentsFilter();
    }),
  );

  it('never shows or writes the API key, though a server error echoed it', { timeout: 30_000 }, () =>
    withDiagnostics('key leak', subject, async () => {
      const { server, workbench } = live();
      assert.equal(ourOutputChannel(server.userDataDir).includes(API_KEY), false, 'our output channel');
      // Every file VS Code and the extension wrote: logs of every process, settings, workbench and
      // webview state, global storage (run history, transcripts, worktree records).
      const leaks = filesContaining([server.userDataDir, path.join(workspaceDir(), '.vscode')], API_KEY);
      assert.deepEqual(leaks, [], 'files that hold the key');
      // What the views and the page show.
      assert.equal((await workbench.webview().locator('body').innerText()).includes(API_KEY), false, 'the Runs view');
      assert.equal((await workbench.page.locator('body').innerText()).includes(API_KEY), false, 'the workbench');
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
      // The views survive a refresh.
      await workbench.byTestId('runs-view-root').waitFor({ timeout: 10_000 });
      await workbench.treeRow('Agents', 'Project').waitFor({ timeout: 10_000 });
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
