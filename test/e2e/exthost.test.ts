// Runs the extension-host suite (test/exthost/, mocha, real `vscode` API)
// inside code-server and reports each of its tests here, so they count in
// `npm test`.
//
// How it works in code-server: the window becomes an extension development
// host through the page URL (see workbenchUrl in scripts/code-server.mjs),
// so the remote extension host only starts when the browser opens that page.
// It loads the extension from the repository (dist/, as `npm run package`
// built it), runs dist-test/exthost/index.js, which writes its results to
// SUBAGENTS_EXTHOST_RESULTS, and then the workbench closes the window itself.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { buildExthostTests } from '../../scripts/build-exthost-tests.mjs';
import { processGroupAlive, startCodeServer, type RunningCodeServer } from '../../scripts/code-server.mjs';
import { RESULTS_ENV, SUITE_ENV, type ExthostResults, type SuiteName } from '../exthost/results';
import { collectDiagnostics, poll, withNotes, type Subject } from './support/diagnostics';
import { repoRoot } from './support/paths';
import { copySampleWorkspace, ensureCodeServerReady, ensureVsix, type Workspace } from './support/product';
import { launchBrowser, Workbench } from './support/workbench';
import { TEST_SERVER } from '../support/mcp/servers';

/** From opening the page to the results file: ~10 s here; generous for a loaded machine. */
const RESULTS_TIMEOUT = 180_000;

interface Outcome {
  results?: ExthostResults;
  error?: Error;
  /** Whether code-server's process group was gone after stop(). */
  stoppedCleanly?: boolean;
}

/** Writes an agent file (Claude Code format) under `folder`. */
function writeAgent(folder: string, name: string, body: string): void {
  const dir = path.join(folder, '.claude', 'agents');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name}.md`), `---\nname: ${name}\ndescription: ${body}\n---\n${body}\n`);
}

/**
 * Two folders, alpha and beta, in a `.code-workspace`: each has an
 * agent of its own and its own `shared`; beta's folder settings disable
 * `explore` there only.
 */
function multiRootWorkspace(): Workspace {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'subagents-multiroot-'));
  for (const name of ['alpha', 'beta']) {
    const folder = path.join(parent, name);
    writeAgent(folder, `${name}-agent`, `Only in ${name}.`);
    writeAgent(folder, 'shared', `You are ${name}'s shared agent.`);
  }
  mkdirSync(path.join(parent, 'beta', '.vscode'));
  writeFileSync(path.join(parent, 'beta', '.vscode', 'settings.json'), JSON.stringify({ 'subagents.disabledAgents': ['explore'] }));
  const file = path.join(parent, 'two.code-workspace');
  writeFileSync(file, JSON.stringify({ folders: [{ path: 'alpha' }, { path: 'beta' }], settings: {} }, null, 2));
  return { dir: file, commit: () => undefined, remove: () => rmSync(parent, { recursive: true, force: true }) };
}

/**
 * The sample workspace plus an MCP server VS Code itself runs: `tally`, the
 * project's test server (test/support/mcp/testServer.mjs), in the
 * workspace's `.vscode/mcp.json`, and a Copilot-format agent whose tools
 * name it as `tally/*`.
 */
function mcpWorkspace(): Workspace {
  const workspace = copySampleWorkspace();
  const calls = path.join(workspace.dir, '..', 'tally-calls.ndjson');
  mkdirSync(path.join(workspace.dir, '.vscode'), { recursive: true });
  writeFileSync(
    path.join(workspace.dir, '.vscode', 'mcp.json'),
    JSON.stringify({ servers: { tally: { type: 'stdio', command: process.execPath, args: [TEST_SERVER, '--name', 'tally', '--calls', calls] } } }, null, 2),
  );
  mkdirSync(path.join(workspace.dir, '.github', 'agents'), { recursive: true });
  writeFileSync(
    path.join(workspace.dir, '.github', 'agents', 'counter.agent.md'),
    "---\ndescription: Counts things with the tally server.\ntools: ['read', 'tally/*']\n---\nYou count things. [agent:counter]\n",
  );
  workspace.commit('an MCP server in .vscode/mcp.json, and an agent that uses it');
  return workspace;
}

async function runSuiteInCodeServer(suite: SuiteName): Promise<Outcome> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'subagents-exthost-'));
  const resultsFile = path.join(tmp, 'results.json');
  const workspace = suite === 'multiRoot' ? multiRootWorkspace() : suite === 'mcp' ? mcpWorkspace() : copySampleWorkspace();
  const subject: Subject = {};
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  const outcome: Outcome = {};
  try {
    ensureCodeServerReady();
    ensureVsix(); // the development host loads dist/ as packaging built it
    const { index } = await buildExthostTests();
    server = subject.server = await startCodeServer({
      workspace: workspace.dir,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: index,
      // Whatever the shell running the tests holds, the suite's requests go where its tests point them.
      env: { [RESULTS_ENV]: resultsFile, [SUITE_ENV]: suite, ANTHROPIC_BASE_URL: '', ANTHROPIC_API_KEY: '' },
      trust: true,
    });
    browser = await launchBrowser();
    const workbench = (subject.workbench = await Workbench.open(browser, server.folderUrl));
    let closedAt: number | undefined;
    workbench.page.on('close', () => (closedAt = Date.now()));
    await poll(
      () => {
        if (existsSync(resultsFile)) return true;
        // The window closes itself once the runner returns; a close without
        // results means the runner never got to write them.
        if (closedAt && Date.now() - closedAt > 5000) throw new Error('the workbench closed without writing test results');
        return false;
      },
      { timeoutMs: RESULTS_TIMEOUT, intervalMs: 500, message: 'the extension-host suite wrote no results' },
    );
    outcome.results = JSON.parse(readFileSync(resultsFile, 'utf8')) as ExthostResults;
  } catch (e) {
    const notes = await collectDiagnostics(`exthost ${suite}`, subject).catch((d: unknown) => `diagnostics failed: ${String(d)}`);
    outcome.error = withNotes(e, notes);
  } finally {
    await browser?.close().catch(() => undefined);
    if (server) {
      await server.stop();
      outcome.stoppedCleanly = !processGroupAlive(server.pid);
    }
    workspace.remove();
    rmSync(tmp, { recursive: true, force: true });
  }
  return outcome;
}

for (const [suite, title] of [
  ['suite', 'extension-host suite inside code-server'],
  ['multiRoot', 'extension-host suite in a two-folder workspace inside code-server'],
  ['mcp', "extension-host suite with an MCP server in the workspace's .vscode/mcp.json inside code-server"],
] as const) describe(title, async () => {
  const outcome = await runSuiteInCodeServer(suite);

  it('runs to the end and reports its results', () => {
    if (outcome.error) throw outcome.error;
    const results = outcome.results!;
    assert.equal(results.error, undefined, `the mocha runner failed:\n${results.error}`);
    assert.ok(results.tests.length > 0, 'the suite reported no tests');
    assert.equal(outcome.stoppedCleanly, true, 'code-server left processes behind');
    console.log(`VS Code ${results.vscodeVersion}: ${results.passed} passed, ${results.failed} failed in ${results.durationMs} ms`);
  });

  for (const test of outcome.results?.tests ?? []) {
    it(test.title, { skip: test.state === 'pending' }, () => {
      if (test.state === 'failed') throw new Error(`failed in the extension host:\n${test.error}`);
    });
  }
});
