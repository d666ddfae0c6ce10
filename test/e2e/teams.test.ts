// A team in real VS Code (code-server + Chromium) against the scripted
// model server: the team file `duo` (a lead, alice and bob) runs by its name
// from the chat; the lead puts two tasks on the list, the second blocked by
// the first, and spawns both members by name; bob's claim is refused and he
// goes idle (the Runs view's team panel says so), alice's message wakes him;
// both complete, each change on its own branch, nothing in the user's tree.
// The team panel shows the roster, the tasks and the messages; the chat ends
// with the task list and per-teammate Review/Apply. Screenshots of the team
// panel in both themes at the default sidebar width (300 px) and at 250 px.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { teamScript, writeTeamProject } from '../support/teamScenario';
import { finishedText, openChat, sendChat } from './support/chatPanel';
import { poll, withDiagnostics } from './support/diagnostics';
import { codeServerSuite } from './support/suite';

describe('agent teams in VS Code', () => {
  let aliceMayStart: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (aliceMayStart = resolve));
  const { subject, live } = codeServerSuite({
    label: 'teams',
    prepare: (workspace) => writeTeamProject(workspace.dir),
    model: teamScript({ aliceMayStart: gate }),
    ready: openChat,
  });

  it('runs duo by its name: blocked claim, idle, woken by a message, two branches; the team panel and the chat show it', { timeout: 240_000 }, () =>
    withDiagnostics('teams run', subject, async () => {
      const { workbench, page } = live();
      // The palette offers the team beside the agents.
      await workbench.runCommand('Subagents: Run Agent…', { opensQuickInput: true });
      const picker = page.locator('.quick-input-widget');
      await picker.locator('.quick-input-box input').fill('duo');
      await picker.locator('.quick-input-list .monaco-list-row', { hasText: 'duo' }).first().waitFor({ timeout: 20_000 });
      assert.match(await picker.locator('.quick-input-list').innerText(), /duo[\s\S]*team · project · lead team-lead-agent · alice, bob/);
      await page.keyboard.press('Escape');

      const response = await sendChat(workbench, '@agent duo Write alpha and beta.');
      await workbench.openViewContainer('Subagents');
      const view = workbench.webview();
      const bob = view.locator('[data-testid="team-member-bob"]');
      await bob.waitFor({ timeout: 60_000 });
      await poll(async () => /\bidle\b/.test(await bob.innerText()), { timeoutMs: 60_000, message: 'the team panel did not show bob idle' });
      assert.match(await bob.innerText(), /blocked/, 'it shows what he said');
      // The board while it works: #2 waits for #1; bob idle, alice not started on hers yet.
      const board = await view.locator('[data-testid="team-tasks"]').innerText();
      assert.match(board, /Pending \(2\)[\s\S]*#2[\s\S]*Write beta\.txt[\s\S]*unowned · waits for #1/);
      console.log(`screenshot: ${await workbench.screenshot('teams-panel-live')}`);
      aliceMayStart();

      const text = await finishedText(response, 120_000);
      assert.match(text, /All tasks are completed: alpha\.txt and beta\.txt are written\./);
      assert.match(text, /Tasks \(2, 2 completed\) — team duo\s*#1 ✓ Write alpha\.txt · alice\s*#2 ✓ Write beta\.txt · bob/);
      for (const link of ['Apply All Teammates', 'Review Changes (alice)', 'Apply (bob)']) assert.ok(text.includes(link), `the chat offers ${link}`);

      // The team panel: roster, tasks, messages.
      const panel = view.locator('.team-panel').first();
      await panel.waitFor({ timeout: 30_000 });
      await poll(async () => /tasks 2\/2/.test(await panel.innerText()), { timeoutMs: 30_000, message: 'the panel did not show both tasks done' });
      const roster = await view.locator('[data-testid="team-roster"]').innerText();
      assert.match(roster, /alice[\s\S]*ended[\s\S]*1 file changed \(\+1 −0\)/);
      assert.match(roster, /bob[\s\S]*ended/);
      const tasks = await view.locator('[data-testid="team-tasks"]').innerText();
      assert.match(tasks, /Completed \(2\)[\s\S]*#1[\s\S]*Write alpha\.txt[\s\S]*alice[\s\S]*#2[\s\S]*Write beta\.txt[\s\S]*bob/);
      const messages = await view.locator('[data-testid="team-messages"]').innerText();
      assert.match(messages, /alice → bob[\s\S]*Task #1 is done: alpha\.txt is written/);

      // Each change on its own branch; nothing in the user's tree.
      const git = (...args: string[]) => execFileSync('git', args, { cwd: live().workspace.dir, encoding: 'utf8' });
      assert.equal(existsSync(path.join(live().workspace.dir, 'alpha.txt')), false);
      assert.equal(git('status', '--porcelain').trim(), '');
      const branches = git('for-each-ref', '--format=%(refname:short)', 'refs/heads/subagents/').trim().split('\n');
      assert.equal(branches.length, 2, branches.join(', '));
      const files = branches.map((b) => git('diff', '--name-only', `${b}~1`, b).trim()).sort();
      assert.deepEqual(files, ['alpha.txt', 'beta.txt']);

      // The Agents view lists the team, under Teams, after the agents (grouped by source, then by tool):
      // the sources folded, so the Teams row is in sight of the tree's virtual list.
      for (const source of ['Project', 'Built-in']) await workbench.treeRow('Agents', source).click();
      const teamsRow = workbench.treeRow('Agents', 'Teams');
      await teamsRow.waitFor({ timeout: 20_000 });
      assert.equal((await teamsRow.locator('.label-description').innerText()).trim(), '1');

      // The Runs view alone, so the whole team panel shows.
      await workbench.pane('Agents').locator('.pane-header').click();
      const shots = await workbench.screenshotsAtWidths('teams-panel', () => panel.scrollIntoViewIfNeeded());
      console.log(`screenshots: ${shots.join(', ')}`);
      await workbench.setSidebarWidth(250);
      await panel.scrollIntoViewIfNeeded();
      // Readable at 250 px: nothing of the panel is cut off sideways, but a long name that shows whole on hover.
      // No named helpers inside: the page has none of the transpiler's.
      const clipped = await panel.evaluate((el) =>
        ([...el.querySelectorAll('*')] as unknown as Array<{ scrollWidth: number; clientWidth: number; title: string; textContent: string | null; className: string }>)
          .filter((n) => n.scrollWidth > n.clientWidth + 1 && (globalThis as unknown as { getComputedStyle(n: unknown): { overflowX: string } }).getComputedStyle(n).overflowX !== 'visible' && n.title !== n.textContent)
          .map((n) => n.className),
      );
      assert.deepEqual(clipped, [], `cut off at 250 px: ${clipped.join(', ')}`);
    }),
  );
});
