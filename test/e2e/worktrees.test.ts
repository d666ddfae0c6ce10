// The Agents view's Worktrees section in real VS Code (code-server): a kept
// worktree and pooled ones, made beforehand in the extension's own storage by
// the worktree manager it uses, are listed with their disk use; the section's
// Clean Up button empties the pool and leaves the kept work. The Runs view's
// notice of kept worktrees names the kept branch, and goes (with the palette's
// Discard) once that worktree is discarded.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WorktreeManager } from '../../src/core/isolation';
import { poll, withDiagnostics, type Subject } from './support/diagnostics';
import { copySampleWorkspace, ensureCodeServerReady, ensureVsix, type Workspace } from './support/product';
import { closeSession, openSession, type Session } from './support/session';

describe('the Worktrees section of the Agents view', () => {
  let workspace: Workspace | undefined;
  const parts: Partial<Session> = {};
  const subject: Subject = {};
  let manager: WorktreeManager | undefined;
  let userData = '';

  before(
    () =>
      withDiagnostics('worktrees-start', subject, async () => {
        ensureCodeServerReady();
        const vsixPath = ensureVsix();
        workspace = copySampleWorkspace();
        userData = path.join(path.dirname(workspace.dir), 'user-data');
        // Where the extension keeps worktrees: the user's data folder, shared with the CLI.
        const dataHome = path.join(path.dirname(workspace.dir), 'data');
        const storage = path.join(dataHome, 'subagents', 'worktrees');
        mkdirSync(storage, { recursive: true });
        // What isolated runs leave: one worktree kept with a change, two handed back to the pool.
        manager = new WorktreeManager({ stateDir: path.join(storage, 'state'), worktreesRoot: path.join(storage, 'trees'), poolSize: () => 4 });
        const kept = await manager.create({ cwd: workspace.dir, agentName: 'docs-writer', agentId: 'e2e-kept' });
        writeFileSync(path.join(kept.path, 'RELEASE-NOTES.md'), '# notes by the docs writer\n');
        await manager.finish('e2e-kept');
        // At the same time, or the second would reuse the first.
        const ids = ['e2e-pooled-1', 'e2e-pooled-2'];
        for (const id of ids) await manager.create({ cwd: workspace.dir, agentName: 'explorer', agentId: id });
        for (const id of ids) await manager.finish(id);
        await openSession({ workspace: workspace.dir, vsixPath, trust: true, userDataDir: userData, dataHome }, subject, parts);
      }),
    { timeout: 6 * 60_000 },
  );

  after(async () => {
    await closeSession(parts);
    await manager?.emptyPool().catch(() => 0);
    await manager?.maintain({ wait: true }).catch(() => null);
    manager?.dispose();
    workspace?.remove();
  });

  it('lists the kept and the pooled worktrees with their disk use; Clean Up empties the pool', { timeout: 120_000 }, () =>
    withDiagnostics('worktrees-section', subject, async () => {
      const workbench = parts.workbench!;
      await workbench.openViewContainer('Subagents');
      const root = workbench.treeRow('Agents', 'Worktrees');
      await root.waitFor({ timeout: 30_000 });
      // The agents' groups fold away, so the section's rows are in sight (the tree renders only those).
      await workbench.pane('Agents').locator('.pane-header').hover();
      await workbench.pane('Agents').locator('.pane-header .action-label[aria-label="Collapse All"]').click();
      assert.match(await root.locator('.label-description').innerText(), /^1 kept · 2 pooled · about [\d.]+ (KB|MB)$/);
      await root.click();
      await poll(async () => (await workbench.treeRows('Agents')).some((r) => r.label.startsWith('Pooled')), { timeoutMs: 10_000, message: 'the section did not open' });
      const all = await workbench.treeRows('Agents');
      // The section's children: the rows below it, deeper than it (Search Order, its sibling, may follow when the view has room).
      const at = all.findIndex((r) => r.label === 'Worktrees');
      const after = all.slice(at + 1);
      const end = after.findIndex((r) => r.level <= all[at]!.level);
      const rows = end === -1 ? after : after.slice(0, end);
      // The pool keeps maxConcurrency (4) here: no fan-out wider than that ran in this repository.
      assert.deepEqual(rows.map((r) => r.label), ['docs-writer', 'Pooled: 2 of 4']);
      assert.match(rows[0]!.description, /^1 file, \+1 −0 · subagents\/docs-writer-\w+ · about /);
      assert.match(rows[1]!.description, /^[\d.]+ (KB|MB) of 5\.0 GB · /, 'the pool shows its disk budget');
      await workbench.screenshotsAtWidths('worktrees-section');

      // The section's inline button: Clean Up Worktrees. The pool empties (and the section says so)
      // while it offers the kept worktree; that pick is dismissed.
      await root.hover();
      await root.locator('.action-label[aria-label="Clean Up Worktrees"]').click();
      const pick = workbench.page.locator('.quick-input-widget', { hasText: 'Subagents: Clean Up Worktrees' });
      await pick.waitFor({ timeout: 30_000 });
      await poll(async () => /^1 kept · about /.test(await root.locator('.label-description').innerText().catch(() => '')), {
        timeoutMs: 20_000,
        message: 'the section did not show the emptied pool',
      });
      assert.deepEqual(await manager!.poolStatus(), []);
      await workbench.screenshot('worktrees-section-cleaned');
      await workbench.page.keyboard.press('Escape');
      await pick.waitFor({ state: 'hidden', timeout: 10_000 });
      assert.equal(manager!.get('e2e-kept')?.state, 'finished', 'the kept work is still there');
    }),
  );

  it('the Runs view says a worktree with changes is kept, naming its branch, and retires the notice once it is discarded', { timeout: 120_000 }, () =>
    withDiagnostics('kept-notice', subject, async () => {
      const workbench = parts.workbench!;
      const branch = manager!.get('e2e-kept')!.branch;
      await workbench.openViewContainer('Subagents');
      const notice = workbench.byTestId('notice-kept-worktrees');
      await notice.waitFor({ timeout: 30_000 });
      assert.equal((await notice.locator('.notice-text').innerText()).trim(), '1 worktree with changes kept');
      const tooltip = (await notice.locator('.notice-text').getAttribute('title')) ?? '';
      assert.ok(tooltip.includes(`docs-writer (${branch})`), `the tooltip names the kept branch: ${tooltip}`);
      assert.doesNotMatch(tooltip, /interrupted/, 'the worktree was finished, not interrupted');
      await workbench.screenshotsAtWidths('kept-notice');

      // Discard it from the palette, as a user who read the notice would, and confirm.
      await workbench.runCommand('Subagents: Discard Changes…');
      const dialog = workbench.page.locator('.monaco-dialog-box', { hasText: `Discard docs-writer's changes` });
      await dialog.waitFor({ timeout: 30_000 });
      assert.ok((await dialog.innerText()).includes(branch), 'the confirmation names the branch');
      await dialog.getByRole('button', { name: 'Discard', exact: true }).click();
      await workbench.notification(`Discarded docs-writer's worktree and branch ${branch}.`).waitFor({ timeout: 30_000 });
      assert.equal(execFileSync('git', ['branch', '--list', branch], { cwd: workspace!.dir, encoding: 'utf8' }).trim(), '', 'the branch is gone');

      // The notice goes; nothing left in the view names the discarded branch; Discard leaves the palette.
      await notice.waitFor({ state: 'detached', timeout: 30_000 });
      assert.ok(!(await workbench.webview().locator('body').innerHTML()).includes(branch), 'the Runs view still names the discarded branch');
      await poll(async () => !(await workbench.paletteEntries('Subagents:')).includes('Subagents: Discard Changes…'), {
        timeoutMs: 20_000,
        message: 'the palette still offers Discard Changes with nothing to discard',
      });
      await workbench.screenshot('kept-notice-retired');
    }),
  );
});
