// Entry point VS Code loads for `--extensionTestsPath`: runs the mocha suite
// in the extension host (real `vscode` API) and reports the results
//   - on the console (mocha's spec reporter), and
//   - as JSON to the file named by SUBAGENTS_EXTHOST_RESULTS, for the outer
//     harness (test/e2e/exthost.test.ts, test/exthost/runElectron.ts).
// Built by scripts/build-exthost-tests.mjs into dist-test/exthost/index.js.
import Mocha from 'mocha';
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { RESULTS_ENV, SUITE_ENV, type ExthostResults, type ExthostTestResult } from './results';

function writeResults(file: string, results: ExthostResults): void {
  mkdirSync(path.dirname(file), { recursive: true });
  // Written whole, then renamed: the harness polls for the file and must
  // never read half of it.
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, JSON.stringify(results, null, 2));
  renameSync(tmp, file);
}

export function run(): Promise<void> {
  const started = Date.now();
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 30_000, reporter: 'spec' });
  const suiteDir = path.join(__dirname, process.env[SUITE_ENV] || 'suite');
  for (const file of readdirSync(suiteDir).sort()) {
    if (file.endsWith('.test.js')) mocha.addFile(path.join(suiteDir, file));
  }
  const tests: ExthostTestResult[] = [];
  const resultsFile = process.env[RESULTS_ENV];

  return new Promise((resolve, reject) => {
    const finish = (error?: Error) => {
      const passed = tests.filter((t) => t.state === 'passed').length;
      const failed = tests.filter((t) => t.state === 'failed').length;
      const results: ExthostResults = {
        passed,
        failed,
        pending: tests.filter((t) => t.state === 'pending').length,
        durationMs: Date.now() - started,
        vscodeVersion: vscode.version,
        tests,
        error: error ? String(error.stack ?? error) : undefined,
      };
      console.log(`[exthost tests] ${passed} passed, ${failed} failed${error ? ` (runner error: ${error.message})` : ''}`);
      if (resultsFile) writeResults(resultsFile, results);
      if (error || failed > 0) reject(error ?? new Error(`${failed} extension-host test(s) failed`));
      else resolve();
    };
    try {
      const runner = mocha.run(() => finish());
      runner.on('pass', (test) => tests.push({ title: test.fullTitle(), state: 'passed', durationMs: test.duration ?? 0 }));
      runner.on('pending', (test) => tests.push({ title: test.fullTitle(), state: 'pending', durationMs: 0 }));
      runner.on('fail', (test, err: Error) =>
        tests.push({
          title: test.fullTitle(),
          state: 'failed',
          durationMs: test.duration ?? 0,
          error: String(err?.stack ?? err),
        }),
      );
    } catch (e) {
      finish(e instanceof Error ? e : new Error(String(e)));
    }
  });
}
