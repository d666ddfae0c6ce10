// Runs outlive the window. In real VS Code (code-server + Chromium), against
// the scripted model server: a run started from the command palette waits
// for approval of a shell command; the window is reloaded (Developer: Reload
// Window), or its extension host is killed by a signal. The same run is shown
// waiting with its approval in the Runs view again (and asked about in a
// notification again), and answering it lets the agent finish with the
// command's output: the agent host ran it all along. And when the agent host
// itself dies (killed by a signal), the run it held reads, in the past tense,
// as interrupted (here and after a reload), and nothing asks about it any more.
// That one comes last on purpose: by then the extension host that started the
// agent host is gone, so the agent host's parent is whatever adopts orphans,
// which may never reap it (a killed host then lingers as a zombie).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { hostPaths } from '../../src/core/host/paths';
import { type Script } from '../support/scriptedServer';
import { poll, withDiagnostics } from './support/diagnostics';
import { exthostLogEntries, ourOutputChannel } from './support/logs';
import { descendantsOf, livingProcesses } from './support/processes';
import { codeServerSuite, claudeAgents } from './support/suite';

const SHELL = '---\nname: shell-runner\ndescription: Runs the one command it is given.\ntools: Bash\n---\nYou run one command. [e2e:shell]\n';

/** Runs `echo survived-<word>` for the task's last word, then reports what it printed. */
const script: Script = (req) => {
  if (!req.system.includes('[e2e:shell]')) return { text: 'Nothing to do.' };
  if (req.turn === 0) return { text: 'Running it.', toolUses: [{ name: 'Bash', input: { command: `echo survived-${req.lastUserText.split(/\s+/).at(-1)}` } }] };
  const output = [...req.toolResults.values()][0]?.content.trim() ?? '';
  return { text: `The command printed: ${output}` };
};

