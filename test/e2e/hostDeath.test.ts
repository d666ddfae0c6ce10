// When the agent host itself dies (killed by a signal) while a run waits for
// approval, in real VS Code (code-server + Chromium) against the scripted model
// server: the window starts a new host, and the run reads, in the past tense,
// as interrupted, with its reason (in the Runs view and its hover, and again
// after a reload), with nothing left to answer or stop.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hostPaths } from '../../src/core/host/paths';
import { startScriptedServer, type Script, type ScriptedServer } from '../support/scriptedServer';
import { poll, withDiagnostics, type Subject } from './support/diagnostics';
import { ourOutputChannel } from './support/logs';
import { livingProcesses } from './support/processes';
import { copySampleWorkspace, ensureCodeServerReady, ensureVsix, type Workspace } from './support/product';
import { closeSession, openSession, scriptedModelSession, type Session } from './support/session';

const SHELL = '---\nname: shell-runner\ndescription: Runs the one command it is given.\ntools: Bash\n---\nYou run one command. [e2e:shell]\n';

/** Runs `echo survived-<word>` for the task's last word, then reports what it printed. */
const script: Script = (req) => {
  if (!req.system.includes('[e2e:shell]')) return { text: 'Nothing to do.' };
  if (req.turn === 0) return { text: 'Running it.', toolUses: [{ name: 'Bash', input: { command: `echo survived-${req.lastUserText.split(/\s+/).at(-1)}` } }] };
  const output = [...req.toolResults.values()][0]?.content.trim() ?? '';
  return { text: `The command printed: ${output}` };
};

describe('a run whose agent host died', () => {
  let workspace: Workspace | undefined;
  let model: ScriptedServer | undefined;
  const session: Partial<Session> = {};
  const subject: Subject = {};

  const live = () => {
    const { server, workbench } = session;
    assert.ok(server && workbench, 'the workbench did not start (see the failure of the `before` hook)');
    return { server, workbench, page: workbench.page };
  };

  before(
    () =>
      withDiagnostics('host death start', subject, async () => {
        ensureCodeServerReady();
        const vsixPath = ensureVsix();
        workspace = copySampleWorkspace();
        const dir = path.join(workspace.dir, '.claude/agents');
        mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, 'shell-runner.md'), SHELL);
        model = await startScriptedServer(script);
        const { workbench } = await openSession(scriptedModelSession(workspace.dir, vsixPath, model.url, 'host-death'), subject, session);
        // The extension is there once the Agents view lists the agent.
        await workbench.openViewContainer('Subagents');
        await workbench.treeRow('Agents', 'shell-runner').waitFor({ timeout: 120_000 });
      }),
    { timeout: 6 * 60_000 },
  );

  after(async () => {
    await closeSession(session);
    await model?.close();
    workspace?.remove();
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
