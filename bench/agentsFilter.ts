/**
 * The Agents view's filter at real scale, in real VS Code: the sample
 * workspace with 160 generated agents in every format beside its own (as the
 * end-to-end test has it), the packaged extension in code-server, driven
 * through Chromium. Each round types the name of an agent far down the list
 * (not rendered before) into **Subagents: Filter Agents…** and measures the
 * time until its row shows, then clears the filter. The end-to-end test
 * checks that the row shows; how fast is measured here (a time limit inside
 * a functional test fails on a busy machine). Target: under a second.
 *
 * Run: node_modules/node/bin/node --import tsx bench/agentsFilter.ts   (after `npm run package`, or it packages first)
 */
import os from 'node:os';
import path from 'node:path';
import { startCodeServer } from '../scripts/code-server.mjs';
import { copySampleWorkspace, ensureCodeServerReady, ensureVsix } from '../test/e2e/support/product';
import { launchBrowser, Workbench } from '../test/e2e/support/workbench';
import { writeGeneratedAgents } from '../test/support/generatedAgents';
import { median, writeResults } from './lib/results';

const ROUNDS = 9;

async function main(): Promise<void> {
  ensureCodeServerReady();
  const vsixPath = ensureVsix();
  const workspace = copySampleWorkspace();
  const generated = writeGeneratedAgents(workspace.dir);
  workspace.commit('generated agents');
  const server = await startCodeServer({ workspace: workspace.dir, vsixPath, trust: true, env: { ANTHROPIC_API_KEY: 'sk-ant-bench-not-a-key' } });
  const browser = await launchBrowser();
  try {
    const workbench = await Workbench.open(browser, server.folderUrl);
    await workbench.ready();
    await workbench.openViewContainer('Subagents');
    await workbench.pane('Agents').locator('.pane-header').hover();
    await workbench.pane('Agents').locator('.pane-header .action-label[aria-label="Collapse All"]').click();
    const input = workbench.page.locator('.quick-input-widget .quick-input-box input');
    const timings: number[] = [];
    // Agents from the end of the generated list: none is rendered before it is filtered to.
    const targets = generated.agents.slice(-ROUNDS).map((a) => a.expect.name);
    for (const target of targets) {
      await workbench.runCommand('Subagents: Filter Agents…', { opensQuickInput: true });
      await input.waitFor();
      await input.fill(target);
      const typed = performance.now();
      await workbench.treeRow('Agents', target).waitFor({ timeout: 30_000 });
      timings.push(performance.now() - typed);
      await workbench.page.keyboard.press('Escape');
      const header = workbench.pane('Agents').locator('.pane-header');
      await header.hover();
      const clear = header.locator('.action-label[aria-label="Clear Agents Filter"]');
      if (await clear.count()) await clear.click();
      await workbench.treeRow('Agents', target).waitFor({ state: 'detached', timeout: 30_000 }).catch(() => undefined);
    }
    const results = { agents: generated.agents.length, rounds: timings.length, msToShow: { median: median(timings), max: Math.max(...timings), min: Math.min(...timings) }, load: os.loadavg()[0] ?? 0 };
    console.log(`filter to one of ${results.agents}+ agents: its row shows ${results.msToShow.median.toFixed(0)} ms after the name is entered (median of ${results.rounds}; ${results.msToShow.min.toFixed(0)}–${results.msToShow.max.toFixed(0)} ms); load ${results.load.toFixed(2)}`);
    await writeResults(path.basename(import.meta.filename, '.ts'), results);
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
    workspace.remove();
  }
}

void main();