describe('runs outlive the window', () => {
  const { subject, live } = codeServerSuite({
    label: 'reload',
    files: claudeAgents({ 'shell-runner': SHELL }),
    model: script,
    async ready(workbench) {
      // The extension is there once the Agents view lists the agent.
      await workbench.openViewContainer('Subagents');
      await workbench.treeRow('Agents', 'shell-runner').waitFor({ timeout: 120_000 });
    },
  });

  /** Starts shell-runner from the palette and waits until it asks; returns its agent id. */
  async function startAndWait(word: string): Promise<string> {
    const { workbench } = live();
    await workbench.runCommand('Subagents: Run Agent…', { opensQuickInput: true });
    await workbench.pick('Subagents: Run Agent', 'shell-runner', { opensQuickInput: true });
    await workbench.answer('Subagents: Run shell-runner', `echo the word ${word}`);
    await workbench.openViewContainer('Subagents');
    const waiting = workbench.webview().locator('li[data-agent-name="shell-runner"][data-status="waiting"]').first();
    await waiting.waitFor({ timeout: 60_000 });
    const agentId = (await waiting.getAttribute('data-agent-id'))!;
    assert.match(await workbench.byTestId(`approval-${agentId}`).innerText(), new RegExp(`Wants to run a shell command:\\s*echo survived-${word}`));
    return agentId;
  }

  /** After the window came back: the same run waits with its question (Runs view and notification); Allow lets it finish with the command's output. */
  async function stillThereAndAnswered(agentId: string, word: string, activations: number): Promise<void> {
    const { server, workbench } = live();
    await poll(() => ourOutputChannel(server.userDataDir).split('Subagents activated').length - 1 > activations, { timeoutMs: 120_000, message: 'the extension did not activate again' });
    await workbench.openViewContainer('Subagents');
    const agent = workbench.webview().locator(`li[data-agent-id="${agentId}"]`).first();
    await agent.and(workbench.webview().locator('[data-status="waiting"]')).waitFor({ timeout: 30_000 });
    await workbench.byTestId(`approval-${agentId}`).waitFor({ timeout: 15_000 });
    await workbench.notification(`shell-runner wants to run a shell command: echo survived-${word}`).waitFor({ timeout: 30_000 });
    await workbench.page.mouse.move(700, 450);
    console.log(`screenshot: ${await workbench.screenshot(`reload-${word}-waiting`)}`);
    await workbench.byTestId(`approve-allow-${agentId}`).click();
    await agent.and(workbench.webview().locator('[data-status="completed"]')).waitFor({ timeout: 60_000 });
    await workbench.byTestId(`result-toggle-${agentId}`).click();
    assert.match(await workbench.byTestId(`result-${agentId}`).innerText(), new RegExp(`The command printed: survived-${word}`));
  }

  it('Developer: Reload Window: the run goes on, its approval comes back, and answering it finishes the run', { timeout: 300_000 }, () =>
    withDiagnostics('reload window', subject, async () => {
      const { server, workbench } = live();
      const agentId = await startAndWait('reload');
      const activations = ourOutputChannel(server.userDataDir).split('Subagents activated').length - 1;
      await workbench.runCommand('Developer: Reload Window');
      // The reloaded workbench opens the Subagents container it showed; the extension activates anew.
      await workbench.page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: 60_000 });
      await stillThereAndAnswered(agentId, 'reload', activations);
    }),
  );

  it('the extension host killed by a signal: the run goes on, its approval comes back, and answering it finishes the run', { timeout: 300_000 }, () =>
    withDiagnostics('kill extension host', subject, async () => {
      const { server, page } = live();
      const agentId = await startAndWait('killed');
      const activations = ourOutputChannel(server.userDataDir).split('Subagents activated').length - 1;
      // The extension host the window runs now: the newest "Extension host with pid N started" of its log.
      const pids = [...exthostLogEntries(server.userDataDir).map((e) => e.text).join('\n').matchAll(/Extension host with pid (\d+) started/g)].map((m) => Number(m[1]));
      const pid = pids.at(-1);
      assert.ok(pid && descendantsOf(server.pid).some((p) => p.pid === pid), `the extension host's pid (${pid}) is not one of code-server's processes`);
      process.kill(pid, 'SIGKILL');
      await poll(() => !livingProcesses().some((p) => p.pid === pid), { timeoutMs: 15_000, message: 'the extension host outlived SIGKILL' });
      // VS Code offers to restart it; what a user clicks.
      const restart = page.locator('.notifications-toasts .notification-toast').getByRole('button', { name: /Restart/ }).first();
      await poll(async () => (await restart.isVisible().catch(() => false)) || ourOutputChannel(server.userDataDir).split('Subagents activated').length - 1 > activations, {
        timeoutMs: 60_000,
        message: 'VS Code neither restarted the extension host nor offered to',
      });
      if (await restart.isVisible().catch(() => false)) await restart.click();
      await stillThereAndAnswered(agentId, 'killed', activations);
    }),
  );

  it('the agent host killed by a signal: its run reads as interrupted, in the past tense, before and after a reload; nothing asks about it', { timeout: 300_000 }, () =>
    withDiagnostics('kill agent host', subject, async () => {
      const { server, workbench, page } = live();
      const agentId = await startAndWait('hostdeath');
      const question = workbench.notification('shell-runner wants to run a shell command: echo survived-hostdeath');
      await question.waitFor({ timeout: 30_000 });
      assert.ok(server.runtimeDir, 'the session has an agent host folder of its own');
      const info = hostPaths({ XDG_RUNTIME_DIR: server.runtimeDir }).info;
      const pid = (JSON.parse(readFileSync(info, 'utf8')) as { pid: number }).pid;
      assert.ok(livingProcesses().some((p) => p.pid === pid), `the agent host (pid ${pid}) runs`);
      process.kill(pid, 'SIGKILL');
      await poll(() => !livingProcesses().some((p) => p.pid === pid), { timeoutMs: 15_000, message: 'the agent host outlived SIGKILL' });

      // The window starts a new host, which finds the run's process gone: the row says what happened, in the past tense.
      const agent = workbench.webview().locator(`li[data-agent-id="${agentId}"]`).first();
      const readsInterrupted = async (when: string) => {
        await agent.and(workbench.webview().locator('[data-status="interrupted"]')).waitFor({ timeout: 60_000 });
        assert.equal((await workbench.byTestId(`state-${agentId}`).innerText()).trim(), 'interrupted', `${when}: the state word`);
        const error = (await workbench.byTestId(`error-${agentId}`).innerText()).trim();
        assert.equal(error, 'The process running this agent stopped before it finished.', `${when}: the reason`);
        const hover = (await agent.locator(':scope > .row > .line').getAttribute('title')) ?? '';
        assert.match(hover, /shell-runner — interrupted/, `${when}: the hover`);
        const row = `${await agent.locator(':scope > .row').innerText()}\n${hover}`;
        // Nothing on the row speaks as if the agent were still at work or the window were going away.
        assert.doesNotMatch(row, /\b(is|are) (closing|running|stopping|waiting)\b|\bwaits for\b|needs approval/i, `${when}: ${row}`);
        assert.equal(await workbench.byTestId(`approval-${agentId}`).count(), 0, `${when}: no approval box is left`);
        assert.equal(await workbench.byTestId(`action-stop-${agentId}`).count(), 0, `${when}: nothing to stop`);
      };
      await readsInterrupted('after the host died');
      // Its question is retired: the notification is gone.
      await question.waitFor({ state: 'hidden', timeout: 30_000 });
      await page.mouse.move(700, 450);
      await workbench.screenshotsInBothThemes('interrupted-after-host-death');

      const activations = ourOutputChannel(server.userDataDir).split('Subagents activated').length - 1;
      await workbench.runCommand('Developer: Reload Window');
      await workbench.page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: 60_000 });
      await poll(() => ourOutputChannel(server.userDataDir).split('Subagents activated').length - 1 > activations, { timeoutMs: 120_000, message: 'the extension did not activate again' });
      await workbench.openViewContainer('Subagents');
      await readsInterrupted('after a reload');
    }),
  );
});
