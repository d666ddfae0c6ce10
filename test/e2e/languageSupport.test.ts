// Language support for agent files in real VS Code (code-server + Chromium),
// from the packaged .vsix: a broken agent file shows our diagnostic in the
// Problems view, the quick fix repairs it, nothing is listed twice although
// VS Code checks `.claude/agents` files too, and completion offers this
// runtime's tool names.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { poll, withDiagnostics } from './support/diagnostics';
import { codeServerSuite } from './support/suite';
import type { Workbench } from './support/workbench';

const BROKEN = [
  '---',
  'name: broken-tools',
  'description: Has a typo in its tools.',
  'tools: Read, Grpe',
  'permissionMode: yolo',
  '---',
  'You check things.',
  '',
].join('\n');

describe('language support for agent files in code-server', () => {
  const brokenFile = (dir: string) => path.join(dir, '.claude/agents/broken-tools.md');
  const { subject, live: session } = codeServerSuite({ label: 'language', prepare: (workspace) => writeFileSync(brokenFile(workspace.dir), BROKEN) });
  const live = () => session().workbench;

  /** The rows of the Problems view, as text. */
  const problemRows = async (wb: Workbench) => (await wb.page.locator('.markers-panel .monaco-list-row').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());

  async function openFile(wb: Workbench, relPath: string): Promise<void> {
    await wb.page.locator('.monaco-workbench').click({ position: { x: 700, y: 450 }, force: true }).catch(() => undefined);
    await wb.page.keyboard.press('Control+P');
    const input = wb.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    const row = wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: path.basename(relPath) }).first();
    // Right after start-up the file search may still be indexing the workspace: type the path again until it is found.
    await poll(
      async () => {
        await input.fill('');
        await input.fill(relPath);
        return row.waitFor({ timeout: 5000 }).then(() => true, () => false);
      },
      { timeoutMs: 90_000, message: `Quick Open never found ${relPath}` },
    );
    await row.click();
    await wb.page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'broken-tools' }).first().waitFor({ timeout: 15_000 });
  }

  async function goTo(wb: Workbench, line: number, column: number): Promise<void> {
    await wb.page.keyboard.press('Control+G');
    const input = wb.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(`:${line}:${column}`);
    await wb.page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: 10_000 });
  }

  it('shows our diagnostic in the Problems view, once, beside VS Code\'s own', { timeout: 120_000 }, () =>
    withDiagnostics('language problems', subject, async () => {
      const wb = live();
      await openFile(wb, '.claude/agents/broken-tools.md');
      await wb.runCommand('View: Focus Problems (Errors, Warnings, Infos)');
      const rows = await poll(
        async () => {
          const r = await problemRows(wb);
          if (!r.some((x) => x.includes('Unknown tool "Grpe"')) || !r.some((x) => x.includes("'yolo'"))) return null;
          // VS Code's check may report after ours; ours at the same spot leaves at that change, a moment later.
          assert.equal(r.filter((x) => /yolo/.test(x)).length, 1, `the permissionMode problem is listed twice:\n${r.join('\n')}`);
          return r;
        },
        { timeoutMs: 60_000, message: 'the Problems view never listed our unknown-tool warning and VS Code\'s permissionMode warning, once each' },
      );
      const ours = rows.filter((r) => r.includes('Unknown tool "Grpe"'));
      assert.equal(ours.length, 1, rows.join('\n'));
      assert.match(ours[0]!, /Did you mean "Grep"\?.*Subagents.*\[Ln 4, Col 14\]/);
      // VS Code reports the bad permissionMode itself; ours would say the same at the same spot.
      assert.deepEqual(rows.filter((r) => /yolo/.test(r)).length, 1, rows.join('\n'));
      assert.equal(new Set(rows).size, rows.length, `a row is listed twice:\n${rows.join('\n')}`);
      await wb.page.mouse.move(700, 200);
      console.log(`screenshot: ${await wb.screenshot('language-problems')}`);
    }),
  );

  it('repairs the file with the quick fix', { timeout: 120_000 }, () =>
    withDiagnostics('language quick fix', subject, async () => {
      const wb = live();
      await wb.page.locator('.editor-instance .monaco-editor .view-lines').first().click();
      await goTo(wb, 4, 15);
      const fix = wb.page.locator('.action-widget .monaco-list-row', { hasText: 'Change to "Grep"' }).first();
      // Ctrl+. pressed before the code actions at the cursor are known opens nothing; ask again until it does.
      await poll(
        async () => {
          await wb.page.keyboard.press('Control+.');
          return fix.waitFor({ timeout: 3000 }).then(() => true, async () => {
            await wb.page.keyboard.press('Escape');
            return false;
          });
        },
        { timeoutMs: 45_000, message: 'the quick fix "Change to \"Grep\"" was never offered' },
      );
      console.log(`screenshot: ${await wb.screenshot('language-quick-fix')}`);
      await fix.click();
      await wb.page.keyboard.press('Control+S');
      await poll(() => readFileSync(brokenFile(session().workspace.dir), 'utf8').includes('tools: Read, Grep\n'), { timeoutMs: 15_000, message: 'the fixed file was not saved' });
      await poll(async () => !(await problemRows(wb)).some((r) => r.includes('Grpe')), { timeoutMs: 30_000, message: 'the unknown-tool warning stayed after the fix' });
    }),
  );

  it('completes this runtime\'s tool names', { timeout: 120_000 }, () =>
    withDiagnostics('language completion', subject, async () => {
      const wb = live();
      await goTo(wb, 4, 18);
      await wb.page.keyboard.type(', ');
      const widget = wb.page.locator('.suggest-widget');
      const rows = widget.locator('.monaco-list-row');
      // The typed ", " opens our list alone (VS Code's own provider does not trigger on it); Ctrl+Space asks every provider.
      await rows.filter({ hasText: 'MultiEdit' }).first().waitFor({ timeout: 30_000 });
      await wb.page.keyboard.press('Escape');
      await widget.waitFor({ state: 'hidden', timeout: 10_000 });
      await wb.page.keyboard.press('Control+Space');
      await rows.filter({ hasText: 'AskUserQuestion' }).first().waitFor({ timeout: 30_000 });
      // VS Code offers Claude's tool names here too; each name is listed once (in the rows shown: the
      // extension-host suite, test/exthost/suite/languageSupport.test.ts, checks the whole merged list).
      const labels = await widget.locator('.monaco-list-row .label-name').allInnerTexts();
      assert.ok(labels.includes('Bash') && labels.includes('Edit'), labels.join());
      assert.equal(new Set(labels).size, labels.length, `a completion is listed twice: ${labels.join(', ')}`);
      await wb.page.mouse.move(700, 450);
      console.log(`screenshot: ${await wb.screenshot('language-completion')}`);
      // MultiEdit is this runtime's; VS Code's own list for Claude files does not have it.
      await wb.page.keyboard.type('Mu');
      await rows.filter({ hasText: 'MultiEdit' }).first().waitFor({ timeout: 15_000 });
      assert.equal(await rows.filter({ hasText: 'MultiEdit' }).count(), 1);
      await wb.page.keyboard.press('Escape');
    }),
  );
});
