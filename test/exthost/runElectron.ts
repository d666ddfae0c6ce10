// The extension-host suite in desktop VS Code (Electron), for machines that
// can download VS Code: @vscode/test-electron fetches it into .vscode-test/
// and runs dist-test/exthost/index.js in its extension host. `npm test` does
// not use this (no downloads there); it runs the same suite inside
// code-server instead (test/e2e/exthost.test.ts).
//
//   node scripts/build.mjs && node --import tsx test/exthost/runElectron.ts
//   VSCODE_VERSION=1.139.1 node --import tsx test/exthost/runElectron.ts
//
// On a machine without a display, run it under xvfb-run.
import { runTests } from '@vscode/test-electron';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildExthostTests } from '../../scripts/build-exthost-tests.mjs';
import { RESULTS_ENV, type ExthostResults } from './results';

const root = path.resolve(import.meta.dirname, '../..');

async function main(): Promise<number> {
  const { index } = await buildExthostTests();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'subagents-exthost-electron-'));
  const workspace = path.join(tmp, 'sample-workspace');
  cpSync(path.join(root, 'test/fixtures/sample-workspace'), workspace, { recursive: true });
  const resultsFile = path.join(tmp, 'results.json');
  try {
    const exitCode = await runTests({
      version: process.env.VSCODE_VERSION ?? 'stable',
      extensionDevelopmentPath: root,
      extensionTestsPath: index,
      extensionTestsEnv: { [RESULTS_ENV]: resultsFile },
      launchArgs: [
        workspace,
        '--disable-extensions',
        '--disable-workspace-trust',
        '--skip-welcome',
        '--skip-release-notes',
        `--user-data-dir=${path.join(tmp, 'user-data')}`,
      ],
    });
    const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as ExthostResults;
    for (const t of results.tests) console.log(`${t.state === 'passed' ? '✔' : t.state === 'failed' ? '✖' : '-'} ${t.title}`);
    console.log(`VS Code ${results.vscodeVersion}: ${results.passed} passed, ${results.failed} failed`);
    return exitCode || (results.failed > 0 ? 1 : 0);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
