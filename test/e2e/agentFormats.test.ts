// The formats read by readers of their own, in real VS Code (code-server +
// Chromium) from the packaged .vsix: the Agents view groups a source's
// agents by the tool whose files they came from, the Search Order lists the
// new folders and single files, and Show Resolved Definition opens what an
// agent gets when it runs. Screenshots of each, light and dark, at the
// default side bar width (300 px) and at 250 px.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { poll, withDiagnostics } from './support/diagnostics';
import { codeServerSuite } from './support/suite';

/** One agent file of each later format, written for this test. */
const FILES: Record<string, string> = {
  '.cursor/agents/ui-checker.md': '---\nname: ui-checker\ndescription: Checks UI changes against the design notes.\nmodel: fast\nreadonly: true\n---\nYou compare UI changes with docs/design.md and list what differs.\n',
  '.opencode/agents/release.md':
    '---\ndescription: Prepares a release branch.\nmode: subagent\nmodel: anthropic/claude-sonnet-4-5\npermission:\n  edit: ask\n  bash:\n    "*": ask\n    "git *": allow\n    "npm publish*": deny\n---\nYou prepare the release: changelog, version, tag.\n',
  '.roomodes':
    'customModes:\n  - slug: md-editor\n    name: Markdown Editor\n    roleDefinition: You write and tidy the documentation.\n    whenToUse: For changes to Markdown documentation.\n    groups:\n      - read\n      - - edit\n        - fileRegex: \\.md$\n          description: Markdown files only\n',
  '.qwen/agents/test-writer.md': '---\nname: test-writer\ndescription: Writes failing tests for a bug before the fix.\ntools: [read_file, write_file, run_shell_command]\n---\nYou write the smallest test that fails because of the bug.\n',
  '.kiro/agents/aws-helper.json': `${JSON.stringify({ name: 'aws-helper', description: 'Answers questions about our AWS setup.', prompt: 'You know our AWS setup from infra/.', tools: ['read', 'shell'], allowedTools: ['read'], toolsSettings: { shell: { allowedCommands: ['aws sts get-caller-identity'] } }, model: 'claude-sonnet-4.5' }, null, 2)}\n`,
  '.factory/droids/lint-fixer.md': '---\nname: lint-fixer\ndescription: Fixes lint errors in the files it is given.\ntools: [Read, Edit, Execute]\n---\nYou fix lint errors without changing behaviour.\n',
};

describe('the later formats in the views of code-server', () => {
  const { subject, live: session } = codeServerSuite({ label: 'formats', files: FILES });
  const live = () => session().workbench;

  /** Screenshots at the default side bar width and at 250 px, each in both themes. */
  const atBothWidths = async (name: string, prepare?: () => Promise<void>) => {
    for (const file of await live().screenshotsAtWidths(name, prepare)) console.log(`screenshot: ${file}`);
  };

  it("groups a source's agents by the tool whose files they came from, in search order", { timeout: 180_000 }, () =>
    withDiagnostics('formats grouping', subject, async () => {
      const wb = live();
      await wb.openViewContainer('Subagents');
      // Collapse the Runs view and the Problems node so the Agents view has the room (its rows are rendered only when in view).
      const runsHeader = wb.pane('Runs').locator('.pane-header');
      if ((await runsHeader.getAttribute('aria-expanded')) === 'true') await runsHeader.click();
      const project = wb.treeRow('Agents', 'Project');
      await project.waitFor({ timeout: 60_000 });
      const problems = wb.treeRow('Agents', 'Problems');
      if ((await problems.count()) > 0 && (await problems.getAttribute('aria-expanded')) === 'true') await problems.click();
      if ((await project.getAttribute('aria-expanded')) !== 'true') await project.click();
      const families = ['Cursor', 'Claude Code', 'opencode', 'Roo Code', 'Qwen Code', 'Kiro', 'Factory'];
      await poll(async () => {
        const labels = (await wb.treeRows('Agents')).map((r) => r.label);
        return families.every((f) => labels.includes(f));
      }, { timeoutMs: 60_000, message: 'the Project group never showed the families' });
      const rows = await wb.treeRows('Agents');
      const shown = rows.filter((r) => families.includes(r.label)).map((r) => r.label);
      assert.deepEqual(shown, families, 'the families in their search order');
      // Each family starts unfolded.
      await wb.treeRow('Agents', 'md-editor').waitFor({ timeout: 15_000 });
      await wb.treeRow('Agents', 'aws-helper').waitFor({ timeout: 15_000 });
      await atBothWidths('agents-by-tool');
    }),
  );

  it('lists the new folders and single files in the Search Order', { timeout: 180_000 }, () =>
    withDiagnostics('formats search order', subject, async () => {
      const wb = live();
      const project = wb.treeRow('Agents', 'Project');
      if ((await project.getAttribute('aria-expanded')) === 'true') await project.click();
      const order = wb.treeRow('Agents', 'Search Order');
      await order.waitFor({ timeout: 15_000 });
      if ((await order.getAttribute('aria-expanded')) !== 'true') await order.click();
      await poll(async () => (await wb.treeRows('Agents')).some((r) => `${r.label} ${r.description}`.includes('.roomodes')), { timeoutMs: 15_000, message: 'the Search Order does not list .roomodes' });
      await atBothWidths('agents-search-order');
      await order.click();
    }),
  );

  it('Show Resolved Definition opens what an agent gets: its prompt, tools, rules and model', { timeout: 180_000 }, () =>
    withDiagnostics('formats resolved', subject, async () => {
      const wb = live();
      await wb.runCommand('Subagents: Show Resolved Definition', { opensQuickInput: true });
      await wb.pick('Subagents: Show Resolved Definition', 'release');
      const editor = wb.page.locator('.editor-instance .monaco-editor .view-lines').first();
      await editor.locator('text=Permission rules').first().waitFor({ timeout: 30_000 });
      // The editor renders spaces as no-break spaces.
      const text = (await editor.innerText()).replace(/\u00a0/g, ' ');
      for (const part of ['# release', 'Permission rules', '**allow** — `permission.bash "git *": allow`', '**deny** — `permission.bash "npm publish*": deny`', 'claude-sonnet-4-5', 'Prompt, as sent']) assert.ok(text.includes(part), `the resolved definition shows ${part}`);
      await atBothWidths('resolved-definition');
    }),
  );
});
